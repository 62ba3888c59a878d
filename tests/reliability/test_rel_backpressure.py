"""Backpressure: a full engine refuses the overflow at once and serves everything it accepted."""

from __future__ import annotations

import grpc
from rel_harness import stub_of

from traductor_client.v1 import translator_pb2 as pb

TEXT = "uno dos tres cuatro"
N, Q, K = 2, 3, 2  # active sequences, queue slots, requests beyond both


def test_overflow_is_refused_at_once_and_accepted_requests_complete(make_service, gate, channel_for):
    """N rows busy + Q queued: exactly K of N+Q+K are refused (RESOURCE_EXHAUSTED) while the engine
    is held; once released, the N+Q accepted ones finish with the same output as alone."""
    svc = make_service(before_step=gate, max_active_sequences=N, max_queued_requests=Q)
    stub = stub_of(channel_for(svc.target))
    request = pb.TranslateRequest(text=TEXT, options=pb.DecodingOptions(max_new_tokens=30))
    alone = stub.Translate(request, timeout=30)
    assert alone.text

    gate.close()
    first = [stub.Translate.future(request, timeout=60) for _ in range(N)]
    assert svc.wait_for(lambda: svc.service.engine.core.stats().queued == N)
    gate.allow(1)  # one step: the N requests take the N rows
    assert gate.wait_held()
    assert svc.service.engine.core.stats().rows == N and svc.service.engine.core.stats().queued == 0
    assert svc.gauge("traductor_active_sequences") == N and svc.gauge("traductor_kv_cache_bytes") > 0

    steps = gate.steps
    rest = [stub.Translate.future(request, timeout=60) for _ in range(Q + K)]
    # The engine is still held: the refused ones must have answered without any step running.
    assert svc.wait_for(lambda: sum(f.done() for f in rest) == K)
    refused = [f for f in rest if f.done()]
    assert [f.exception().code() for f in refused] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * K
    assert "queue is full" in refused[0].exception().details()
    assert svc.service.engine.core.stats().queued == Q
    assert gate.steps == steps
    assert svc.service.engine.in_flight == N + Q

    gate.open()
    accepted = first + [f for f in rest if f not in refused]
    results = [f.result(timeout=60) for f in accepted]
    assert len(results) == N + Q
    assert all(r.text == alone.text and list(r.token_ids) == list(alone.token_ids) for r in results)
    assert svc.wait_for(
        lambda: (
            svc.gauge(
                "traductor_requests_total", {"protocol": "grpc", "rpc": "Translate", "code": "RESOURCE_EXHAUSTED"}
            )
            == K
        )
    )  # counted just after the caller sees it
    assert svc.wait_for(lambda: svc.gauge("traductor_active_sequences") == 0)
    assert svc.wait_for(lambda: svc.gauge("traductor_kv_cache_bytes") == 0)
