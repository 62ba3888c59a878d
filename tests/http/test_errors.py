"""Errors as LibreTranslate gives them: a status and {"error": "..."}; bad input is 400, an
engine fault 500 with a generic message, a draining server 503; every request is counted with
protocol="http" (and gRPC requests with protocol="grpc") and the server serves on afterwards."""

from __future__ import annotations

import pytest
from http_harness import call, http_requests
from server_harness import WAIT, translate_request, wait_for

MAX_CHARS, MAX_TEXTS, MAX_BYTES = 300, 4, 64 * 1024
SECRET = "secret-internal-detail"


@pytest.fixture(scope="module")
def server_settings():
    return {"max_input_chars": MAX_CHARS, "max_batch_texts": MAX_TEXTS, "max_message_bytes": MAX_BYTES}


def ok(**extra) -> dict:
    return {"q": "uno dos", "source": "en", "target": "es", **extra}


# (JSON body, a phrase the error message must contain)
BAD = {
    "missing q": ({"source": "en", "target": "es"}, "missing q parameter"),
    "empty q": (ok(q=""), "missing q parameter"),
    "missing source": ({"q": "uno", "target": "es"}, "missing source parameter"),
    "missing target": ({"q": "uno", "source": "en"}, "missing target parameter"),
    "q a number": (ok(q=3), "q must be a string or a list of strings"),
    "q a list with a number": (ok(q=["uno", 3]), "q must be a string or a list of strings"),
    "unknown target": (ok(target="fr"), "fr is not supported (supported: en, es)"),
    "unknown source": (ok(source="de"), "de is not supported"),
    "reversed pair": (ok(source="es", target="en"), "Spanish (es) is not available as a source language (sources: en)"),
    "served only as a target": (ok(source="es"), "Spanish (es) is not available as a source language (sources: en)"),
    "a NUL": (ok(q="a\x00b"), "control character U+0000 at position 1 (characters counted from 0)"),
    "an escape in a list": (ok(q=["uno", "\x1b[1mdos"]), "q[1]: text holds the control character U+001B at "),
    "a C1 control in html": (ok(q="<p>a\x85</p>", format="html"), "control character U+0085 at position 4"),
    "same language": (ok(target="en"), "is not available as a target language from English (en)"),
    "bad format": (ok(format="markdown"), "markdown format is not supported"),
    "alternatives not a number": (ok(alternatives="many"), "alternatives parameter is not a number"),
    "blank text": (ok(q="   "), "empty"),
    "text over max_input_chars": (ok(q="a" * (MAX_CHARS + 1)), "over the limit of 300"),
    "html over max_input_chars": (ok(q="<p>" + "a " * MAX_CHARS + "</p>", format="html"), "over the limit of 300"),
    "too many texts": (ok(q=["uno"] * (MAX_TEXTS + 1)), f"between 1 and {MAX_TEXTS} texts"),
    "empty list": (ok(q=[]), "missing q parameter"),
    "unknown parameter": (ok(modle="x"), "unknown parameter modle (known: q, source, target, format, alternatives"),
    "model not a name": (ok(model=3), "model must be a served model's name"),
    "lone surrogate": (ok(q="\ud800"), "lone surrogate"),
    "alternatives infinite": (ok(alternatives=float("inf")), "alternatives parameter is not a number"),
    "format a list": (ok(format=["html"]), "format is not supported (supported: text, html)"),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_request_is_400_with_a_message(server, case):
    body, phrase = BAD[case]
    before = http_requests(server, "/translate", "INVALID_ARGUMENT")
    answer = call(server.url + "translate", "POST", json_body=body)
    assert answer.status == 400
    assert phrase in answer.json()["error"]
    assert http_requests(server, "/translate", "INVALID_ARGUMENT") == before + 1


@pytest.mark.parametrize(
    "data", [b"{not json", b"[1, 2]", b'"uno"', b"\xff\xfe"], ids=["broken", "array", "string", "bad utf-8"]
)
def test_a_body_that_is_not_a_json_object_is_400(server, data):
    answer = call(server.url + "translate", "POST", data=data, headers={"Content-Type": "application/json"})
    assert answer.status == 400 and answer.json() == {"error": "Invalid JSON format"}


def test_a_body_over_max_message_bytes_is_413(server):
    """The gRPC message limit bounds an HTTP body too: refused before it is parsed."""
    before = http_requests(server, "/translate", "INVALID_ARGUMENT")
    answer = call(server.url + "translate", "POST", json_body=ok(q="uno " * (MAX_BYTES // 4)))
    assert answer.status == 413 and f"Maximum request body size {MAX_BYTES} exceeded" in answer.json()["error"]
    assert http_requests(server, "/translate", "INVALID_ARGUMENT") == before + 1


JUNK = bytes(range(256)) * 2
# (Content-Type, a phrase of the 400's message): bodies aiohttp's parsers raised on (issue 37: 500s)
BODIES = {
    "form of binary junk": ("application/x-www-form-urlencoded", "the body is not a readable"),
    "multipart without a boundary": ("multipart/form-data", "boundary missed"),
    "multipart, boundary not in the body": ("multipart/form-data; boundary=xyz", "Could not find starting boundary"),
    "form in an unknown charset": ("application/x-www-form-urlencoded; charset=bogus", "unknown encoding: bogus"),
    "JSON in an unknown charset": ("application/json; charset=bogus", "Invalid JSON format"),
    "JSON of binary junk": ("application/json", "Invalid JSON format"),
}


@pytest.mark.parametrize("endpoint", ["translate", "detect", "translate_stream", "translate_file"])
@pytest.mark.parametrize("case", BODIES, ids=list(BODIES))
def test_a_body_that_cannot_be_read_is_400_on_every_endpoint(server, endpoint, case):
    kind, phrase = BODIES[case]
    data = b"[" * 20_000 if "JSON" in case and "junk" not in case else JUNK
    before = http_requests(server, f"/{endpoint}", "INVALID_ARGUMENT")
    answer = call(server.url + endpoint, "POST", data=data, headers={"Content-Type": kind})
    assert answer.status == 400 and phrase in answer.json()["error"], answer.body
    assert http_requests(server, f"/{endpoint}", "INVALID_ARGUMENT") == before + 1


@pytest.mark.parametrize("source, target", [("EN", "es"), ("en", "ES"), ("en-US", "es-ES"), ("en_GB", "es_419")])
def test_language_codes_match_whatever_their_case_and_region(server, source, target):
    answer = call(server.url + "translate", "POST", json_body=ok(source=source, target=target))
    assert answer.status == 200, answer.body
    assert answer.json() == call(server.url + "translate", "POST", json_body=ok()).json()


def test_unknown_path_and_wrong_method_answer_json(server):
    before = http_requests(server, "unknown", "NOT_FOUND")
    missing = call(server.url + "suggest", "POST", form={"q": "uno"})
    assert missing.status == 404 and missing.json() == {"error": "Not Found"}
    assert http_requests(server, "unknown", "NOT_FOUND") == before + 1
    wrong = call(server.url + "translate")
    assert wrong.status == 405 and "error" in wrong.json()


def test_engine_fault_is_500_with_a_generic_message(server):
    """The encoder raises once: 500 {"error": "internal error"} (the detail only in the log), counted
    as INTERNAL; the next request is served."""
    runner = server.service.engine.core.scheduler.runner
    real_encode, calls = runner.encode, []

    def encode_once_broken(*args):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(SECRET)
        return real_encode(*args)

    runner.encode = encode_once_broken
    try:
        before = http_requests(server, "/translate", "INTERNAL")
        answer = call(server.url + "translate", "POST", json_body=ok())
        assert answer.status == 500 and answer.json() == {"error": "internal error"}
        assert SECRET.encode() not in answer.body
        assert http_requests(server, "/translate", "INTERNAL") == before + 1
    finally:
        runner.encode = real_encode
    good = call(server.url + "translate", "POST", json_body=ok())
    assert good.status == 200
    assert good.json()["translatedText"] == server.stub.Translate(translate_request("uno dos"), timeout=WAIT).text


def test_draining_server_answers_503(server):
    engine = server.service.engine
    engine.draining = True
    try:
        answer = call(server.url + "translate", "POST", json_body=ok())
    finally:
        engine.draining = False
    assert answer.status == 503 and "shutting down" in answer.json()["error"]


def test_grpc_and_http_requests_share_the_counter_by_protocol(server):
    grpc_before = server.metric("traductor_requests_total", {"protocol": "grpc", "rpc": "Translate", "code": "OK"})
    http_before = http_requests(server, "/translate", "OK")
    server.stub.Translate(translate_request("uno"), timeout=WAIT)
    assert call(server.url + "translate", "POST", json_body=ok(q="uno")).status == 200
    assert http_requests(server, "/translate", "OK") == http_before + 1
    grpc_ok = {"protocol": "grpc", "rpc": "Translate", "code": "OK"}  # counted just after the caller sees it
    wait_for(lambda: server.metric("traductor_requests_total", grpc_ok) == grpc_before + 1, what="the gRPC count")
    assert server.metric("traductor_request_duration_seconds_count", {"protocol": "http", "rpc": "/translate"}) >= 1
