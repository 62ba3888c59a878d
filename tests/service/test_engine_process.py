"""`engine_process=True`: the model runs in a spawned engine process, the gRPC front in this one.

The same answers as the engine alone, token for token; cancels, the queue limit and a dead engine
process behave as a caller needs. The engine process is held between steps by a `ProcessGate`."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2
from service_harness import WAIT, ServerThread, make_settings, translate_request, wait_for

from traductor.engine.process import EngineLoop, EngineSpec, Job
from traductor.engine.request import FinishEvent
from traductor.options import DecodingOptions, Limits, resolve
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


def test_a_call_admitted_leaves_the_queue_at_once(tiny_bundle):
    """The engine sends no message when it admits a call (its first message is the finish): the
    front's queue check reads the shared count of jobs that left the queue, so a call decoding
    behind a held engine leaves room for the next one, and the one after is refused."""
    settings = make_settings(tiny_bundle, engine_process=True, max_active_sequences=1, max_queued_requests=1)
    svc = ServerThread(settings)
    try:
        core, gate = svc.service.engine.core, svc.gate
        gate.close()
        first = svc.stub.Translate.future(translate_request("uno dos", **LONG), timeout=WAIT)
        gate.allow(1)  # the step that admits it
        assert gate.wait_held()
        wait_for(lambda: core.queue_depth() == 0, what="the admission to be counted")
        second = svc.stub.Translate.future(translate_request("tres"), timeout=WAIT)
        wait_for(lambda: core.queue_depth() == 1, what="the second call to be queued")
        with pytest.raises(grpc.RpcError) as refused:
            svc.stub.Translate(translate_request("cuatro"), timeout=WAIT)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        gate.open()
        assert first.result().text and second.result().text
    finally:
        svc.close()


def test_a_unary_call_costs_one_message_from_the_engine(tiny_bundle):
    """The engine loop on its own (in this process): a call's admission and its steps wake nobody;
    its one message is the finish, with every step in its report."""
    ctx = multiprocessing.get_context("spawn")
    jobs_r, jobs_w = ctx.Pipe(duplex=False)
    events_r, events_w = ctx.Pipe(duplex=False)
    left = ctx.RawValue("q", 0)
    scheduler = EngineSpec(str(tiny_bundle), threads=1, spin=False, max_rows=4, max_queue=8).scheduler()
    loop = EngineLoop(scheduler, jobs_r, events_w, left)
    thread = threading.Thread(target=loop.run)
    thread.start()
    try:
        ids, values = scheduler.tokenizer.encode("uno dos tres")
        options = resolve(DecodingOptions(min_new_tokens=6, max_new_tokens=6), len(ids), Limits())
        jobs_w.send(("submit", [Job(7, "r", ids, values, options, None, False, time.monotonic())]))
        assert events_r.poll(WAIT)
        batch, report = events_r.recv()
    finally:
        jobs_w.send(("stop", None))
        thread.join(WAIT)
    assert [key for key, _ in batch] == [7] and isinstance(batch[0][1], FinishEvent)
    assert len(batch[0][1].token_ids) == 6 and len(report.steps) >= 6 and report.rows == 0
    assert left.value == 1 and not events_r.poll(0)

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
