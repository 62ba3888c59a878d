"""Deadlines: a request that cannot make its deadline ends DEADLINE_EXCEEDED and frees its rows."""

from __future__ import annotations

import grpc
import pytest
from rel_harness import stub_of

from traductor_client.v1 import translator_pb2 as pb

REQUEST = pb.TranslateRequest(text="uno dos tres", options=pb.DecodingOptions(min_new_tokens=20, max_new_tokens=20))


@pytest.mark.parametrize("where", ["queued", "decoding"])
def test_missed_deadline_frees_rows_and_a_longer_one_succeeds(make_service, gate, channel_for, where):
    """Held in the queue or mid-decode past its 0.3 s deadline: DEADLINE_EXCEEDED, the engine retires
    the request at its next step; the same call with a 30 s deadline then succeeds."""
    svc = make_service(before_step=gate)
    stub = stub_of(channel_for(svc.target))
    scheduler = svc.service.engine.scheduler
    gate.close()
    future = stub.Translate.future(REQUEST, timeout=0.3)
    assert svc.wait_for(lambda: scheduler.queue_depth() == 1)
    request = scheduler.waiting[0]
    if where == "decoding":
        gate.allow(1)  # admitted and its first token decoded
        assert gate.wait_held() and scheduler.cache.rows == 1 and len(request.tokens) == 1
    assert future.exception(timeout=10).code() == grpc.StatusCode.DEADLINE_EXCEEDED
    tokens = len(request.tokens)
    gate.allow(1)
    assert svc.wait_for(lambda: request.done)
    assert len(request.tokens) == tokens and scheduler.cache.rows == 0 and not scheduler.waiting
    gate.open()
    assert svc.wait_for(
        lambda: svc.gauge("traductor_active_sequences") == 0 and svc.gauge("traductor_queue_depth") == 0
    )

    ok = stub.Translate(REQUEST, timeout=30)
    assert ok.finish_reason == pb.FINISH_REASON_LENGTH and len(ok.token_ids) == 20


def test_engine_deadline_check_answers_deadline_exceeded(make_service, gate, channel_for):
    """When the engine sees the deadline first (it retires the request at a step), the caller gets
    DEADLINE_EXCEEDED from the server's own mapping, not a generic error."""
    svc = make_service(before_step=gate)
    stub = stub_of(channel_for(svc.target))
    scheduler = svc.service.engine.scheduler
    # A long client deadline; the engine's deadline for the request is moved into the past.
    gate.close()
    call = stub.TranslateStream(REQUEST, timeout=30)
    assert svc.wait_for(lambda: scheduler.queue_depth() == 1)
    scheduler.waiting[0].deadline = 0.0
    gate.open()
    with pytest.raises(grpc.RpcError) as e:
        list(call)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert "deadline" in e.value.details()
    # The status reaches the caller just before the interceptor counts it: wait (bounded) for it.
    labels = {"protocol": "grpc", "rpc": "TranslateStream", "code": "DEADLINE_EXCEEDED"}
    assert svc.wait_for(lambda: svc.gauge("traductor_requests_total", labels) == 1)
