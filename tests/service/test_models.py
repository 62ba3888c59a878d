"""A model repository (service/registry.py): three models with different language pairs in one
server, routed by name and by pair over gRPC and HTTP; ListModels, NOT_FOUND, 400; the model
label; health per model; start-up errors.

The models are copies of the tiny bundle declaring other pairs, each answering MARKER with its
own name from its translation memory (server_harness.make_repository), so every reply says which
model made it."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2
from server_harness import MARKER, ServerThread, free_port, make_repository, make_settings

from traductor.errors import BundleError
from traductor.service.models import default_name, model_paths
from traductor_client.v1 import translator_pb2 as pb

sys.path.insert(0, str(Path(__file__).parents[1] / "http"))
from http_harness import call, multipart  # noqa: E402

PAIRS = {"de-en": ("de", "en"), "en-es": ("en", "es"), "en-fr": ("en", "fr")}


@pytest.fixture(scope="module")
def repository(tiny_bundle, tmp_path_factory) -> Path:
    return make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)


@pytest.fixture(scope="module")
def server(repository):
    settings = make_settings("", model_repository=str(repository), default_model="en-es", http_port=free_port())
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def translate(server, text=MARKER, **route) -> str:
    return server.stub.Translate(pb.TranslateRequest(text=text, **route), timeout=30).text


def not_found(fn) -> str:
    with pytest.raises(grpc.RpcError) as e:
        fn()
    assert e.value.code() == grpc.StatusCode.NOT_FOUND, e.value
    return e.value.details()


def test_list_models_names_every_model_its_languages_and_the_default(server):
    listed = server.stub.ListModels(pb.ListModelsRequest(), timeout=30)
    assert [m.name for m in listed.models] == ["de-en", "en-es", "en-fr"] and listed.default_model == "en-es"
    for m in listed.models:
        assert [(p.source, p.target) for p in m.languages] == [PAIRS[m.name]]
        assert (m.source_language, m.target_language) == PAIRS[m.name]
        assert m.is_default == (m.name == "en-es") and m.serving
    assert server.stub.GetModelInfo(pb.GetModelInfoRequest(), timeout=30).name == "en-es"
    assert server.stub.GetModelInfo(pb.GetModelInfoRequest(model="de-en"), timeout=30).source_language == "de"


@pytest.mark.parametrize(
    "route, model",
    [
        ({}, "en-es"),  # nothing named: the default model
        ({"model": "en-fr"}, "en-fr"),
        ({"model": "de-en", "source_language": "de"}, "de-en"),
        ({"target_language": "fr"}, "en-fr"),
        ({"source_language": "de"}, "de-en"),
        ({"source_language": "en"}, "en-es"),  # two candidates: the default among them
        ({"source_language": "en", "target_language": "es"}, "en-es"),
        ({"target_language": "en"}, "de-en"),
    ],
)
def test_calls_go_to_the_model_named_or_the_one_of_their_pair(server, route, model):
    assert translate(server, **route) == f"[{model}]"


def test_a_pair_several_models_serve_goes_to_the_default_among_them_else_the_first_by_name(tiny_bundle):
    from dataclasses import replace
    from types import SimpleNamespace

    from traductor.engine.bundle import read_config
    from traductor.engine.bundle_config import Languages
    from traductor.service.metrics import Metrics
    from traductor.service.models import Model
    from traductor.service.registry import Registry

    def model(name: str, source: str, target: str) -> Model:
        config = replace(read_config(tiny_bundle), languages=Languages(source, target))
        return Model(name, SimpleNamespace(config=config), engine=None, spec=None)

    models = [model("en-fr-b", "en", "fr"), model("en-fr-a", "en", "fr"), model("en-es", "en", "es")]
    registry = Registry(models, "en-fr-b", Metrics())
    assert [registry.route(**pair).name for pair in ({"target": "fr"}, {"source": "en"})] == ["en-fr-b", "en-fr-b"]
    registry = Registry(models, "en-es", Metrics())
    assert [registry.route(**pair).name for pair in ({"target": "fr"}, {"source": "en"})] == ["en-fr-a", "en-es"]


def test_batch_and_stream_are_routed_too(server):
    batch = server.stub.TranslateBatch(
        pb.TranslateBatchRequest(texts=[MARKER, MARKER], target_language="fr"), timeout=30
    )
    assert [r.text for r in batch.results] == ["[en-fr]", "[en-fr]"]
    stream = server.stub.TranslateStream(pb.TranslateRequest(text=MARKER, model="de-en"), timeout=30)
    assert "".join(m.text_delta for m in stream) == "[de-en]"


def test_an_unknown_model_or_pair_is_not_found_naming_what_is_served(server):
    served = "de-en (de->en), en-es (en->es), en-fr (en->fr)"
    assert served in not_found(lambda: translate(server, model="xx-yy"))
    assert "no model translates en->de" in not_found(
        lambda: translate(server, source_language="en", target_language="de")
    )
    assert "does not translate any->fr" in not_found(lambda: translate(server, model="en-es", target_language="fr"))
    batch = pb.TranslateBatchRequest(texts=["uno"], model="nope")
    assert served in not_found(lambda: server.stub.TranslateBatch(batch, timeout=30))
    assert served in not_found(lambda: server.stub.GetModelInfo(pb.GetModelInfoRequest(model="nope"), timeout=30))
    # an error's status reaches the caller just before the interceptor counts it: wait (bounded) for the count
    not_found_calls = {"rpc": "Translate", "code": "NOT_FOUND", "model": ""}
    assert server.wait_for(lambda: server.metric("traductor_requests_total", not_found_calls) >= 3)


def test_each_model_has_its_own_metric_series(server):
    before = {name: server.metric("traductor_input_tokens_total", {"model": name}) for name in PAIRS}
    assert translate(server, "uno dos tres", model="de-en")
    server.wait_idle()
    after = {name: server.metric("traductor_input_tokens_total", {"model": name}) for name in PAIRS}
    assert after["de-en"] > before["de-en"] and after["en-es"] == before["en-es"] and after["en-fr"] == before["en-fr"]
    assert server.metric("traductor_requests_total", {"rpc": "Translate", "code": "OK", "model": "de-en"}) >= 1
    assert server.gauge("traductor_model_serving", {"model": "en-fr"}) == 1


def test_health_of_each_model_and_of_the_whole(server):
    for name in ("", "traductor.v1.Translator", *(f"traductor.v1.Translator/{m}" for m in PAIRS)):
        assert server.health_status(name) == health_pb2.HealthCheckResponse.SERVING, name
    with pytest.raises(grpc.RpcError) as e:
        server.health_status("traductor.v1.Translator/xx-yy")
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


# ---- HTTP: LibreTranslate's view of the same models ---------------------------------------------


def test_http_languages_lists_every_source_with_all_its_targets(server):
    answer = call(server.url + "languages")
    assert answer.status == 200
    assert answer.json() == [
        {"code": "de", "name": "German", "targets": ["en", "es", "fr"], "aliases": []},  # es, fr through English
        {"code": "en", "name": "English", "targets": ["es", "fr"], "aliases": []},
        {"code": "es", "name": "Spanish", "targets": [], "aliases": []},
        {"code": "fr", "name": "French", "targets": [], "aliases": []},
    ]
    settings = call(server.url + "frontend/settings").json()
    language = settings["language"]
    assert (language["source"]["code"], language["target"]["code"]) == ("en", "es")  # the default model's
    assert settings["model"] == "en-es"
    assert settings["models"] == [
        {
            "name": name,
            "languages": [{"source": s, "target": t}],
            "default": name == "en-es",
            "serving": True,
            "formality": False,
            "registers": [],
        }
        for name, (s, t) in PAIRS.items()
    ]


def test_http_detect_answers_among_the_served_source_languages(server):
    english = call(server.url + "detect", "POST", form={"q": "the file is not in the directory"})
    assert english.json() == [{"confidence": 100.0, "language": "en"}, {"confidence": 0.0, "language": "de"}]
    cyrillic = call(server.url + "detect", "POST", form={"q": "Файл не найден"})
    assert cyrillic.json() == [{"confidence": 0.0, "language": "de"}, {"confidence": 0.0, "language": "en"}]


def test_http_auto_source_is_detected_among_the_sources_translated_into_the_target(server):
    """source=auto: the language detected among those some model translates into `target` (German
    is the only source translated into English here, whatever the text looks like)."""
    body = {"q": MARKER, "source": "auto", "target": "en"}
    answer = call(server.url + "translate", "POST", json_body=body).json()
    assert answer["translatedText"] == "[de-en]" and answer["detectedLanguage"]["language"] == "de"


@pytest.mark.parametrize("text, detected", [("the file is not in the directory", "en"), ("Die Datei fehlt", "de")])
def test_http_auto_source_counts_the_sources_translated_through_english(server, text, detected):
    """Into French: English directly (en-fr), German through English (de-en, then en-fr)."""
    answer = call(server.url + "translate", "POST", json_body={"q": text, "source": "auto", "target": "fr"}).json()
    direct = call(server.url + "translate", "POST", json_body={"q": text, "source": detected, "target": "fr"}).json()
    assert answer["detectedLanguage"]["language"] == detected
    assert answer["translatedText"] == direct["translatedText"]


def test_files_go_to_the_model_of_their_pair_over_http_and_the_client(server, tmp_path, capsys):
    from traductor_client.cli import main

    body, headers = multipart({"source": "en", "target": "fr"}, {"file": ("a.txt", f"{MARKER}\n".encode())})
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers)
    assert answer.status == 200, answer.body
    assert call(answer.json()["translatedFileUrl"]).body.decode() == "[en-fr]\n"
    source = tmp_path / "b.txt"
    source.write_text(f"{MARKER}\n", encoding="utf-8")
    assert main(["--target", server.target, "translate-file", str(source), "--to", "fr"]) == 0
    capsys.readouterr()
    assert (tmp_path / "b.fr.txt").read_text(encoding="utf-8") == "[en-fr]\n"


def test_sentences_are_split_by_the_rules_of_the_models_source_language(server):
    """sentencex's German rules know "Abb." (Abbildung); its English ones cut after it."""
    from traductor.options import DecodingOptions
    from traductor.service.pipeline import prepare

    text = "Siehe Abb. 3 unten. Gut."

    def sentences(model: str) -> list[str]:
        engine = server.service.registry.get(model).engine
        return [s.text for s in prepare(engine, text, DecodingOptions()).plan.segments]

    assert server.service.registry.get("de-en").engine.language == "de"
    assert sentences("de-en") == ["Siehe Abb. 3 unten.", "Gut."]
    assert sentences("en-es") == ["Siehe Abb.", "3 unten.", "Gut."]


