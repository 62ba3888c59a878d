"""The request shapes LibreTranslate's users send, replayed: Weblate's batch (JSON, a list q),
Mastodon's (JSON, format=html, source=auto), a form body with HTML; the answers' shapes as
LibreTranslate gives them; CORS; the HTTP answer equals the gRPC answer for every text."""

from __future__ import annotations

import json
import logging
import re

from http_harness import call
from server_harness import WAIT, translate_request

from traductor_client.v1 import translator_pb2 as pb

TEXTS = ["uno dos tres", "cuatro %s", "nueve ocho"]


def grpc_text(server, text: str) -> str:
    return server.stub.Translate(translate_request(text), timeout=WAIT).text


def test_weblate_batch_json_list_equals_grpc_batch(server):
    """Weblate's LibreTranslate backend: POST /translate, JSON body with api_key, a list q, source, target."""
    answer = call(
        server.url + "translate", "POST", json_body={"api_key": "", "q": TEXTS, "source": "en", "target": "es"}
    )
    assert answer.status == 200 and answer.headers["content-type"].startswith("application/json")
    batch = server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=TEXTS), timeout=WAIT)
    assert answer.json()["translatedText"] == [r.text for r in batch.results]  # (and quality.py's additions)
    assert answer.json()["translatedText"] == [grpc_text(server, t) for t in TEXTS]


def test_mastodon_html_json_keeps_markup_and_detects(server):
    """Mastodon's shape: JSON with q in HTML, source auto, format html, api_key. The tags come back
    in order around the translations of the text between them."""
    html = "<p>uno dos</p><p>tres <b>cuatro</b></p>"
    answer = call(
        server.url + "translate",
        "POST",
        json_body={"q": html, "source": "auto", "target": "es", "format": "html", "api_key": ""},
    )
    assert answer.status == 200
    body = answer.json()
    assert {"translatedText", "detectedLanguage"} <= set(body)
    assert body["detectedLanguage"]["language"] == "en" and 0 <= body["detectedLanguage"]["confidence"] <= 100
    out = body["translatedText"]
    assert out.startswith("<p>") and out.count("<p>") == 2 and out.count("</p>") == 2
    assert out.index("<b>") < out.index("</b>")
    first = out[len("<p>") : out.index("</p>")]
    assert first == grpc_text(server, "uno dos")  # a block's only sentence: exactly its gRPC translation


def test_form_body_html_equals_json_html(server):
    """A urlencoded form with format=html gives the same answer as the JSON body."""
    html = "<p>uno dos</p><p>siete</p>"
    form = call(server.url + "translate", "POST", form={"q": html, "source": "en", "target": "es", "format": "html"})
    body = call(
        server.url + "translate", "POST", json_body={"q": html, "source": "en", "target": "es", "format": "html"}
    )
    assert form.status == body.status == 200
    assert form.json() == body.json()
    assert form.json()["translatedText"] == f"<p>{grpc_text(server, 'uno dos')}</p><p>{grpc_text(server, 'siete')}</p>"


def test_auto_source_on_a_list_gives_one_detection_per_text(server):
    answer = call(server.url + "translate", "POST", json_body={"q": TEXTS[:2], "source": "auto", "target": "es"})
    body = answer.json()
    assert body["translatedText"] == [grpc_text(server, t) for t in TEXTS[:2]]
    assert [d["language"] for d in body["detectedLanguage"]] == ["en", "en"]


def test_detect_is_english_with_a_graded_confidence(server):
    def confidence(text: str) -> float:
        [found] = call(server.url + "detect", "POST", form={"q": text}).json()
        assert found["language"] == "en"
        return found["confidence"]

    assert confidence("the file is not in the directory") == 100.0
    assert confidence("Permission denied") == 50.0  # Latin letters, no English function word: cannot tell
    assert confidence("Файл не найден") == 0.0
    assert confidence("12345") == 0.0


def test_languages_and_frontend_settings(server):
    langs = call(server.url + "languages").json()
    assert langs[0] == {"code": "en", "name": "English", "targets": ["es"], "aliases": []}
    settings = call(server.url + "frontend/settings").json()
    assert settings["charLimit"] == server.settings.max_input_chars
    assert settings["apiKeys"] is False and settings["keyRequired"] is False
    assert settings["language"] == {
        "source": {"code": "en", "name": "English"},
        "target": {"code": "es", "name": "Spanish"},
    }


def test_cors_on_answers_and_preflight(server):
    preflight = call(
        server.url + "translate",
        "OPTIONS",
        headers={"Origin": "https://example.org", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status == 200
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "Content-Type" in preflight.headers["access-control-allow-headers"]
    error = call(server.url + "translate", "POST", json_body={"source": "en", "target": "es"})
    assert error.status == 400 and error.headers["access-control-allow-origin"] == "*"


def test_request_id_is_echoed(server):
    answer = call(
        server.url + "translate",
        "POST",
        json_body={"q": "uno", "source": "en", "target": "es"},
        headers={"X-Request-Id": "abc-123"},
    )
    assert answer.headers["x-request-id"] == "abc-123"
    refused = call(server.url + "translate", "POST", json_body={"q": "uno"})  # no id given: one is made up
    assert refused.status == 400 and re.fullmatch("[0-9a-f]{16}", refused.headers["x-request-id"])


def test_one_json_log_line_per_request(server, caplog):
    """The same one-line JSON form as a gRPC call's, with protocol and the HTTP status."""
    caplog.set_level(logging.INFO, logger="traductor.requests")
    call(
        server.url + "translate",
        "POST",
        json_body={"q": "uno dos", "source": "en", "target": "es"},
        headers={"X-Request-Id": "log-1"},
    )
    call(
        server.url + "translate",
        "POST",
        json_body={"q": "uno dos", "source": "en", "target": "xx"},
        headers={"X-Request-Id": "log-2"},
    )
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "traductor.requests"]
    ok, refused = [next(x for x in lines if x["request_id"] == rid) for rid in ("log-1", "log-2")]
    assert ok["protocol"] == "http" and ok["rpc"] == "/translate" and ok["code"] == "OK" and ok["status"] == 200
    assert ok["input_tokens"] > 0 and ok["output_tokens"] > 0 and ok["finish"] == "eos"
    assert (refused["code"], refused["status"]) == ("INVALID_ARGUMENT", 400) and "input_tokens" not in refused
