"""DeepL's API v2 as the official `deepl` Python client sees it, against a live traductor serving
the tiny en->es model ("uno dos" -> "C B"): texts equal what gRPC `Translate` gives, languages,
usage, glossaries (create, list, get, entries, delete, translate with one), a .po document round
trip that msgfmt accepts. The client's retries are off, so an error is seen at once."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from server_harness import WAIT, translate_request

deepl = pytest.importorskip("deepl")

TEXTS = ["uno dos tres", "cuatro cinco %s", "siete"]


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    return {"glossary_dir": str(tmp_path_factory.mktemp("glossaries"))}


@pytest.fixture(scope="module")
def translator(server):
    """The official client on the test server (no proxy, no retries: 127.0.0.1 only)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deepl.http_client, "max_network_retries", 0)
        client = deepl.Translator("any-key", server_url=server.url.rstrip("/"))
        client._client._session.trust_env = False  # never a proxy from the environment
        yield client
        client.close()


def grpc_text(server, text: str) -> str:
    return server.stub.Translate(translate_request(text), timeout=WAIT).text


def test_translate_one_and_several_texts_equal_grpc(server, translator):
    one = translator.translate_text(TEXTS[0], source_lang="EN", target_lang="ES")
    assert (one.text, one.detected_source_lang, one.billed_characters) == (grpc_text(server, TEXTS[0]), "EN", 12)
    several = translator.translate_text(TEXTS, target_lang="es")  # no source: detected
    assert [r.text for r in several] == [grpc_text(server, t) for t in TEXTS]
    assert {r.detected_source_lang for r in several} == {"EN"}


def test_options_deepl_documents_are_accepted(server, translator):
    html = "<p>uno <b>dos</b></p>"
    expected = server.stub.Translate(translate_request(html), timeout=WAIT)  # plain: the tags are text
    result = translator.translate_text(
        html,
        source_lang="EN",
        target_lang="ES",
        tag_handling="html",
        split_sentences="nonewlines",
        preserve_formatting=True,
        formality="prefer_less",
        context="a settings dialog",
    )
    assert result.text.startswith("<p>") and result.text.endswith("</p>") and "<b>" in result.text
    assert expected.text != result.text
    weblate_like = translator.translate_text(
        'uno <x id="0"></x> dos', source_lang="EN", target_lang="ES", tag_handling="xml", ignore_tags=["x"]
    )
    assert '<x id="0"></x>' in weblate_like.text


def test_languages_and_usage(translator):
    assert [(lang.code, lang.name) for lang in translator.get_source_languages()] == [("EN", "English")]
    targets = translator.get_target_languages()
    assert [(lang.code, lang.name, lang.supports_formality) for lang in targets] == [("ES", "Spanish", False)]
    usage = translator.get_usage()
    assert usage.character.valid and not usage.any_limit_reached
    before = usage.character.count
    translator.translate_text("uno", source_lang="EN", target_lang="ES")
    assert translator.get_usage().character.count == before + 3
    assert [(p.source_lang, p.target_lang) for p in translator.get_glossary_languages()] == [("en", "es")]


def test_formality_a_target_without_it_refuses_as_deepl_does(translator):
    with pytest.raises(deepl.DeepLException, match="'formality' is not supported for given 'target_lang'"):
        translator.translate_text("uno", source_lang="EN", target_lang="ES", formality="more")
    assert translator.translate_text("uno", source_lang="EN", target_lang="ES", formality="prefer_more").text


