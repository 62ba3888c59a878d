"""A full engine answers HTTP 429 at once (RESOURCE_EXHAUSTED), held by the step gate, no sleeps;
the requests it accepted finish with the same text as gRPC gives."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from http_harness import call, http_requests
from server_harness import WAIT, translate_request, wait_for

TEXT = "uno dos tres"


@pytest.fixture(scope="module")
def server_settings():
    return {"max_active_sequences": 1, "max_queued_requests": 1}


def test_full_queue_is_429_and_the_accepted_request_completes(server):
    expected = server.stub.Translate(translate_request(TEXT), timeout=WAIT).text
    body = {"q": TEXT, "source": "en", "target": "es"}
    before = http_requests(server, "/translate", "RESOURCE_EXHAUSTED")
    engine = server.service.engine
    server.gate.close()
    with ThreadPoolExecutor(1) as pool:
        accepted = pool.submit(call, server.url + "translate", "POST", json_body=body)
        wait_for(lambda: engine.core.stats().queued == 1, what="the first request to be queued")
        steps = server.gate.steps
        refused = call(server.url + "translate", "POST", json_body=body)  # the queue is full
        assert refused.status == 429 and "queue is full" in refused.json()["error"]
        assert refused.headers["retry-after"] == "1"  # the 250 ms retry hint, in whole seconds
        assert server.gate.steps == steps  # refused without any engine step
        assert http_requests(server, "/translate", "RESOURCE_EXHAUSTED") == before + 1
        server.gate.open()
        answer = accepted.result(timeout=WAIT)
    assert answer.status == 200 and answer.json()["translatedText"] == expected
    server.wait_idle()
