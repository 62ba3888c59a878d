"""A segment that is nothing but a glossary term (DeepL's client tests: "artist" and the document
"artist\\nprize" with artist -> Maler, prize -> Gewinn, en-de): its masked input would be a lone
placeholder, on which the packaged en-de model looped ("---Datei-Datei-Datei-Datei Maler"). Such
a segment is answered by protect with the term's target form (plural, capitals, the punctuation
around kept), with no model call, the same unary, streamed, batched and offline; a segment that
holds other words beside a term still goes to the model."""

from __future__ import annotations

import pytest
from service_harness import WAIT, ServerThread, make_settings, translate_request

from traductor.engine.bundle import scan
from traductor.engine.translator import OnnxTranslator
from traductor.glossary import Glossary
from traductor.offline import translate_texts
from traductor.packaged import MODELS_DIR
from traductor_client.v1 import translator_pb2 as pb

ENTRIES = [("artist", "Maler"), ("prize", "Gewinn")]
ALONE = {
    "artist": "Maler",
    "artist\nprize": "Maler\nGewinn",
    "Artist.": "Maler.",
    "artists": "Maler",  # German plurals are not derived: the term as written
    "PRIZE": "GEWINN",
    "prize?": "Gewinn?",
}
BESIDE = "The artist won the prize."


@pytest.fixture(scope="module")
def de_server():
    s = ServerThread(make_settings(scan(MODELS_DIR)["en-de"]))
    yield s
    s.close()


def request(text: str, entries=ENTRIES) -> pb.TranslateRequest:
    r = translate_request(text)
    r.glossary.extend(pb.GlossaryEntry(source=s, target=t) for s, t in entries)
    return r


def test_a_lone_term_is_its_target_unary_and_streamed(de_server):
    for text, want in ALONE.items():
        result = de_server.stub.Translate(request(text), timeout=WAIT)
        assert (result.text, list(result.token_ids)) == (want, []), (text, result.text)
        assert result.finish_reason == pb.FINISH_REASON_EOS and result.confidence == 1.0
        streamed = list(de_server.stub.TranslateStream(request(text), timeout=WAIT))
        assert "".join(m.text_delta for m in streamed) == want
        assert streamed[-1].finish_reason == pb.FINISH_REASON_EOS


def test_a_lone_term_is_its_target_batched_and_offline(de_server):
    texts = list(ALONE)
    batch = pb.TranslateBatchRequest(texts=texts)
    batch.glossary.extend(pb.GlossaryEntry(source=s, target=t) for s, t in ENTRIES)
    results = de_server.stub.TranslateBatch(batch, timeout=WAIT).results
    assert [r.text for r in results] == list(ALONE.values())
    translator = OnnxTranslator.load(MODELS_DIR / "en-de", threads=1)
    glossary = Glossary.from_pairs("en", "de", ENTRIES)
    assert translate_texts(translator, texts, 1, 32, glossary=glossary) == list(ALONE.values())


def test_a_term_beside_other_words_still_goes_to_the_model(de_server):
    result = de_server.stub.Translate(request(BESIDE), timeout=WAIT)
    assert result.token_ids and "Maler" in result.text and "Gewinn" in result.text, result.text
    assert result.finish_reason == pb.FINISH_REASON_EOS
    mixed = de_server.stub.Translate(request("artist\n" + BESIDE), timeout=WAIT)
    assert mixed.text == "Maler\n" + result.text and list(mixed.token_ids) == list(result.token_ids)


def test_a_lone_term_on_the_tiny_model(server):
    """The tiny model ("uno dos" -> "C B"): a lone term is answered without it, a term among words is not."""
    entries = [("dos", "DOS")]
    for text, want in (("dos", "DOS"), ("Dos.", "DOS."), ("dos\ndos", "DOS\nDOS")):
        result = server.stub.Translate(request(text, entries), timeout=WAIT)
        assert (result.text, list(result.token_ids)) == (want, []), (text, result.text)
    among = server.stub.Translate(request("uno dos tres", entries), timeout=WAIT)
    assert among.token_ids and among.text.count("DOS") == 1, among.text
