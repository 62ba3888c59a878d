"""Faults and changes stay inside one model: two models, each in its own engine process; kill -9 of
one fails only that model's calls in flight (UNAVAILABLE), it is started again (counted in
traductor_model_restarts_total) and serves again, while the other answers throughout; SIGHUP to
`traductor serve` rescans its repository while the other models answer throughout."""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import signal
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2
from rel_process import ServeProcess
from server_harness import (
    MARKER,
    WAIT,
    ServerThread,
    break_bundle,
    make_repository,
    make_settings,
    new_version,
    wait_for,
)

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc

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


def test_sighup_to_traductor_serve_adds_refuses_replaces_and_removes_models(tiny_bundle, tmp_path):
    """The signal itself, on the `traductor serve` command: each SIGHUP rescans the repository; a
    new model serves, a bad bundle is logged and refused while the others serve, a changed bundle
    takes over, a removed model is NOT_FOUND; a caller of another model sees no failure throughout.
    (The same under held calls, in-process: tests/service/test_reload.py.)"""
    repo = make_repository(tiny_bundle, tmp_path / "repo", {"de-en": ("de", "en"), "en-es": ("en", "es")})
    log = tmp_path / "serve.log"
    server = ServeProcess(repo, log, "--default-model", "en-es")
    stub = translator_pb2_grpc.TranslatorStub(server.channel)
    answers, failures, stop = [], [], threading.Event()

    def translate(text=MARKER, **route) -> str:
        return stub.Translate(pb.TranslateRequest(text=text, **route), timeout=WAIT).text

    def names() -> list[str]:
        return [m.name for m in stub.ListModels(pb.ListModelsRequest(), timeout=WAIT).models]

    def other_model() -> None:  # de-en is called throughout
        while not stop.is_set():
            try:
                answers.append(translate(model="de-en"))
            except grpc.RpcError as e:
                failures.append((e.code(), e.details()))

    def reload(what: str, done) -> None:
        server.proc.send_signal(signal.SIGHUP)
        wait_for(done, what=what)
        count = len(answers)
        wait_for(lambda: len(answers) > count, what="de-en to go on answering")

    caller = threading.Thread(target=other_model)
    try:
        assert server.wait_status("SERVING")
        caller.start()
        make_repository(tiny_bundle, repo, {"en-fr": ("en", "fr")})
        reload("en-fr to serve", lambda: names() == ["de-en", "en-es", "en-fr"])
        assert translate(target_language="fr") == "[en-fr]"

        make_repository(tiny_bundle, repo, {"zz-bad": ("zz", "en")})
        break_bundle(repo / "zz-bad")
        reload("the refusal in the log", lambda: "reload: model zz-bad refused:" in log.read_text())
        assert "checksum mismatch" in log.read_text() and names() == ["de-en", "en-es", "en-fr"]
        assert translate() == "[en-es]" and server.proc.poll() is None
        shutil.rmtree(repo / "zz-bad")

        new_version(repo / "en-es", "[en-es v2]")
        reload("en-es v2 to take over", lambda: translate() == "[en-es v2]")

        shutil.rmtree(repo / "en-fr")
        reload("en-fr to be removed", lambda: names() == ["de-en", "en-es"])
        with pytest.raises(grpc.RpcError) as gone:
            translate(model="en-fr")
        assert gone.value.code() == grpc.StatusCode.NOT_FOUND
        wait_for(lambda: re.search(r"model en-fr \(bundle \w+\) unloaded", log.read_text()), what="the unload")
    finally:
        stop.set()
        if caller.is_alive():
            caller.join(WAIT)
        server.close()
    assert failures == [] and set(answers) == {"[de-en]"}
    text = log.read_text()
    assert "reload: added ['en-fr']" in text and "reload: replaced ['en-es']" in text
    assert "reload: removed ['en-fr']" in text and "Traceback" not in text