@pytest.mark.parametrize("source, target, model", [("en", "fr", "en-fr"), ("de", "en", "de-en"), ("en", "es", "en-es")])
def test_http_translate_routes_by_source_and_target(server, source, target, model):
    answer = call(server.url + "translate", "POST", json_body={"q": MARKER, "source": source, "target": target})
    assert answer.status == 200 and answer.json()["translatedText"] == f"[{model}]"
    labels = {"protocol": "http", "rpc": "/translate", "code": "OK", "model": model}
    assert server.wait_for(lambda: server.metric("traductor_requests_total", labels) >= 1)


@pytest.mark.parametrize(
    "source, target, error",
    [
        ("en", "de", "German (de) is not available as a target language from English (en)"),
        ("fr", "en", "French (fr) is not available as a source language (sources: de, en)"),
        ("xx", "es", "xx is not supported (supported: de, en, es, fr)"),
        ("en", "yy", "yy is not supported (supported: de, en, es, fr)"),
    ],
)
def test_http_unsupported_pair_is_400_as_libretranslate_says(server, source, target, error):
    answer = call(server.url + "translate", "POST", json_body={"q": "uno", "source": source, "target": target})
    assert (answer.status, answer.json()) == (400, {"error": error})


# ---- start-up --------------------------------------------------------------------------------------


