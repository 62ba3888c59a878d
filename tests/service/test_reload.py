"""SIGHUP (registry.Registry.reload) under load: a model added, one removed while it holds a call,
one replaced by a new version of its bundle, a bad bundle refused; no call fails."""

from __future__ import annotations

import shutil
import threading

import grpc
import pytest
from grpc_health.v1 import health_pb2
from server_harness import (
    MARKER,
    WAIT,
    Gate,
    ServerThread,
    break_bundle,
    make_repository,
    make_settings,
    new_version,
    wait_for,
)

from traductor_client.v1 import translator_pb2 as pb


def test_reload_adds_removes_and_replaces_models_with_no_failed_call(tiny_bundle, tmp_path):
    repo = make_repository(
        tiny_bundle, tmp_path / "repo", {"de-en": ("de", "en"), "en-es": ("en", "es"), "en-fr": ("en", "fr")}
    )
    fr_gate = Gate()
    settings = make_settings("", model_repository=str(repo), default_model="en-es")
    svc = ServerThread(settings, before_step={"en-fr": fr_gate})
    answers: dict[str, list[str]] = {"en-es": [], "de-en": []}
    failures: list = []
    stop = threading.Event()

    def load() -> None:  # two models called throughout the reload
        while not stop.is_set():
            for model in answers:
                try:
                    text = svc.stub.Translate(pb.TranslateRequest(text=MARKER, model=model), timeout=WAIT).text
                    answers[model].append(text)
                except grpc.RpcError as e:
                    failures.append((model, e.code(), e.details()))

    caller = threading.Thread(target=load)
    try:
        fr_gate.close()
        held = svc.stub.Translate.future(pb.TranslateRequest(text="uno dos", model="en-fr"), timeout=WAIT)
        fr_gate.wait_held()
        caller.start()
        wait_for(lambda: len(answers["en-es"]) >= 3, what="the load to run")

        shutil.rmtree(repo / "en-fr")  # removed while it holds a call
        make_repository(tiny_bundle, repo, {"en-de": ("en", "de"), "zz-bad": ("zz", "en")})  # added
        break_bundle(repo / "zz-bad")
        new_version(repo / "en-es", "[en-es v2]")  # replaced
        reload = svc.submit(svc.service.registry.reload())

        # the new version takes the calls; the removed model takes none but finishes its own
        wait_for(lambda: answers["en-es"] and answers["en-es"][-1] == "[en-es v2]", what="en-es v2 to serve")
        wait_for(lambda: "en-fr" not in svc.service.registry.models, what="en-fr to stop taking calls")
        with pytest.raises(grpc.RpcError) as gone:
            svc.stub.Translate(pb.TranslateRequest(text=MARKER, model="en-fr"), timeout=WAIT)
        assert gone.value.code() == grpc.StatusCode.NOT_FOUND
        assert not reload.done()  # waiting for en-fr's call
        fr_gate.open()
        assert held.result().text  # the call en-fr held finished
        done = reload.result(WAIT)
        count = len(answers["de-en"])
        wait_for(lambda: len(answers["de-en"]) >= count + 3, what="the load to go on")
    finally:
        stop.set()
        fr_gate.open()
        if caller.is_alive():
            caller.join(WAIT)
        listed = svc.stub.ListModels(pb.ListModelsRequest(), timeout=WAIT)
        health = svc.health_status("traductor.v1.Translator/en-de")
        de = svc.stub.Translate(pb.TranslateRequest(text=MARKER, target_language="de"), timeout=WAIT).text
        svc.close()

    assert done == {"added": ["en-de"], "replaced": ["en-es"], "removed": ["en-fr"], "refused": ["zz-bad"]}
    assert failures == []
    es = answers["en-es"]
    assert es[0] == "[en-es]" and es[-1] == "[en-es v2]" and set(es) == {"[en-es]", "[en-es v2]"}
    assert es.index("[en-es v2]") > max(i for i, t in enumerate(es) if t == "[en-es]")  # never back
    assert set(answers["de-en"]) == {"[de-en]"}
    assert [m.name for m in listed.models] == ["de-en", "en-de", "en-es"]
    assert health == health_pb2.HealthCheckResponse.SERVING and de == "[en-de]"
