"""What /v2/translate does with each parameter DeepL documents (issue 57 item 6), against a live
traductor on the tiny en->es model, through the official `deepl` client and raw requests:
`model_type` answered by `model_type_used`, every documented option the client sends accepted,
`custom_instructions`, style rules, translation memories and parameters DeepL does not document
refused naming them, `glossary_ids` of one glossary honoured, and a document format traductor does
not fill refused in the words the client's own tests look for."""

from __future__ import annotations

import pytest
from http_harness import call

deepl = pytest.importorskip("deepl")

KEY = {"Authorization": "DeepL-Auth-Key any"}
EN_ES = {"source_lang": "EN", "target_lang": "ES"}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    return {"glossary_dir": str(tmp_path_factory.mktemp("glossaries"))}


@pytest.fixture(scope="module")
def client(server):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deepl.http_client, "max_network_retries", 0)
        made = deepl.DeepLClient("any-key", server_url=server.url.rstrip("/"))
        made._client._session.trust_env = False  # 127.0.0.1 only, never a proxy
        yield made
        made.close()


def translate(server, **body):
    return call(server.url + "v2/translate", "POST", headers=KEY, json_body={"text": ["uno dos"], **EN_ES, **body})


@pytest.mark.parametrize("asked", ["quality_optimized", "prefer_quality_optimized", "latency_optimized"])
def test_model_type_is_answered_with_the_model_type_used(client, asked):
    result = client.translate_text("uno dos", **EN_ES, model_type=asked)
    assert result.model_type_used == "latency_optimized"  # one model per pair: docs/deepl-api.md
    assert result.text == client.translate_text("uno dos", **EN_ES).text
    assert client.translate_text("uno dos", **EN_ES).model_type_used is None  # not asked: not said, as DeepL


def test_an_unknown_model_type_is_400(server):
    answer = translate(server, model_type="fastest")
    assert answer.status == 400 and answer.json() == {
        "message": "Value for 'model_type' not supported "
        "(supported: quality_optimized, prefer_quality_optimized, latency_optimized)."
    }


def test_every_documented_option_the_client_sends_is_accepted(client):
    plain = client.translate_text("uno <b>dos</b>", **EN_ES, tag_handling="html").text
    result = client.translate_text(
        "uno <b>dos</b>",
        **EN_ES,
        context="a settings dialog",
        split_sentences="nonewlines",
        preserve_formatting=True,
        formality="prefer_less",
        tag_handling="html",
        tag_handling_version="v2",
        outline_detection=False,
        non_splitting_tags=["b"],
        splitting_tags="p,div",
        ignore_tags=["code"],
        model_type="latency_optimized",
        custom_instructions=[],  # none asked: nothing to refuse
    )
    assert (result.text, result.billed_characters, result.model_type_used) == (plain, 14, "latency_optimized")


@pytest.mark.parametrize(
    "option, named",
    [
        ({"custom_instructions": ["Use the informal tone."]}, "custom_instructions"),
        ({"style_rule": "0a1b2c3d"}, "style_id"),
        ({"translation_memory": "0a1b2c3d"}, "translation_memory_id"),
        ({"extra_body_parameters": {"brand_voice": "friendly"}}, "brand_voice"),
    ],
)
def test_what_the_server_cannot_do_is_refused_naming_it(client, option, named):
    with pytest.raises(deepl.DeepLException, match=f"Bad request, message: .*'{named}' not supported"):
        client.translate_text("uno dos", **EN_ES, **option)


@pytest.mark.parametrize(
    "body, message",
    [
        ({"foo": 1}, "Parameter 'foo' not supported: /v2/translate takes text, source_lang"),
        ({"custom_instructions": ["x"]}, "Value for 'custom_instructions' not supported: this server's models"),
        ({"tag_handling_version": "v9"}, "Value for 'tag_handling_version' not supported (supported: v1, v2)."),
        ({"outline_detection": "maybe"}, "Value for 'outline_detection' not supported: 0 or 1 expected"),
        ({"splitting_tags": ["<p>"]}, "Value for 'splitting_tags' not supported: tag names expected."),
        ({"context": ["a", "b"]}, "Value for 'context' not supported"),
        ({"glossary_ids": ["a", "b"]}, "this server applies one glossary to a call"),
    ],
)
def test_raw_requests_get_deepls_400(server, body, message):
    answer = translate(server, **body)
    assert answer.status == 400 and message in answer.json()["message"], answer.body


def test_a_form_body_is_checked_the_same_and_its_key_is_no_unknown_field(server):
    form = {"text": "uno", "target_lang": "ES", "auth_key": "any", "show_billed_characters": "0"}
    answer = call(server.url + "v2/translate", "POST", form=form)
    assert answer.status == 200 and "billed_characters" not in answer.json()["translations"][0]
    answer = call(server.url + "v2/translate", "POST", form=form | {"formality_level": "low"})
    assert answer.status == 400 and "'formality_level'" in answer.json()["message"]


def test_glossary_ids_of_one_glossary_is_that_glossary(server, client):
    glossary = client.create_glossary("terms", "EN", "ES", {"dos": "DOS"})
    by_ids = client.translate_text("uno dos", **EN_ES, glossary_ids=[glossary])
    assert by_ids.text == client.translate_text("uno dos", **EN_ES, glossary=glossary).text
    assert by_ids.text.count("DOS") == 1
    both = translate(server, glossary_id=glossary.glossary_id, glossary_ids=[glossary.glossary_id])
    assert both.status == 400 and "not both" in both.json()["message"]
    client.delete_glossary(glossary)


def test_a_document_format_traductor_does_not_fill_is_refused_in_deepls_words(client):
    for name in ("report.pdf", "slides.pptx", "README"):
        with pytest.raises(deepl.DeepLException, match="(Invalid file)|(file extension)") as refused:
            client.translate_document_upload(b"%PDF-1.4", target_lang="ES", filename=name)
        assert "Invalid file: the file extension" in str(refused.value) and ".po" in str(refused.value)
