"""Glossaries on an imported model (issue 35): its tokenizer (PieceTokenizer) has no placeholder
tokens, so the second pass cannot mask a term; it writes the term's target form into the source
instead, and the model may keep it or not. On the tiny imported OPUS-MT of test_import.py, served:
a text with no term gives exactly its tokens without a glossary; a text with a term gives pass 1's
tokens (the own word was replaced) or pass 1's then the tokens of the source with the term written
in (pass 2), and that text."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")

from server_harness import ServerThread, make_settings, translate_request  # noqa: E402
from test_import import ENGLISH, marian_bundle, marian_dir  # noqa: E402, F401  (fixtures)

from traductor_client.v1 import translator_pb2 as pb  # noqa: E402

TERM = pb.GlossaryEntry(source="file", target="ZQXW")


@pytest.fixture(scope="module")
def server(marian_bundle):  # noqa: F811
    s = ServerThread(make_settings(marian_bundle))
    yield s
    s.close()


def call(server, text: str, glossary=(), **options) -> pb.TranslateResponse:
    request = translate_request(text, max_new_tokens=12, **options)
    request.glossary.extend(glossary)
    return server.stub.Translate(request, timeout=60)


@pytest.mark.parametrize("beams", [1, 3])
def test_an_imported_model_takes_a_glossary(server, beams):
    texts = [t for t in ENGLISH if " file" not in f" {t.lower()}"][:3]
    for text in texts:  # no term: exactly the tokens without a glossary
        assert list(call(server, text, [TERM], beam_size=beams).token_ids) == list(
            call(server, text, beam_size=beams).token_ids
        )
    text = "Cannot open the file now"
    plain, switched = call(server, text, beam_size=beams), call(server, "Cannot open the ZQXW now", beam_size=beams)
    glossed = call(server, text, [TERM], beam_size=beams)
    ids = list(glossed.token_ids)
    assert ids in (list(plain.token_ids), list(plain.token_ids) + list(switched.token_ids))
    if ids != list(plain.token_ids):  # pass 2: the source with the term written in
        assert glossed.text == switched.text
    else:  # pass 1: the model's own word for "file" replaced
        assert "ZQXW" in glossed.text


def test_a_term_too_long_to_write_in_leaves_pass_1s_translation(marian_bundle):  # noqa: F811
    """Pass 2 would write the target into the source past the model's input limit: the call is not
    refused, and its tokens are pass 1's (the translation without the glossary)."""
    s = ServerThread(make_settings(marian_bundle, max_input_tokens=64))
    try:
        long_term = pb.GlossaryEntry(source="file", target=" ".join(["zqxw"] * 80))
        plain = call(s, "Cannot open the file now")
        glossed = call(s, "Cannot open the file now", [long_term])
        assert list(glossed.token_ids) == list(plain.token_ids)
    finally:
        s.close()
