"""Continuous batching as a caller sees it, observed step by step through a gate on the engine:
late requests join running ones, cancelled and timed-out requests free their rows at once, a
full queue refuses at once."""

from __future__ import annotations

import grpc
import pytest
from service_harness import WAIT, translate_request, wait_for

from traductor_client.v1 import translator_pb2 as pb

LONG = {"min_new_tokens": 40, "max_new_tokens": 40}  # decodes for 40 steps whatever the model thinks


@pytest.fixture(scope="module")
def server_settings():
    return {"max_active_sequences": 2, "max_queued_requests": 2}


def active_rows(server) -> float:
    return server.metric("traductor_active_sequences")


def test_late_request_joins_while_another_is_decoding(server, alone):
    """A request that arrives mid-decode gets its first token while the first is still decoding."""
    server.wait_idle()
    gate = server.gate
    gate.close()
    first = server.stub.TranslateStream(translate_request("uno dos tres", **LONG), timeout=WAIT)
    gate.wait_held()
    gate.step(2)  # admitted, two tokens out
    assert [next(first).index, next(first).index] == [0, 1]

    second = server.stub.TranslateStream(translate_request("siete"), timeout=WAIT)
    wait_for(lambda: server.service.engine.core.stats().queued == 1, what="the second request to queue")
    rows_sum = server.metric("traductor_batch_size_sum")
    gate.step()  # the second joins: both decode in this step
    second_first = next(second)
    assert second_first.index == 0
    assert next(first).index == 2  # the first is still decoding: it got its third token in the same step
    wait_for(lambda: server.metric("traductor_batch_size_sum") - rows_sum == 2, what="a 2-row step")

    gate.open()
    rest_of_second = list(second)
    rest_of_first = list(first)
    assert rest_of_first[-1].index == 40 and rest_of_first[-1].finish_reason == pb.FINISH_REASON_LENGTH
    assert [m.token_id for m in [second_first] + rest_of_second[:-1]] == alone("siete").token_ids


def test_cancelled_stream_frees_its_rows(server):
    """Cancelling a stream mid-way ends its sequence at the next step: no rows, no cache left."""
    server.wait_idle()
    cancelled_before = server.requests("TranslateStream", "CANCELLED")
    gate = server.gate
    gate.close()
    call = server.stub.TranslateStream(translate_request("cuatro cinco seis", **LONG), timeout=WAIT)
    gate.wait_held()
    gate.step(3)
    assert [next(call).index for _ in range(3)] == [0, 1, 2]
    wait_for(lambda: active_rows(server) == 1, what="the row to be counted")
    assert server.metric("traductor_kv_cache_bytes") > 0

    call.cancel()
    wait_for(lambda: server.service.engine.in_flight == 0, what="the server to see the cancel")
    gate.step()  # one step is enough: the request leaves before any work is spent on it
    wait_for(
        lambda: active_rows(server) == 0 and server.metric("traductor_kv_cache_bytes") == 0,
        what="the rows and cache to be freed",
    )
    wait_for(
        lambda: server.requests("TranslateStream", "CANCELLED") == cancelled_before + 1, what="the cancel to be counted"
    )
    assert server.service.engine.core.scheduler.active == []


def test_deadline_frees_a_decoding_request(server):
    """A unary call whose deadline passes mid-decode fails DEADLINE_EXCEEDED and its rows are freed."""
    server.wait_idle()
    gate = server.gate
    gate.close()
    future = server.stub.Translate.future(translate_request("ocho nueve", **LONG), timeout=2.0)
    gate.wait_held()
    gate.step(2)
    wait_for(lambda: active_rows(server) == 1, what="the request to decode")
    with pytest.raises(grpc.RpcError) as e:
        future.result()
    assert e.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    wait_for(lambda: server.service.engine.in_flight == 0, what="the server to give up the request")
    gate.step()
    wait_for(
        lambda: active_rows(server) == 0 and server.metric("traductor_kv_cache_bytes") == 0,
        what="the rows and cache to be freed",
    )
    assert server.service.engine.core.scheduler.active == []


def test_full_queue_refuses_at_once(server):
    """With every row busy and the queue full, the next request gets RESOURCE_EXHAUSTED at once."""
    server.wait_idle()
    gate = server.gate
    gate.close()
    running = [server.stub.Translate.future(translate_request(t, **LONG), timeout=WAIT) for t in ("uno", "dos")]
    gate.wait_held()
    wait_for(lambda: server.service.engine.core.stats().queued == 2, what="two queued requests")
    gate.step()  # both admitted: the 2 rows are taken
    assert len(server.service.engine.core.scheduler.active) == 2
    queued = [server.stub.Translate.future(translate_request(t), timeout=WAIT) for t in ("tres", "cuatro")]
    wait_for(lambda: server.service.engine.core.stats().queued == 2, what="a full queue")

    refused_before = server.requests("Translate", "RESOURCE_EXHAUSTED")
    with pytest.raises(grpc.RpcError) as e:
        server.stub.Translate(translate_request("cinco"), timeout=WAIT)  # the gate is closed: no step can help
    assert e.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    with pytest.raises(grpc.RpcError) as e:
        list(server.stub.TranslateStream(translate_request("cinco"), timeout=WAIT))
    assert e.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    wait_for(
        lambda: server.requests("Translate", "RESOURCE_EXHAUSTED") == refused_before + 1,
        what="the refusal to be counted",
    )

    gate.open()
    assert [len(f.result().token_ids) for f in running] == [40, 40]
    assert all(f.result().text for f in queued)
    assert server.stub.Translate(translate_request("cinco"), timeout=WAIT).text  # served again
    server.wait_idle()