def test_the_default_model_is_chosen_or_start_up_names_the_choices(repository, tmp_path):
    settings = make_settings("", model_repository=str(repository))
    names = list(model_paths(settings))
    assert names == ["de-en", "en-es", "en-fr"]
    with pytest.raises(BundleError, match="3 models and no --default-model: choose one of de-en, en-es, en-fr"):
        default_name(settings, names)
    with pytest.raises(BundleError, match="--default-model xx: not served; the models are de-en, en-es, en-fr"):
        default_name(make_settings("", model_repository=str(repository), default_model="xx"), names)
    assert default_name(make_settings("", model_repository=str(repository), default_model="en-fr"), names) == "en-fr"
    assert default_name(make_settings("", model_repository=str(repository)), ["de-en"]) == "de-en"
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleError, match="holds no model"):
        model_paths(make_settings("", model_repository=str(tmp_path / "empty")))


# ---- the client library and CLIs -------------------------------------------------------------------


def test_client_library_and_cli_pick_the_model(server, capsys):
    from traductor_client import TranslatorClient
    from traductor_client.cli import main

    with TranslatorClient(server.target) as client:
        models = client.list_models()
        assert [(m.name, m.languages, m.is_default) for m in models] == [
            ("de-en", (("de", "en"),), False),
            ("en-es", (("en", "es"),), True),
            ("en-fr", (("en", "fr"),), False),
        ]
        assert client.translate(MARKER, target_language="fr").text == "[en-fr]"
        assert [t.text for t in client.translate_batch([MARKER], model="de-en")] == ["[de-en]"]
        assert "".join(client.stream(MARKER, source_language="de")) == "[de-en]"
        assert client.model_info("en-fr").target_language == "fr"
    assert main(["--target", server.target, "translate", "--to", "fr", MARKER]) == 0
    assert main(["--target", server.target, "translate", "--model", "de-en", MARKER]) == 0
    assert capsys.readouterr().out.splitlines() == ["[en-fr]", "[de-en]"]
    assert main(["--target", server.target, "models"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["model", "languages", "default", "serving"]
    assert table[2].split() == ["en-es", "en->es", "yes", "yes"] and table[3].split() == ["en-fr", "en->fr", "yes"]
    assert main(["--target", server.target, "translate", "--to", "de", "uno"]) == 1
    assert "NOT_FOUND: no model translates any->de" in capsys.readouterr().err


def test_loadtest_model_sends_its_calls_to_that_model(server, tmp_path, capsys):
    from traductor_client.cli import main

    source = tmp_path / "input.txt"
    source.write_text(f"{MARKER}\n", encoding="utf-8")
    labels = {"protocol": "grpc", "code": "OK"}
    before = {m: server.metric("traductor_requests_total", {**labels, "model": m}) for m in PAIRS}
    command = ["--target", server.target, "loadtest", "--model", "en-fr", "--input", str(source)]
    assert main([*command, "--requests", "6", "--concurrency", "2", "--warmup", "0", "--stream-fraction", "0"]) == 0
    capsys.readouterr()
    after = {m: server.metric("traductor_requests_total", {**labels, "model": m}) for m in PAIRS}
    assert {m: after[m] - before[m] for m in PAIRS} == {"de-en": 0, "en-es": 0, "en-fr": 6}
