"""The server's --beam-size: every call that asks for no beam (or for 1) is decoded with it, on gRPC,
LibreTranslate's /translate and DeepL's /v2/translate alike; a beam asked for and sampling are the
caller's. The reference is the offline translator decoding the same text with that beam."""

from __future__ import annotations

import pytest
from http_harness import call
from server_harness import WAIT, translate_request

BEAM = 4
CANDIDATES = ["dos file casa dos", "casa file perro open", "mundo el nueve cinco open uno"]


@pytest.fixture(scope="module")
def server_settings():
    return {"beam_size": BEAM}


@pytest.fixture(scope="module")
def offline(tiny_bundle):
    """The text the offline translator gives `text` decoded with these options (one segment)."""
    from traductor.engine.translator import OnnxTranslator
    from traductor.options import DecodingOptions

    translator = OnnxTranslator.load(tiny_bundle, threads=1, max_rows=8)

    def run(text: str, **options) -> str:
        ids, values = translator.tokenizer.encode(text)
        return translator.generate([ids], DecodingOptions(**options), values=[values])[0].text

    return run


@pytest.fixture(scope="module")
def text(offline):
    """A text the tiny model translates differently greedily and with the server's beam."""
    found = [t for t in CANDIDATES if offline(t, beam_size=BEAM) != offline(t)]
    assert found, "no candidate tells a beam of 4 from greedy decoding on the tiny model"
    return found[0]


def test_a_call_without_a_beam_gets_the_servers(server, text, offline):
    beamed = offline(text, beam_size=BEAM)
    assert server.stub.Translate(translate_request(text), timeout=WAIT).text == beamed
    assert server.stub.Translate(translate_request(text, beam_size=1), timeout=WAIT).text == beamed
    libre = call(server.url + "translate", "POST", json_body={"q": text, "source": "en", "target": "es"})
    assert libre.status == 200 and libre.json()["translatedText"] == beamed
    deepl = call(server.url + "v2/translate", "POST", json_body={"text": [text], "target_lang": "ES"})
    assert deepl.status == 200 and deepl.json()["translations"][0]["text"] == beamed


def test_a_beam_asked_for_and_sampling_stay_the_callers(server, text, offline):
    asked = server.stub.Translate(translate_request(text, beam_size=2), timeout=WAIT).text
    assert asked == offline(text, beam_size=2)
    sampled = server.stub.Translate(translate_request(text, temperature=0.8, seed=7), timeout=WAIT).text
    assert sampled == offline(text, temperature=0.8, seed=7)
