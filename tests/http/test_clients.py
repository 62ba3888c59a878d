"""Real LibreTranslate clients from PyPI (libretranslatepy, deep-translator) against a live
traductor: what they get equals what gRPC `Translate` gives for the same text."""

from __future__ import annotations

import pytest
from http_harness import http_requests
from server_harness import WAIT, translate_request

TEXTS = ["uno dos tres", "cuatro cinco %s", "siete"]


def grpc_text(server, text: str) -> str:
    return server.stub.Translate(translate_request(text), timeout=WAIT).text


def test_libretranslatepy_translate_equals_grpc(server):
    """libretranslatepy posts a urlencoded form; each answer is the gRPC answer for the text."""
    from libretranslatepy import LibreTranslateAPI

    lt = LibreTranslateAPI(server.url)
    before = http_requests(server, "/translate", "OK")
    for text in TEXTS:
        assert lt.translate(text, "en", "es") == grpc_text(server, text)
    assert http_requests(server, "/translate", "OK") == before + len(TEXTS)


def test_libretranslatepy_detect_and_languages(server):
    from libretranslatepy import LibreTranslateAPI

    lt = LibreTranslateAPI(server.url)
    assert lt.languages() == [
        {"code": "en", "name": "English", "targets": ["es"], "aliases": []},
        {"code": "es", "name": "Spanish", "targets": [], "aliases": []},
    ]
    [found] = lt.detect("the file is not found")
    assert found["language"] == "en" and found["confidence"] == 100.0


def test_deep_translator_translate_and_batch_equal_grpc(server):
    """deep-translator sends its parameters in the query string of an empty POST; it insists on
    an api_key even when the server needs none (the server then ignores it)."""
    from deep_translator import LibreTranslator

    translator = LibreTranslator(source="en", target="es", api_key="unused", custom_url=server.url)
    assert translator.translate(TEXTS[0]) == grpc_text(server, TEXTS[0])
    assert translator.translate_batch(TEXTS) == [grpc_text(server, t) for t in TEXTS]


def test_deep_translator_sees_an_unsupported_pair_as_a_server_error(server):
    """deep-translator only knows the status: a 400 (here: English -> French) raises its ServerException."""
    from deep_translator import LibreTranslator
    from deep_translator.exceptions import ServerException

    translator = LibreTranslator(source="en", target="fr", api_key="unused", custom_url=server.url)
    before = http_requests(server, "/translate", "INVALID_ARGUMENT")
    with pytest.raises(ServerException):
        translator.translate("uno dos")
    assert http_requests(server, "/translate", "INVALID_ARGUMENT") == before + 1
