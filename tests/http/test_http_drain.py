"""SIGTERM's drain covers the HTTP API too: a request in flight finishes with its translation,
a new one gets 503 at once, and the HTTP port closes with the gRPC server."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from http_harness import call
from server_harness import WAIT, wait_for

BODY = {"q": "uno dos tres", "source": "en", "target": "es"}


def test_drain_finishes_http_requests_in_flight_and_refuses_new_ones(server):
    expected = call(server.url + "translate", "POST", json_body=BODY).json()
    engine = server.service.engine
    server.gate.close()
    with ThreadPoolExecutor(1) as pool:
        in_flight = pool.submit(call, server.url + "translate", "POST", json_body=BODY)
        wait_for(lambda: engine.in_flight == 1, what="the request to reach the engine")
        drained = server.submit(server.service.drain())
        wait_for(lambda: engine.draining, what="the drain to begin")
        refused = call(server.url + "translate", "POST", json_body=BODY)
        assert refused.status == 503 and refused.json() == {"error": "the server is shutting down"}
        server.gate.open()
        answer = in_flight.result(timeout=WAIT)
    assert answer.status == 200 and answer.json() == expected
    drained.result(timeout=WAIT)
    server.drained = True
    with pytest.raises(OSError):  # urllib's URLError is an OSError: nothing listens any more
        call(server.url + "languages")
