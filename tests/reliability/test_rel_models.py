"""Faults stay inside one model: two models, each in its own engine process; kill -9 of one fails
only that model's calls in flight (UNAVAILABLE), it is started again (counted in
traductor_model_restarts_total) and serves again, while the other answers throughout."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2
from server_harness import MARKER, WAIT, ServerThread, make_repository, make_settings, wait_for

from traductor_client.v1 import translator_pb2 as pb

SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


class PollGate:
    """A `before_step` hook for an engine process that may be killed while it waits: shared flags
    polled without locks (a process killed inside a multiprocessing.Condition would leave it
    broken for the next one)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._open = ctx.Value("b", 1, lock=False)
        self._waiting = ctx.Value("b", 0, lock=False)

    def __call__(self) -> None:  # the engine process, before every step
        while not self._open.value:
            self._waiting.value = 1
            time.sleep(0.001)
        self._waiting.value = 0

    def close(self) -> None:
        self._open.value = 0

    def open(self) -> None:
        self._open.value = 1

    @property
    def held(self) -> bool:
        return bool(self._waiting.value)


@pytest.fixture
def two_models(tiny_bundle, tmp_path):
    repo = make_repository(tiny_bundle, tmp_path / "repo", {"en-es": ("en", "es"), "en-fr": ("en", "fr")})
    gate = PollGate()
    settings = make_settings(
        "", model_repository=str(repo), default_model="en-es", engine_process=True, restart_backoff_seconds=0.05
    )
    svc = ServerThread(settings, before_step={"en-es": gate})
    svc.gate = gate
    yield svc
    gate.open()
    svc.close()


def test_kill_9_of_one_engine_process_fails_only_its_calls(two_models):
    svc, gate = two_models, two_models.gate
    es = svc.service.registry.get("en-es")
    gate.close()
    held = svc.stub.Translate.future(pb.TranslateRequest(text="uno dos tres", model="en-es"), timeout=WAIT)
    wait_for(lambda: gate.held and es.engine.in_flight == 1, what="the en-es call to be held in its engine")

    answers, failures, stop = [], [], threading.Event()

    def other_model() -> None:  # the en-fr model is called throughout
        while not stop.is_set():
            try:
                answers.append(svc.stub.Translate(pb.TranslateRequest(text=MARKER, model="en-fr"), timeout=WAIT).text)
            except grpc.RpcError as e:
                failures.append(e.code())

    caller = threading.Thread(target=other_model)
    caller.start()
    try:
        wait_for(lambda: len(answers) >= 3, what="en-fr to answer")
        pid = es.engine.core.process.pid
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(grpc.RpcError) as lost:
            held.result()
        assert lost.value.code() == grpc.StatusCode.UNAVAILABLE  # retryable
        gate.open()
        wait_for(lambda: svc.metric("traductor_model_restarts_total", {"model": "en-es"}) == 1, what="a restart")
        wait_for(lambda: svc.health_status("traductor.v1.Translator/en-es") == SERVING, what="en-es SERVING")
        assert es.engine.core.process.pid != pid
        assert svc.stub.Translate(pb.TranslateRequest(text=MARKER, model="en-es"), timeout=WAIT).text == "[en-es]"
        assert svc.stub.Translate(pb.TranslateRequest(text="uno dos", model="en-es"), timeout=WAIT).text
        count = len(answers)
        wait_for(lambda: len(answers) >= count + 3, what="en-fr to go on answering")
    finally:
        stop.set()
        caller.join(WAIT)
    assert failures == [] and set(answers) == {"[en-fr]"}
    assert svc.health_status() == SERVING
    assert svc.metric("traductor_model_restarts_total", {"model": "en-fr"}) == 0
    assert svc.requests("Translate", "UNAVAILABLE") == 1


def test_the_whole_stays_serving_while_one_model_restarts(two_models):
    """The overall health rule: SERVING while at least one model serves (docs/service.md)."""
    svc = two_models
    registry = svc.service.registry
    es = registry.get("en-es")
    es.serving = False  # as while its engine process restarts
    svc.run(svc.service.update_health())
    try:
        assert svc.health_status("traductor.v1.Translator/en-es") == NOT_SERVING
        assert svc.health_status() == SERVING and svc.health_status("traductor.v1.Translator") == SERVING
        registry.get("en-fr").serving = False
        svc.run(svc.service.update_health())
        assert svc.health_status() == NOT_SERVING
    finally:
        es.serving = registry.get("en-fr").serving = True
        svc.run(svc.service.update_health())
    assert svc.health_status() == SERVING
