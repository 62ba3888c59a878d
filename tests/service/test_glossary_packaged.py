"""Glossaries on the packaged en-es model as it is served (issue 35): terms the model does not choose
("file -> fichero", "folder -> directorio", "settings -> ajustes") come back in its translations,
in the plural for a plural, with placeholders, markup and the rest of the sentence kept; greedy and
beam; stream deltas join to the unary text; a text with no term gives the tokens it gives without
a glossary."""

from __future__ import annotations

import pytest
from service_harness import WAIT, ServerThread, make_settings, translate_request

from traductor.engine.bundle import scan
from traductor.model import placeholders
from traductor.packaged import MODELS_DIR
from traductor_client.v1 import translator_pb2 as pb

ENTRIES = [("file", "fichero"), ("folder", "directorio"), ("settings", "ajustes")]
CASES = [
    ("cannot open file %s", ["fichero"]),
    ("Show hidden files", ["ficheros"]),
    ("Delete the folder %s and its %d files?", ["directorio", "ficheros"]),
    ("Open the <b>settings</b> window", ["ajustes"]),
    ("%(name)s: the file could not be copied to the folder {dest}.", ["fichero", "directorio"]),
    ("<b>File Type</b>", ["fichero"]),
]


@pytest.fixture(scope="module")
def server():
    # without the translation memory: its entry for "Cannot open file %s" says "fichero" already
    # (and a lowercase "cannot open file %s" takes it: engine/memory.find); the terms are the model's
    s = ServerThread(make_settings(scan(MODELS_DIR)["en-es"], use_memory=False))
    yield s
    s.close()


def request(text: str, glossary: bool = True, **options) -> pb.TranslateRequest:
    r = translate_request(text, **options)
    if glossary:
        r.glossary.extend(pb.GlossaryEntry(source=s, target=t) for s, t in ENTRIES)
    return r


@pytest.mark.parametrize("beams", [1, 4])
def test_terms_come_back_with_placeholders_and_markup(server, beams):
    for text, terms in CASES:
        plain = server.stub.Translate(request(text, False, beam_size=beams), timeout=WAIT).text
        result = server.stub.Translate(request(text, beam_size=beams), timeout=WAIT)
        for term in terms:
            assert term in result.text and term not in plain, (text, result.text)
        assert placeholders.preserved(text, result.text) == placeholders.preserved(text, plain), (text, result.text)
        assert result.finish_reason == pb.FINISH_REASON_EOS


def test_html_and_streams(server):
    html = "<p>Choose a <b>folder</b></p><p>Settings</p>"
    r = request(html)
    r.format = pb.FORMAT_HTML
    unary = server.stub.Translate(r, timeout=WAIT)
    assert (
        unary.text.startswith("<p>") and "<b>" in unary.text and "directorio" in unary.text and "Ajustes" in unary.text
    )
    text = "The file was saved. Open the folder. Close this window."
    streamed = "".join(m.text_delta for m in server.stub.TranslateStream(request(text), timeout=WAIT))
    assert streamed == server.stub.Translate(request(text), timeout=WAIT).text
    assert "fichero" in streamed and "directorio" in streamed


def test_no_term_no_change(server):
    for text in ("Permission denied", "Close this window to continue.", "Profiles: %d"):
        plain = server.stub.Translate(request(text, False), timeout=WAIT)
        glossed = server.stub.Translate(request(text), timeout=WAIT)
        assert (list(glossed.token_ids), glossed.text) == (list(plain.token_ids), plain.text)
