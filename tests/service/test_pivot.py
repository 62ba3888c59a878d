"""Pairs through English (service/pivot.py, routing.py): es -> fr where one model translates es-en
and another en-fr. A pivoted text equals the two direct calls one after the other, its
placeholders survive both hops, its stream joins to its unary text, its translation does not
depend on the batch, its confidence is the product of the hops', and every interface lists and
serves the pair; a pair with no route is NOT_FOUND saying so.

The models are copies of the tiny bundle declaring other pairs (server_harness.make_repository):
the second hop reads letters it was never trained on, so its outputs are odd but deterministic,
which is all these tests need."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest
from server_harness import ServerThread, free_port, make_repository, make_settings

from traductor_client.v1 import translator_pb2 as pb

sys.path.insert(0, str(Path(__file__).parents[1] / "http"))
from http_harness import call  # noqa: E402

PAIRS = {"es-en": ("es", "en"), "en-fr": ("en", "fr"), "en-de": ("en", "de")}
TEXTS = ["uno dos %s", "tres cuatro cinco", "seis %d siete", "ocho"]


@pytest.fixture(scope="module")
def server(tiny_bundle, tmp_path_factory):
    repository = make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)
    settings = make_settings("", model_repository=str(repository), default_model="en-fr", http_port=free_port())
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def translate(server, text: str, source: str, target: str) -> pb.TranslateResponse:
    request = pb.TranslateRequest(text=text, source_language=source, target_language=target)
    return server.stub.Translate(request, timeout=30)


@pytest.mark.parametrize("text", TEXTS)
def test_a_pivoted_text_is_the_two_direct_calls_one_after_the_other(server, text):
    middle = translate(server, text, "es", "en")
    direct = translate(server, middle.text, "en", "fr")
    pivoted = translate(server, text, "es", "fr")
    assert pivoted.text == direct.text
    assert pivoted.confidence == pytest.approx(middle.confidence * direct.confidence, rel=1e-5)
    for placeholder in ("%s", "%d"):  # what must be copied comes back, once
        assert pivoted.text.count(placeholder) == text.count(placeholder)


def test_a_pivoted_text_does_not_depend_on_the_batch(server):
    alone = [translate(server, t, "es", "de").text for t in TEXTS]
    request = pb.TranslateBatchRequest(texts=TEXTS, source_language="es", target_language="de")
    batch = server.stub.TranslateBatch(request, timeout=30)
    assert [r.text for r in batch.results] == alone


def test_a_pivoted_stream_joins_to_the_unary_text(server):
    text = "uno dos tres %s. cuatro cinco."
    unary = translate(server, text, "es", "fr").text
    request = pb.TranslateRequest(text=text, source_language="es", target_language="fr")
    messages = list(server.stub.TranslateStream(request, timeout=30))
    assert "".join(m.text_delta for m in messages) == unary
    final = messages[-1]
    assert final.token_id == -1 and final.index == len(messages) - 1  # one message a token, then the final one
    assert final.confidence == pytest.approx(translate(server, text, "es", "fr").confidence)


def test_languages_list_the_pairs_through_english_and_models_only_the_models(server):
    listed = server.stub.ListModels(pb.ListModelsRequest(), timeout=30)
    assert sorted(m.name for m in listed.models) == sorted(PAIRS)
    answer = call(server.url + "languages")
    assert answer.status == 200
    targets = {entry["code"]: set(entry["targets"]) for entry in answer.json()}
    assert targets["es"] == {"en", "fr", "de"}
    assert targets["en"] == {"fr", "de"}
    assert not targets.get("fr") and not targets.get("de")  # nothing translates them into English


def test_a_pair_with_no_route_is_not_found_saying_so(server):
    with pytest.raises(grpc.RpcError) as e:
        translate(server, "uno", "fr", "de")
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no model translates fr->de, directly or through English" in e.value.details()


def test_both_http_apis_serve_a_pivoted_pair(server):
    expected = translate(server, "uno dos %s", "es", "de").text
    libre = call(server.url + "translate", "POST", json_body={"q": "uno dos %s", "source": "es", "target": "de"})
    assert libre.status == 200 and libre.json()["translatedText"] == expected
    deepl = {"text": ["uno dos %s"], "source_lang": "ES", "target_lang": "DE"}
    answer = call(server.url + "v2/translate", "POST", json_body=deepl)
    assert answer.status == 200 and answer.json()["translations"][0]["text"] == expected


def test_each_hop_is_counted_in_its_own_models_metrics(server):
    before = {name: server.metric("traductor_output_tokens_total", {"model": name}) for name in ("es-en", "en-de")}
    translate(server, "cinco seis siete ocho", "es", "de")
    after = {name: server.metric("traductor_output_tokens_total", {"model": name}) for name in ("es-en", "en-de")}
    assert all(after[name] > before[name] for name in after)


def test_a_glossary_of_the_pivoted_pair_reaches_the_output(server):
    request = pb.TranslateRequest(text="uno dos tres", source_language="es", target_language="fr")
    request.glossary.add(source="dos", target="deux")
    # (case-insensitive: the term's case follows the tiny model's output around it, which is
    # written in capitals and differs between CPUs: "DEUX B" on an AMD EPYC)
    assert "deux" in server.stub.Translate(request, timeout=30).text.lower()


def test_deepl_makes_and_uses_a_glossary_between_two_languages_no_model_joins(server):
    entries = "dos\tdeux\n"
    body = {"name": "es-fr", "source_lang": "es", "target_lang": "fr", "entries": entries, "entries_format": "tsv"}
    made = call(server.url + "v2/glossaries", "POST", json_body=body)
    assert made.status == 201, made.body
    pairs = call(server.url + "v2/glossary-language-pairs").json()["supported_languages"]
    assert {"source_lang": "es", "target_lang": "fr"} in pairs
    glossary_id = made.json()["glossary_id"]
    use = {"text": ["uno dos tres"], "source_lang": "ES", "target_lang": "FR", "glossary_id": glossary_id}
    answer = call(server.url + "v2/translate", "POST", json_body=use)
    assert answer.status == 200 and "deux" in answer.json()["translations"][0]["text"].lower()  # (case: above)
