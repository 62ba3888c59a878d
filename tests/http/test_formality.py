"""Formality on every interface (issue 44): a model trained with register tags (model/controls.py)
gets `<formal>`/`<informal>` before each segment when a call asks (gRPC `formality`, DeepL's and
LibreTranslate's `formality`, `traductor translate --formality`), and says so (ModelInfo.formality,
DeepL's supports_formality); a model without them refuses `more`/`less` with a status the caller
can act on and translates `prefer_*` as usual. A model whose config.json says it delivers one register
only (the Italian one: `"registers": ["informal"]`) takes that one and refuses the other the same way
(ModelInfo.registers, the page's selector). A model that delivers a register by rewriting its output
in the other (`"register_rewrites": {"formal": "informal"}`, the Brazilian one) lists both and is
decoded with the other's tag (the rewrite itself: tests/service/test_register_rewrite.py)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import grpc
import pytest
from cli_harness import run_error
from http_harness import call
from server_harness import WAIT, ServerThread, free_port, make_settings, translate_request

from traductor.cli import main
from traductor.model import controls
from traductor.model.tokenizer import Tokenizer
from traductor.options import register_of
from traductor.training.train import TrainConfig, train
from traductor_client.v1 import translator_pb2 as pb

BOTH = tuple(controls.REGISTERS)
BOTH_LIST = list(BOTH)


@pytest.fixture(scope="module")
def controls_checkpoint(tiny_checkpoint, tmp_path_factory):
    """The tiny model warm-started for one update with register tags on: its tokenizer gains the
    control tokens (vocabulary + 5)."""
    from tiny_task import write_corpus

    root = tmp_path_factory.mktemp("controls")
    corpus = write_corpus(root / "corpus", n_train=100)
    cfg = TrainConfig.from_flat(
        dict(max_steps=1, eval_every=1, max_minutes=5, batch_tokens=400, precision="fp32", threads=1, warmup=10)
    )
    cfg = replace(cfg, init_from=str(tiny_checkpoint), register_tags=1.0, term_annotations=0.5)
    train(corpus, root / "model", cfg, quiet=True)
    return root / "model"


@pytest.fixture(scope="module")
def controls_bundle(controls_checkpoint, tmp_path_factory):
    """controls_checkpoint exported like any checkpoint."""
    from traductor_export.convert import export

    bundle = tmp_path_factory.mktemp("controls-bundle") / "bundle"
    export(controls_checkpoint, bundle, progress=lambda *_: None)
    return bundle


@pytest.fixture(scope="module")
def server(tiny_bundle, controls_bundle, tmp_path_factory):
    """Four models: en-de trained with the tags, en-it with them but said to deliver the informal
    register only, en-pt-BR the formal one by a rewrite too, en-es (the plain tiny model) without."""
    repository = tmp_path_factory.mktemp("repo")
    for name, bundle, target in (
        ("en-de", controls_bundle, "de"),
        ("en-it", controls_bundle, "it"),
        ("en-pt-BR", controls_bundle, "pt-BR"),
        ("en-es", tiny_bundle, "es"),
    ):
        shutil.copytree(bundle, repository / name)
        config = json.loads((repository / name / "config.json").read_text())
        config["languages"] = {"source": "en", "target": target}
        if target in ("it", "pt-BR"):
            config["registers"] = ["informal"]
        if target == "pt-BR":
            config["register_rewrites"] = {"formal": "informal"}
        (repository / name / "config.json").write_text(json.dumps(config))
    settings = make_settings("", model_repository=str(repository), default_model="en-es", http_port=free_port())
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def test_the_tags_are_the_first_tokens_of_a_segment(controls_bundle):
    tokenizer = Tokenizer(controls_bundle / "tokenizer.model")
    plain = tokenizer.encode("one two")[0]
    formal = tokenizer.encode("one two", register="formal")[0]
    assert formal[-len(plain) :] == plain and tokenizer.sp.piece_to_id(controls.FORMAL) in formal[: -len(plain)]
    assert tokenizer.sp.piece_to_id(controls.INFORMAL) in tokenizer.encode("one two", register="informal")[0]


@pytest.mark.parametrize(
    "formality, registers, register",
    [
        ("", BOTH, ""),
        ("default", BOTH, ""),
        ("more", BOTH, "formal"),
        ("less", BOTH, "informal"),
        ("prefer_more", BOTH, "formal"),
        ("prefer_less", (), ""),
        ("default", (), ""),
        ("less", ("informal",), "informal"),
        ("prefer_less", ("informal",), "informal"),
        ("prefer_more", ("informal",), ""),
    ],
)
def test_deepl_values_map_to_registers(formality, registers, register):
    assert register_of(formality, registers) == register


@pytest.mark.parametrize("formality", ["more", "less", "formal", "MORE"])
def test_a_model_without_formality_refuses_more_and_less_and_unknown_values(formality):
    with pytest.raises(ValueError, match="formality"):
        register_of(formality, ())


def test_a_model_with_one_register_refuses_the_other_and_says_which_it_has():
    with pytest.raises(ValueError, match="delivers only the informal register"):
        register_of("more", ("informal",))


def _grpc(server, target: str, formality: str = ""):
    request = translate_request("one two three", return_scores=True)
    request.target_language, request.formality = target, formality
    return server.stub.Translate(request, timeout=WAIT)


def test_grpc_formality_reaches_the_model_that_has_it(server):
    plain, formal = _grpc(server, "de"), _grpc(server, "de", "more")
    assert formal.usage.input_tokens == plain.usage.input_tokens + 2  # "▁" and <formal> before the text
    assert _grpc(server, "de", "prefer_less").usage.input_tokens == plain.usage.input_tokens + 2
    models = server.stub.ListModels(pb.ListModelsRequest(), timeout=WAIT).models
    assert {m.name: m.formality for m in models} == {"en-de": True, "en-it": False, "en-pt-BR": True, "en-es": False}
    assert {m.name: list(m.registers) for m in models} == {
        "en-de": BOTH_LIST,
        "en-it": ["informal"],
        "en-pt-BR": BOTH_LIST,
        "en-es": [],
    }


def test_grpc_a_register_by_rewrite_is_decoded_with_the_other_tag(server):
    plain, informal, formal = _grpc(server, "pt-BR"), _grpc(server, "pt-BR", "less"), _grpc(server, "pt-BR", "more")
    assert formal.usage.input_tokens == informal.usage.input_tokens == plain.usage.input_tokens + 2
    assert list(formal.token_ids) == list(informal.token_ids)  # the same decode: <informal> went in


def test_grpc_one_register_model_takes_it_and_refuses_the_other(server):
    plain, informal = _grpc(server, "it"), _grpc(server, "it", "less")
    assert informal.usage.input_tokens == plain.usage.input_tokens + 2
    with pytest.raises(grpc.RpcError) as error:
        _grpc(server, "it", "more")
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "delivers only the informal register" in error.value.details()
    fallback = _grpc(server, "it", "prefer_more")
    assert fallback.usage.input_tokens == plain.usage.input_tokens and fallback.text == plain.text


def test_grpc_more_on_a_model_without_formality_is_invalid_argument(server):
    with pytest.raises(grpc.RpcError) as error:
        _grpc(server, "es", "more")
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "formality" in error.value.details()
    assert _grpc(server, "es", "prefer_more").text == _grpc(server, "es").text
    with pytest.raises(grpc.RpcError) as error:
        _grpc(server, "de", "very")
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_deepl_lists_and_honours_formality(server):
    languages = call(server.url + "v2/languages", query={"type": "target"}).json()
    assert {x["language"]: x["supports_formality"] for x in languages} == {
        "DE": True,
        "ES": False,
        "IT": False,
        "PT-BR": True,
    }
    for formality in ("less", "more", "prefer_less", "default"):
        answer = call(
            server.url + "v2/translate", "POST", form={"text": "one two", "target_lang": "DE", "formality": formality}
        )
        assert answer.status == 200, answer.text
    refused = call(
        server.url + "v2/translate", "POST", form={"text": "one two", "target_lang": "ES", "formality": "less"}
    )
    assert refused.status == 400 and refused.json() == {
        "message": "'formality' is not supported for given 'target_lang'."
    }
    fallback = call(
        server.url + "v2/translate", "POST", form={"text": "one two", "target_lang": "ES", "formality": "prefer_less"}
    )
    default = call(server.url + "v2/translate", "POST", form={"text": "one two", "target_lang": "ES"})
    assert (
        fallback.status == 200
        and fallback.json()["translations"][0]["text"] == default.json()["translations"][0]["text"]
    )


def test_libretranslate_takes_formality_too(server):
    ok = call(
        server.url + "translate",
        "POST",
        json_body={"q": "one two", "source": "en", "target": "de", "formality": "less"},
    )
    assert ok.status == 200 and isinstance(ok.json()["translatedText"], str)
    refused = call(
        server.url + "translate",
        "POST",
        json_body={"q": "one two", "source": "en", "target": "es", "formality": "more"},
    )
    assert refused.status == 400 and "formality" in refused.json()["error"]
    wrong = call(
        server.url + "translate",
        "POST",
        json_body={"q": "one two", "source": "en", "target": "de", "formality": ["more"]},
    )
    assert wrong.status == 400


def test_cli_formality(controls_bundle, tiny_bundle, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("one two\n"))
    assert main(["translate", "--model", str(controls_bundle), "--formality", "informal"]) in (None, 0)
    assert capsys.readouterr().out.strip()
    monkeypatch.setattr("sys.stdin", io.StringIO("one two\n"))
    run_error(["translate", "--model", str(tiny_bundle), "--formality", "formal"], capsys, "this model has none")


def test_grpc_batch_takes_formality_too(server):
    request = pb.TranslateBatchRequest(texts=["one two", "three"], target_language="de", formality="more")
    plain = pb.TranslateBatchRequest(texts=["one two", "three"], target_language="de")
    asked, default = server.stub.TranslateBatch(request, timeout=WAIT), server.stub.TranslateBatch(plain, timeout=WAIT)
    assert [r.usage.input_tokens for r in asked.results] == [r.usage.input_tokens + 2 for r in default.results]
    request.target_language = "es"
    with pytest.raises(grpc.RpcError) as error:
        server.stub.TranslateBatch(request, timeout=WAIT)
    assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_deepl_and_libretranslate_on_a_one_register_model(server):
    def deepl(formality):
        form = {"text": "one two", "target_lang": "IT", "formality": formality}
        return call(server.url + "v2/translate", "POST", form=form)

    assert deepl("less").status == 200 and deepl("prefer_more").status == 200
    refused = deepl("more")
    assert refused.status == 400 and refused.json() == {
        "message": "'formality' is not supported for given 'target_lang'."
    }
    libre = call(
        server.url + "translate",
        "POST",
        json_body={"q": "one two", "source": "en", "target": "it", "formality": "more"},
    )
    assert libre.status == 400 and "delivers only the informal register" in libre.json()["error"]
    settings = call(server.url + "frontend/settings").json()
    assert {m["name"]: m["registers"] for m in settings["models"]} == {
        "en-de": BOTH_LIST,
        "en-it": ["informal"],
        "en-pt-BR": BOTH_LIST,
        "en-es": [],
    }


def test_the_registers_field_travels_from_checkpoint_to_bundle_and_is_checked(controls_checkpoint, tmp_path):
    """A checkpoint's config.json "registers" goes into the bundle `traductor export` writes; both
    the bundle and the checkpoint refuse a register the model does not deliver, and a wrong field."""
    from traductor.engine.bundle import load_bundle
    from traductor.errors import BundleError, ModelDirError
    from traductor.model import checkpoint
    from traductor_export.convert import export

    model = tmp_path / "model"
    shutil.copytree(controls_checkpoint, model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "registers": ["informal"]}))
    export(model, tmp_path / "bundle", progress=lambda *_: None)
    assert json.loads((tmp_path / "bundle" / "config.json").read_text())["registers"] == ["informal"]
    for tokenizer in (load_bundle(tmp_path / "bundle").tokenizer(), checkpoint.load(model)[1]):
        assert tokenizer.registers == ("informal",)
        informal = tokenizer.encode("one", register="informal")[0]
        assert tokenizer.sp.piece_to_id(controls.INFORMAL) in informal[:2]
        with pytest.raises(ValueError, match="does not deliver it"):
            tokenizer.encode("one", register="formal")
    (model / "config.json").write_text(json.dumps({**config, "registers": ["polite"]}))
    with pytest.raises(ModelDirError, match="registers"):
        checkpoint.load(model)
    bundle_config = json.loads((tmp_path / "bundle" / "config.json").read_text())
    (tmp_path / "bundle" / "config.json").write_text(json.dumps({**bundle_config, "registers": "informal"}))
    with pytest.raises(BundleError, match="registers"):
        load_bundle(tmp_path / "bundle")


def test_a_default_register_tags_a_call_that_asks_none_and_travels_into_the_bundle(controls_checkpoint, tmp_path):
    """A checkpoint's config.json "default_register" goes into the bundle; both tokenizers then put
    that tag before a source that says "you" whose call asks no register (the Russian model's case:
    its untagged output mixes ты and вы), a source without "you" goes in untagged (a button's
    infinitive stays one), the other register is still taken when asked, and a default the model
    does not deliver is refused by both loaders, naming the field."""
    from traductor.engine.bundle import load_bundle
    from traductor.errors import BundleError, ModelDirError
    from traductor.model import checkpoint
    from traductor_export.convert import export

    model = tmp_path / "model"
    shutil.copytree(controls_checkpoint, model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "registers": BOTH_LIST, "default_register": "formal"}))
    export(model, tmp_path / "bundle", progress=lambda *_: None)
    written = json.loads((tmp_path / "bundle" / "config.json").read_text())
    assert written["default_register"] == "formal"
    plain = Tokenizer(model / "tokenizer.model")  # no config: no default
    formal_id = plain.sp.piece_to_id(controls.FORMAL)
    for tokenizer in (load_bundle(tmp_path / "bundle").tokenizer(), checkpoint.load(model)[1]):
        for text in ("Do you want two?", "Check YOUR disk", "one yourself"):
            assert tokenizer.encode(text)[0] == plain.encode(text, register="formal")[0], text
            assert formal_id in tokenizer.encode(text)[0][:2]
            assert tokenizer.encode(text, register="informal")[0] == plain.encode(text, register="informal")[0]
        for text in ("one two", "Disable these plugins", "youth"):  # no "you" word
            assert tokenizer.encode(text)[0] == plain.encode(text)[0], text
        assert tokenizer.encode_input("<ph0> you") == plain.encode_input("<ph0> you", "formal")
    assert formal_id not in plain.encode("Do you want two?")[0]
    (model / "config.json").write_text(json.dumps({**config, "registers": ["informal"], "default_register": "formal"}))
    with pytest.raises(ModelDirError, match="default_register"):
        checkpoint.load(model)
    (tmp_path / "bundle" / "config.json").write_text(json.dumps({**written, "registers": ["informal"]}))
    with pytest.raises(BundleError, match="default_register"):
        load_bundle(tmp_path / "bundle")


def test_the_glossary_second_pass_keeps_the_register_asked(controls_bundle):
    """A glossary segment's fallback input (its terms behind placeholder tokens, decoded when the
    first pass misses a term) carries the call's register tag as the first pass does; before, the
    fallback went in untagged and could answer a `more` call in the other register."""
    from traductor.engine.bundle import load_bundle
    from traductor.glossary import Glossary, masking
    from traductor.model import placeholders
    from traductor.options import DecodingOptions, Limits
    from traductor.service.pipeline.protect import segment_terms

    class Engine:  # what segment_terms reads of an engine
        tokenizer = load_bundle(controls_bundle).tokenizer()
        limits = Limits()

    text = "one two three"
    glossary = Glossary.from_pairs("en", "de", [("two", "ZWEI")])
    held = masking.protect(glossary, text, list(placeholders.finditer(text)), True, True)
    tags = {Engine.tokenizer.sp.piece_to_id(t): r for r, t in controls.REGISTERS.items()}
    for register in ("formal", "informal"):
        options = DecodingOptions(register=register)
        ids = segment_terms(Engine, held, options, "de", text).fallback[0]
        assert [tags[i] for i in ids if i in tags] == [register], ids
    untagged = segment_terms(Engine, held, DecodingOptions(), "de", text).fallback[0]
    assert not set(untagged) & set(tags)


def test_a_register_by_rewrite_travels_into_the_bundle_and_is_checked(
    controls_checkpoint, tmp_path, capsys, monkeypatch
):
    """A checkpoint's "register_rewrites" goes into the bundle; both tokenizers list the rewritten
    register and put the other's tag in for it; a rewrite from a register the model does not
    deliver, or into one it delivers by its tag, is refused naming the field; a target whose
    language has no rules for the rewrite is refused when the model is opened."""
    from traductor.engine.bundle import load_bundle
    from traductor.errors import BundleError, ModelDirError
    from traductor.model import checkpoint
    from traductor_export.convert import export

    model = tmp_path / "model"
    shutil.copytree(controls_checkpoint, model)
    config = json.loads((model / "config.json").read_text())
    rewrites = {"registers": ["informal"], "register_rewrites": {"formal": "informal"}}
    (model / "config.json").write_text(
        json.dumps({**config, **rewrites, "languages": {"source": "en", "target": "it"}})
    )
    export(model, tmp_path / "bundle", progress=lambda *_: None)
    written = json.loads((tmp_path / "bundle" / "config.json").read_text())
    assert written["register_rewrites"] == {"formal": "informal"} and written["registers"] == ["informal"]
    for tokenizer in (load_bundle(tmp_path / "bundle").tokenizer(), checkpoint.load(model)[1]):
        assert tokenizer.registers == BOTH and tokenizer.rewrites == {"formal": "informal"}
        assert tokenizer.encode("one", register="formal") == tokenizer.encode("one", register="informal")
        assert tokenizer.sp.piece_to_id(controls.INFORMAL) in tokenizer.encode("one", register="formal")[0][:2]
    for wrong in ({"informal": "formal"}, {"informal": "informal"}, ["formal"]):
        (model / "config.json").write_text(json.dumps({**config, **rewrites, "register_rewrites": wrong}))
        with pytest.raises(ModelDirError, match="register_rewrites"):
            checkpoint.load(model)
        (tmp_path / "bundle" / "config.json").write_text(json.dumps({**written, "register_rewrites": wrong}))
        with pytest.raises(BundleError, match="register_rewrites"):
            load_bundle(tmp_path / "bundle")
    (tmp_path / "bundle" / "config.json").write_text(
        json.dumps({**written, "languages": {"source": "en", "target": "de"}})
    )
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("one two\n"))
    run_error(["translate", "--model", str(tmp_path / "bundle")], capsys, "register_rewrites: no rules rewrite 'de'")