def test_glossary_create_list_entries_translate_delete(server, translator):
    entries = {"dos": "DOS", "tres": "fichero"}
    created = translator.create_glossary("project terms", "EN", "ES", entries)
    assert (created.name, created.source_lang, created.target_lang, created.entry_count) == (
        "project terms",
        "EN",
        "ES",
        2,
    )
    assert created.ready and len(created.glossary_id) == 36
    assert created.glossary_id in {g.glossary_id for g in translator.list_glossaries()}
    assert translator.get_glossary(created.glossary_id).name == "project terms"
    assert translator.get_glossary_entries(created) == entries

    plain = translator.translate_text("uno dos", source_lang="EN", target_lang="ES").text
    glossed = translator.translate_text_with_glossary(["uno dos", "cuatro"], created)
    assert "DOS" not in plain and glossed[0].text.count("DOS") == 1
    assert glossed[1].text == grpc_text(server, "cuatro")  # no term: as without the glossary
    # the stored glossary is the one gRPC callers name too
    by_id = translate_request("uno dos")
    by_id.glossary_id = created.glossary_id
    assert server.stub.Translate(by_id, timeout=WAIT).text == glossed[0].text

    translator.delete_glossary(created)
    with pytest.raises(deepl.GlossaryNotFoundException):
        translator.get_glossary(created.glossary_id)
    with pytest.raises(deepl.GlossaryNotFoundException):
        translator.delete_glossary(created.glossary_id)


def test_a_glossary_from_csv_and_bad_glossaries(translator):
    made = translator.create_glossary_from_csv("csv", "en", "es", 'dos,DOS\n"cinco, seis",X,en,es\n')
    assert translator.get_glossary_entries(made) == {"dos": "DOS", "cinco, seis": "X"}
    translator.delete_glossary(made)
    with pytest.raises(deepl.DeepLException, match="Unsupported glossary source and target language pair"):
        translator.create_glossary("other pair", "EN", "FR", {"dos": "deux"})
    with pytest.raises(deepl.DeepLException, match="Not found, message: glossary '0+' not found"):
        translator.translate_text("uno", source_lang="EN", target_lang="ES", glossary="0" * 36)


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="msgfmt (gettext) is not installed")
def test_a_po_document_round_trip(server, translator, tmp_path):
    source = tmp_path / "es.po"
    source.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#, c-format\nmsgid "uno dos %s"\nmsgstr ""\n\nmsgid "tres"\nmsgstr ""\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.po"
    with source.open("rb") as data, out.open("wb") as result:
        translator.translate_document(data, result, source_lang="EN", target_lang="ES")
    text = out.read_text(encoding="utf-8")
    assert f'msgstr "{grpc_text(server, "tres")}"' in text
    subprocess.run(["msgfmt", "--check", "-o", str(tmp_path / "out.mo"), str(out)], check=True)


def test_document_status_and_download_once(server, translator):
    handle = translator.translate_document_upload(b"uno dos\n", target_lang="ES", filename="notes.txt")
    status = translator.translate_document_get_status(handle)  # the server waits for a small document
    assert (status.status.value, status.billed_characters) == ("done", 8)
    assert translator.translate_document_download(handle).content == (grpc_text(server, "uno dos") + "\n").encode()
    with pytest.raises(deepl.DeepLException, match="Not found"):
        translator.translate_document_get_status(handle)
    wrong = deepl.DocumentHandle(handle.document_id, "0" * 64)
    with pytest.raises(deepl.DeepLException, match="Not found"):
        translator.translate_document_get_status(wrong)


def test_a_document_with_a_glossary(translator):
    glossary = translator.create_glossary("doc terms", "EN", "ES", {"dos": "DOS"})
    handle = translator.translate_document_upload(
        b"uno dos\ncuatro\n", source_lang="EN", target_lang="ES", filename="notes.txt", glossary=glossary
    )
    assert translator.translate_document_get_status(handle).status.value == "done"
    lines = translator.translate_document_download(handle).content.decode().splitlines()
    assert lines[0].count("DOS") == 1 and "DOS" not in lines[1]
    translator.delete_glossary(glossary)


def test_a_document_format_traductor_does_not_fill_is_refused(translator):
    with pytest.raises(deepl.DeepLException, match="Invalid file: the file extension .pdf"):
        translator.translate_document_upload(b"%PDF-1.4", target_lang="ES", filename="report.pdf")
