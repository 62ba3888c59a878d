"""DeepL's language codes on a server of several pairs (copies of the tiny bundle that answer
MARKER with their own name, server_harness.make_repository): sources listed without region,
English and Portuguese targets listed by region as DeepL lists them (`EN-GB`, `EN-US`, `PT-BR`,
`PT-PT`), each reaching the served language; a call goes to the model of its pair; a glossary
of one pair refused on another; a document without `source_lang` is read in the language detected in
its text (an error when that is its target's); the official client reads all of it."""

from __future__ import annotations

import pytest
from http_harness import call, multipart
from server_harness import MARKER, ServerThread, free_port, make_repository, make_settings

deepl = pytest.importorskip("deepl")

PAIRS = {"en-es": ("en", "es"), "es-en": ("es", "en"), "en-pt": ("en", "pt"), "fr-en": ("fr", "en")}


@pytest.fixture(scope="module")
def server(tiny_bundle, tmp_path_factory):
    repository = make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)
    settings = make_settings(
        "",
        model_repository=str(repository),
        default_model="en-es",
        http_port=free_port(),
        glossary_dir=str(tmp_path_factory.mktemp("glossaries")),
    )
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


@pytest.fixture(scope="module")
def translator(server):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deepl.http_client, "max_network_retries", 0)
        client = deepl.DeepLClient("any-key", server_url=server.url.rstrip("/"))
        client._client._session.trust_env = False  # never a proxy from the environment
        yield client
        client.close()


def test_languages_as_deepl_lists_them(translator):
    assert [(lang.code, lang.name) for lang in translator.get_source_languages()] == [
        ("EN", "English"),
        ("ES", "Spanish"),
        ("FR", "French"),
    ]
    assert [lang.code for lang in translator.get_target_languages()] == ["EN-GB", "EN-US", "ES", "PT-BR", "PT-PT"]
    pairs = {(p.source_lang, p.target_lang) for p in translator.get_glossary_languages()}
    direct = {("en", "es"), ("es", "en"), ("en", "pt"), ("fr", "en")}
    assert pairs == direct | {("es", "pt"), ("fr", "es"), ("fr", "pt")}  # the last three through English


@pytest.mark.parametrize(
    "source, target, model",
    [("EN", "ES", "en-es"), ("ES", "EN-GB", "es-en"), ("es", "en-us", "es-en"), ("FR", "EN-US", "fr-en")]
    + [("EN", "PT-BR", "en-pt"), ("EN", "PT-PT", "en-pt")],
)
def test_a_call_goes_to_the_model_of_its_pair(translator, source, target, model):
    result = translator.translate_text(MARKER, source_lang=source, target_lang=target)
    assert (result.text, result.detected_source_lang) == (f"[{model}]", source.upper())


def test_a_glossary_of_one_pair_is_refused_on_another(translator):
    glossary = translator.create_glossary("es-en terms", "ES", "EN-GB", {"marca": "brand"})
    assert (glossary.source_lang, glossary.target_lang) == ("ES", "EN")
    with pytest.raises(deepl.DeepLException, match="the glossary is es->en, the call translates fr->en"):
        translator.translate_text("uno", source_lang="FR", target_lang="EN-US", glossary=glossary.glossary_id)
    translator.delete_glossary(glossary)


def _document(server, fields: dict, data: bytes) -> tuple[dict, object]:
    """Upload a .txt document; (its status once done or failed, the result's answer)."""
    headers = {"Authorization": "DeepL-Auth-Key any"}
    body, kind = multipart(fields, {"file": ("a.txt", data)})
    handle = call(server.url + "v2/document", "POST", data=body, headers=headers | kind).json()
    key = {"document_key": handle["document_key"]}
    url = server.url + f"v2/document/{handle['document_id']}"
    for _ in range(30):  # each status request waits for the translation up to 2 s
        status = call(url, "POST", json_body=key, headers=headers).json()
        if status["status"] != "translating":
            break
    return status, call(url + "/result", "POST", json_body=key, headers=headers)


@pytest.mark.parametrize(
    "text, model",
    [("No se puede abrir el archivo porque el disco está lleno.", "es-en")]
    + [("Impossible d'ouvrir le fichier car le disque est plein.", "fr-en")],
)
def test_a_document_without_source_is_read_in_its_detected_language(server, text, model):
    # several languages translate into English: the document's own text says which it is in
    status, result = _document(server, {"target_lang": "EN-US"}, f"{text}\n\n{MARKER}\n".encode())
    assert status["status"] == "done"
    assert result.body.decode().splitlines()[2] == f"[{model}]"  # the marker's unit, by the model of its pair


def test_a_document_already_in_its_target_language_is_an_error_as_on_deepl(server):
    english = b"The file could not be opened because the disk is full.\n"
    status, result = _document(server, {"target_lang": "EN-US"}, english)
    assert status["status"] == "error"
    assert status["error_message"].startswith("Source and target language are the same: the document is in English")
    headers = {"Authorization": "DeepL-Auth-Key any"}
    body, kind = multipart({"target_lang": "EN-US", "source_lang": "EN"}, {"file": ("a.txt", b"Open\n")})
    answer = call(server.url + "v2/document", "POST", data=body, headers=headers | kind)
    assert answer.status == 400 and answer.json()["message"].startswith("Source and target language are the same")


def test_a_document_with_its_source_goes_to_the_model_of_its_pair(server):
    headers = {"Authorization": "DeepL-Auth-Key any"}
    body, kind = multipart({"target_lang": "EN-US", "source_lang": "FR"}, {"file": ("a.txt", MARKER.encode())})
    handle = call(server.url + "v2/document", "POST", data=body, headers=headers | kind).json()
    key = {"document_key": handle["document_key"]}
    assert (
        call(server.url + f"v2/document/{handle['document_id']}", "POST", json_body=key, headers=headers).json()[
            "status"
        ]
        == "done"
    )
    result = call(server.url + f"v2/document/{handle['document_id']}/result", "POST", json_body=key, headers=headers)
    assert result.body == b"[fr-en]"


def test_a_text_already_in_the_target_language_comes_back_as_it_is(translator, server):
    # DeepL's EN into EN-US or EN-GB: a variant no model here makes; the text is not sent to a model
    for target in ("EN-US", "EN-GB"):
        result = translator.translate_text(["Colour me impressed", ""], source_lang="EN", target_lang=target)
        assert [(r.text, r.detected_source_lang, r.billed_characters) for r in result] == [
            ("Colour me impressed", "EN", 19),
            ("", "EN", 0),
        ]
    answer = call(
        server.url + "v2/translate",
        "POST",
        json_body={"text": ["x"], "source_lang": "EN", "target_lang": "EN-GB", "glossary_id": "a" * 36},
        headers={"Authorization": "DeepL-Auth-Key any"},
    )
    assert answer.status == 400 and "source_lang is the language of target_lang" in answer.json()["message"]


def test_a_source_not_served_is_named_alone(translator):
    # one refusal, the source's, not inside the target's
    with pytest.raises(deepl.DeepLException, match=r"message: Value for 'source_lang' not supported: IT is not"):
        translator.translate_text("uno", source_lang="IT", target_lang="EN-US")
    with pytest.raises(deepl.DeepLException, match=r"message: Value for 'target_lang' not supported: IT is not"):
        translator.translate_text("uno", source_lang="EN", target_lang="IT")
