"""Draining: health goes NOT_SERVING, new work is UNAVAILABLE, work in flight still finishes."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2
from service_harness import WAIT, translate_request, wait_for

from traductor_client.v1 import translator_pb2 as pb

NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def test_drain_refuses_new_work_and_finishes_in_flight(server):
    """While draining: NOT_SERVING for "" and the Translator, UNAVAILABLE for new calls; the running stream
    completes."""
    for name in ("", "traductor.v1.Translator"):
        assert server.health_status(name) == health_pb2.HealthCheckResponse.SERVING
    gate = server.gate
    gate.close()
    running = server.stub.TranslateStream(
        translate_request("uno dos", min_new_tokens=20, max_new_tokens=20), timeout=WAIT
    )
    gate.wait_held()
    gate.step()
    assert next(running).index == 0

    drained = server.submit(server.service.drain())
    server.drained = True
    for name in ("", "traductor.v1.Translator"):
        wait_for(lambda name=name: server.health_status(name) == NOT_SERVING, what=f"{name!r} NOT_SERVING")
    for call in (
        lambda: server.stub.Translate(translate_request("tres"), timeout=WAIT),
        lambda: list(server.stub.TranslateStream(translate_request("tres"), timeout=WAIT)),
        lambda: server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=["tres"]), timeout=WAIT),
    ):
        with pytest.raises(grpc.RpcError) as e:
            call()
        assert e.value.code() is grpc.StatusCode.UNAVAILABLE
    wait_for(lambda: server.requests("Translate", "UNAVAILABLE") == 1, what="the refusal to be counted")
    assert not drained.done()  # the drain waits for the stream in flight

    gate.open()
    rest = list(running)
    assert rest[-1].index == 20 and rest[-1].finish_reason == pb.FINISH_REASON_LENGTH
    drained.result(WAIT)
    assert server.service.engine.in_flight == 0
