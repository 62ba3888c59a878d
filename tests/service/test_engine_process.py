"""`engine_process=True`: the model runs in a spawned engine process, the gRPC front in this one.

The same answers as the engine alone, token for token; cancels, the queue limit and a dead engine
process behave as a caller needs. The engine process is held between steps by a `ProcessGate`."""

from __future__ import annotations

import os
import signal

import grpc
import pytest
from grpc_health.v1 import health_pb2
from service_harness import WAIT, ServerThread, make_settings, translate_request, wait_for

from traductor_client.v1 import translator_pb2 as pb

TEXTS = ["uno dos tres", "cinco %s", "ocho {a:日本}", "nueve siete cero uno"]
LONG = {"min_new_tokens": 40, "max_new_tokens": 40}


@pytest.fixture(scope="module")
def server_settings() -> dict:
    return {"engine_process": True}


def test_the_model_runs_in_another_process(server):
    process = server.service.engine.core.process
    assert process.is_alive() and process.pid != os.getpid()
    assert server.health_status() == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("text", TEXTS)
def test_unary_stream_and_batch_equal_the_engine_alone(server, alone, text):
    """Token for token what the offline translator gives for the text on its own."""
    reference = alone(text)
    unary = server.stub.Translate(translate_request(text), timeout=WAIT)
    messages = list(server.stub.TranslateStream(translate_request(text), timeout=WAIT))
    batch = server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=[text, "dos"]), timeout=WAIT)
    assert list(unary.token_ids) == list(reference.token_ids) and unary.text == reference.text
    assert [m.token_id for m in messages[:-1]] == list(reference.token_ids)
    assert "".join(m.text_delta for m in messages) == reference.text
    assert list(batch.results[0].token_ids) == list(reference.token_ids)


def test_beam_search_and_metrics_cross_the_process(server, alone):
    before = server.metric("traductor_output_tokens_total")
    reply = server.stub.Translate(translate_request("siete ocho", beam_size=2), timeout=WAIT)
    assert list(reply.token_ids) == list(alone("siete ocho", beam_size=2).token_ids)
    assert server.metric("traductor_output_tokens_total") - before == len(reply.token_ids)
    assert server.metric("traductor_decode_step_duration_seconds_count") > 0  # the engine process's step reports
    server.wait_idle()


def test_a_cancelled_stream_leaves_the_engine(server):
    """The front tells the engine process; the request's rows are freed at its next step, not
    after the 40 tokens it was asked for."""
    gate = server.gate
    gate.close()
    call = server.stub.TranslateStream(translate_request("uno dos", **LONG), timeout=WAIT)
    gate.allow(3)
    assert [next(call).index for _ in range(3)] == [0, 1, 2]
    assert gate.wait_held() and server.metric("traductor_active_sequences") == 1
    call.cancel()
    wait_for(lambda: server.service.engine.in_flight == 0, what="the handler to see the cancel")
    gate.allow(2)  # the cancel crosses the pipe beside the steps: it lands within these two
    wait_for(lambda: server.metric("traductor_active_sequences") == 0, what="the rows to be freed")
    gate.open()
    server.wait_idle()


def test_a_full_queue_is_refused_by_the_front(tiny_bundle):
    """The front counts what it sent that the engine has not reported admitted: refused at once."""
    svc = ServerThread(make_settings(tiny_bundle, engine_process=True, max_active_sequences=1, max_queued_requests=1))
    try:
        svc.gate.close()
        first = svc.stub.Translate.future(translate_request("uno dos"), timeout=WAIT)
        wait_for(lambda: svc.service.engine.core.queue_depth() == 1, what="the first call to be queued")
        with pytest.raises(grpc.RpcError) as refused:
            svc.stub.Translate(translate_request("tres"), timeout=WAIT)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        svc.gate.open()
        assert first.result().text
    finally:
        svc.close()


def test_a_dead_engine_process_fails_its_calls_unavailable(tiny_bundle):
    """kill -9 of the engine process, with no restart allowed (--max-restarts 0): the stream in
    flight ends UNAVAILABLE, the server says NOT_SERVING and refuses new calls UNAVAILABLE (the
    `serve` command then exits 2). Restarts: tests/reliability/test_rel_models.py."""
    svc = ServerThread(make_settings(tiny_bundle, engine_process=True, max_restarts=0))
    try:
        svc.gate.close()
        call = svc.stub.TranslateStream(translate_request("uno dos", **LONG), timeout=WAIT)
        svc.gate.allow(1)
        assert next(call).index == 0 and svc.gate.wait_held()
        os.kill(svc.service.engine.core.process.pid, signal.SIGKILL)
        svc.gate = None  # killed while waiting on the gate's condition: notifying it would wait forever
        with pytest.raises(grpc.RpcError) as ended:
            list(call)
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
        wait_for(lambda: svc.health_status() == health_pb2.HealthCheckResponse.NOT_SERVING, what="NOT_SERVING")
        with pytest.raises(grpc.RpcError) as refused:
            svc.stub.Translate(translate_request("tres"), timeout=WAIT)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "engine" in refused.value.details()
        assert svc.requests("TranslateStream", "UNAVAILABLE") == 1
    finally:
        svc.close()
