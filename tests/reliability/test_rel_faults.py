"""Faults inside the engine fail only the request they hit, with a generic INTERNAL message; a dead
engine process stops the server, to be restarted."""

from __future__ import annotations

import os
import signal

import grpc
import pytest
from rel_harness import stub_of
from rel_process import ServeProcess
from server_harness import wait_for

from traductor.options import DecodingOptions
from traductor_client.v1 import translator_pb2 as pb

SECRET = "secret-internal-detail"
POISON = "uno dos %d"  # its placeholder value "%d" makes the poisoned tokenizer raise
TEXTS = ["uno dos", "tres cuatro cinco", "seis"]


class PoisonedTokenizer:
    """The real tokenizer, except that decoding anything for a text holding "%d" raises."""

    def __init__(self, real):
        self.real = real

    def decode(self, ids, values):
        if "%d" in values:
            raise RuntimeError(SECRET)
        return self.real.decode(ids, values)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _assert_generic_internal(error: grpc.RpcError) -> None:
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == "internal error" and SECRET not in error.details()


@pytest.mark.parametrize("rpc", ["Translate", "TranslateStream"])
def test_poison_request_fails_alone(make_service, gate, channel_for, rpc):
    """A detokenizer fault for one request in a batch: that request gets INTERNAL "internal error"
    (no exception text), the others in the same steps finish normally, and the engine serves on."""
    svc = make_service(before_step=gate)
    stub = stub_of(channel_for(svc.target))
    alone = {t: stub.Translate(pb.TranslateRequest(text=t), timeout=30).text for t in TEXTS}
    _, values, _ = svc.service.engine.prepare(POISON, DecodingOptions())
    assert "%d" in values
    svc.service.engine.core.scheduler.tokenizer = PoisonedTokenizer(svc.service.engine.core.scheduler.tokenizer)

    gate.close()
    others = [stub.Translate.future(pb.TranslateRequest(text=t), timeout=30) for t in TEXTS]
    if rpc == "Translate":
        poisoned = stub.Translate.future(pb.TranslateRequest(text=POISON), timeout=10)
    else:
        poisoned = stub.TranslateStream(pb.TranslateRequest(text=POISON), timeout=10)
    assert svc.wait_for(lambda: svc.service.engine.core.stats().queued == len(TEXTS) + 1)
    gate.open()  # all four are admitted in the same step

    with pytest.raises(grpc.RpcError) as e:
        poisoned.result() if rpc == "Translate" else list(poisoned)
    _assert_generic_internal(e.value)
    assert [f.result().text for f in others] == [alone[t] for t in TEXTS]
    assert stub.Translate(pb.TranslateRequest(text=TEXTS[0]), timeout=30).text == alone[TEXTS[0]]
    assert svc.wait_for(lambda: svc.service.engine.in_flight == 0 and svc.gauge("traductor_active_sequences") == 0)


def test_failing_encoder_fails_its_batch_only(make_service, gate, channel_for):
    """The encoder raises once: the requests admitted in that step get INTERNAL; the next ones
    are served."""
    svc = make_service(before_step=gate)
    stub = stub_of(channel_for(svc.target))
    runner = svc.service.engine.core.scheduler.runner
    real_encode, calls = runner.encode, []

    def encode_once_broken(*args):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(SECRET)
        return real_encode(*args)

    runner.encode = encode_once_broken
    with pytest.raises(grpc.RpcError) as e:
        stub.Translate(pb.TranslateRequest(text="uno dos"), timeout=30)
    _assert_generic_internal(e.value)
    assert stub.Translate(pb.TranslateRequest(text="uno dos"), timeout=30).text
    assert svc.wait_for(
        lambda: svc.gauge("traductor_requests_total", {"protocol": "grpc", "rpc": "Translate", "code": "INTERNAL"}) == 1
    )  # counted just after the caller sees it


def test_engine_survives_a_step_that_raises(make_service, channel_for):
    """A `before_step` that raises once: the engine thread logs it and goes on; every request
    still succeeds."""
    raised = []

    def flaky():
        if not raised:
            raised.append(1)
            raise RuntimeError(SECRET)

    svc = make_service(before_step=flaky)  # the warm-up takes the fault
    stub = stub_of(channel_for(svc.target))
    assert raised == [1]
    assert svc.service.engine.core._thread.is_alive()
    assert [stub.Translate(pb.TranslateRequest(text=t), timeout=30).text != "" for t in TEXTS] == [True] * 3


@pytest.mark.parametrize("max_restarts", [0, 2])
def test_serve_exits_when_its_engine_process_cannot_be_restarted(tiny_bundle, tmp_path, max_restarts):
    """kill -9 of the engine process, again and again: `traductor serve` starts it again
    --max-restarts times in a row (each counted, SERVING again), and at the next death gives the
    model up, stops at once and exits 2 with one line naming it and the count, so that its
    supervisor (compose, Kubernetes) restarts it. (The other models go on meanwhile:
    tests/reliability/test_rel_models.py.)"""
    flags = ("--max-restarts", str(max_restarts), "--restart-backoff-seconds", "0.05")
    server = ServeProcess(tiny_bundle, tmp_path / "serve.log", *flags)  # engine process: the default
    restarts = 'traductor_model_restarts_total{model="tiny"}'
    try:
        assert server.wait_status("SERVING")
        for restart in range(1, max_restarts + 1):
            [engine] = server.engine_processes()
            os.kill(engine, signal.SIGKILL)
            wait_for(lambda n=restart: server.metric(restarts) == n, what=f"restart {restart}")
            assert server.wait_status("SERVING") and server.proc.poll() is None
        [engine] = server.engine_processes()
        os.kill(engine, signal.SIGKILL)
        assert server.proc.wait(60) == 2
        log = (tmp_path / "serve.log").read_text()
        assert "the engine process exited (killed by signal 9)" in log and "Traceback" not in log
        last = log.strip().splitlines()[-1]
        assert last.startswith(
            f"traductor serve: error: model tiny: its engine process failed {max_restarts + 1} times in a row, "
            f"given up after --max-restarts {max_restarts} restarts; last: "
        ), last
    finally:
        server.close()
