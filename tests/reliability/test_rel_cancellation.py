"""Cancellation and disconnects: the engine stops a request within one step and frees everything."""

from __future__ import annotations

import threading

import grpc
import pytest
from rel_harness import stub_of

from traductor_client.v1 import translator_pb2 as pb

LONG = pb.DecodingOptions(min_new_tokens=60, max_new_tokens=60)


def _hold_mid_stream(svc, gate, stub):
    """A long stream, held by the gate after a few tokens: (call, its engine Request, tokens so far)."""
    gate.close()
    call = stub.TranslateStream(pb.TranslateRequest(text="uno dos", options=LONG), timeout=60)
    gate.allow(3)  # admit + 3 tokens
    first = [next(call) for _ in range(3)]
    assert [m.index for m in first] == [0, 1, 2]
    assert gate.wait_held()
    (request,) = svc.service.engine.core.scheduler.active
    return call, request, len(request.tokens)


def _assert_stopped_within_one_step(svc, gate, request, tokens):
    assert svc.wait_for(lambda: svc.service.engine.in_flight == 0)  # the handler saw the caller go
    assert request.cancelled and not request.done
    gate.allow(1)
    assert svc.wait_for(lambda: request.done)
    assert len(request.tokens) == tokens  # no token decoded after the cancel
    assert svc.wait_for(lambda: svc.gauge("traductor_active_sequences") == 0)
    assert svc.service.engine.core.stats().rows == 0


def test_cancelled_stream_stops_within_one_step(make_service, gate, channel_for):
    """call.cancel() mid-stream: the very next engine step retires the request, no new token."""
    svc = make_service(before_step=gate)
    call, request, tokens = _hold_mid_stream(svc, gate, stub_of(channel_for(svc.target)))
    call.cancel()
    _assert_stopped_within_one_step(svc, gate, request, tokens)


def test_disconnected_client_stops_within_one_step(make_service, gate):
    """Closing the channel mid-stream is a cancel too."""
    svc = make_service(before_step=gate)
    channel = grpc.insecure_channel(svc.target)
    call, request, tokens = _hold_mid_stream(svc, gate, stub_of(channel))
    channel.close()
    _assert_stopped_within_one_step(svc, gate, request, tokens)


def test_unary_caller_disconnect_while_queued_frees_the_request(make_service, gate):
    """A unary call whose channel closes while it waits in the queue never takes a row."""
    svc = make_service(before_step=gate)
    channel = grpc.insecure_channel(svc.target)
    gate.close()
    future = stub_of(channel).Translate.future(pb.TranslateRequest(text="uno dos", options=LONG), timeout=60)
    scheduler = svc.service.engine.core.scheduler
    assert svc.wait_for(lambda: scheduler.queue_depth() == 1)
    (request,) = scheduler.waiting
    channel.close()
    assert future.exception(timeout=10).code() == grpc.StatusCode.CANCELLED
    assert svc.wait_for(lambda: svc.service.engine.in_flight == 0)
    gate.allow(1)
    assert svc.wait_for(lambda: request.done)
    assert request.tokens == [] and not request.rows
    assert svc.wait_for(lambda: svc.gauge("traductor_queue_depth") == 0)


TEXTS = [
    "uno",
    "dos tres",
    "cuatro cinco seis",
    "siete ocho",
    "nueve cero uno dos",
    "tres tres",
    "cinco",
    "seis siete ocho nueve",
    "cero cero",
    "uno dos tres cuatro cinco",
]


def test_hundred_requests_ten_cancelled(make_service, gate, channel_for):
    """100 concurrent requests (unary and streams), 10 cancelled: the other 90 give exactly their
    alone result; gauges, in-flight count and thread count return to idle."""
    svc = make_service(before_step=gate, max_active_sequences=16, max_queued_requests=128)
    stub = stub_of(channel_for(svc.target))
    alone = {t: stub.Translate(pb.TranslateRequest(text=t), timeout=30).text for t in TEXTS}
    baseline_threads = threading.active_count()

    gate.close()
    texts = [TEXTS[i % len(TEXTS)] for i in range(100)]
    unary = [stub.Translate.future(pb.TranslateRequest(text=t), timeout=120) for t in texts[:80]]
    streams = [
        stub.TranslateStream(pb.TranslateRequest(text=t, options=LONG if i < 5 else None), timeout=120)
        for i, t in enumerate(texts[80:])
    ]
    assert svc.wait_for(lambda: svc.service.engine.in_flight == 100, timeout=30)
    for f in unary[:5]:  # cancelled while queued
        f.cancel()
    gate.open()
    for call in streams[:5]:  # cancelled mid-stream, after their first token
        assert next(call).index == 0
        call.cancel()

    for f, t in zip(unary[5:], texts[5:80]):
        assert f.result(timeout=120).text == alone[t]
    for call, t in zip(streams[5:], texts[85:]):
        messages = list(call)
        assert messages[-1].finish_reason == pb.FINISH_REASON_EOS
        assert "".join(m.text_delta for m in messages) == alone[t]
    for f in unary[:5]:
        assert f.cancelled()
    for call in streams[:5]:
        with pytest.raises(grpc.RpcError) as e:
            list(call)
        assert e.value.code() == grpc.StatusCode.CANCELLED

    engine = svc.service.engine
    assert svc.wait_for(lambda: engine.in_flight == 0)
    for name in ("traductor_active_sequences", "traductor_queue_depth", "traductor_kv_cache_bytes"):
        assert svc.wait_for(lambda name=name: svc.gauge(name) == 0), name
    scheduler = engine.core.scheduler
    assert scheduler.cache.rows == 0 and not scheduler.active and not scheduler.waiting
    assert svc.wait_for(lambda: threading.active_count() <= baseline_threads), threading.enumerate()
