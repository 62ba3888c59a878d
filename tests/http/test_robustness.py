"""What schemathesis found against the server (issue 57 item 7), each case tried on the routes it
reaches: a multipart part whose headers hold bytes aiohttp refuses (`InvalidHeader`) is a 400 naming
the header, not a 500, on every route that reads a form, LibreTranslate's and DeepL's; a 405 carries
an `Allow` header naming the methods the path takes; an empty `q` is a 400."""

from __future__ import annotations

import pytest
from http_harness import call

BOUNDARY = "b0undary"
# (a part's header line, what the 400 quotes of it)
BAD_HEADERS = {
    "control byte in the name": (b"Bad\x01Header: x", "Bad\\x01Header"),
    "not UTF-8": (b"X-Note: \xff\x00", "\\xff\\x00"),
    "no colon": (b"No colon here", "No colon here"),
}
FORM_ROUTES = [
    "translate",
    "detect",
    "translate_stream",
    "translate_file",
    "v2/translate",
    "v2/document",
    "v2/languages",
]


def _multipart(header: bytes) -> bytes:
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="q"\r\n'.encode()
        + header
        + f"\r\n\r\nuno\r\n--{BOUNDARY}--\r\n".encode()
    )


@pytest.mark.parametrize("route", FORM_ROUTES)
@pytest.mark.parametrize("case", BAD_HEADERS, ids=list(BAD_HEADERS))
def test_a_part_header_aiohttp_refuses_is_400_naming_it(server, route, case):
    header, quoted = BAD_HEADERS[case]
    headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", "Authorization": "DeepL-Auth-Key k"}
    answer = call(server.url + route, "POST", data=_multipart(header), headers=headers)
    assert answer.status == 400, answer.body
    said = answer.json().get("error") or answer.json().get("message")
    assert "not a readable multipart/form-data form" in said and "Invalid HTTP header" in said
    assert quoted in said and "\n" not in said


@pytest.mark.parametrize(
    "method, route, allowed",
    [
        ("GET", "translate", {"POST"}),
        ("DELETE", "languages", {"GET"}),
        ("PUT", "v2/translate", {"POST"}),
        ("DELETE", "v2/languages", {"GET", "POST"}),
    ],
)
def test_a_405_says_which_methods_the_path_takes(server, method, route, allowed):
    answer = call(server.url + route, method)
    said = answer.json().get("message" if route.startswith("v2/") else "error")  # each API's error shape
    assert answer.status == 405 and said, answer.body
    assert allowed <= {m.strip() for m in answer.headers["allow"].split(",")}


@pytest.mark.parametrize("q", ["", [""], ["uno", ""]])
def test_an_empty_q_is_400(server, q):
    answer = call(server.url + "translate", "POST", json_body={"q": q, "source": "en", "target": "es"})
    assert answer.status == 400 and answer.json()["error"], answer.body


LIBRE = {"q": "uno", "source": "en", "target": "es"}
DEEPL = {"text": ["uno"], "target_lang": "ES"}


@pytest.mark.parametrize(
    "route, body, said",
    [
        ("translate", LIBRE | {"alternatives": -1}, "alternatives parameter must be >= 0"),
        ("translate", LIBRE | {"alternatives": {}}, "alternatives parameter is not a number"),
        ("translate", LIBRE | {"alternatives": True}, "alternatives parameter is not a number"),
        ("translate", LIBRE | {"api_key": 5}, "api_key must be a string"),
        ("detect", {"q": "uno", "api_key": []}, "api_key must be a string"),
        ("translate", LIBRE | {"formality": {}}, "formality must be a string"),
        ("translate", LIBRE | {"glossary_id": {}}, "glossary_id must be a string"),
        ("translate", LIBRE | {"model": []}, "model must be a served model's name"),
        ("translate", LIBRE | {"format": 0}, "0 format is not supported"),
        ("v2/translate", DEEPL | {"tag_handling": 0}, "Value for 'tag_handling' not supported"),
        ("v2/translate", DEEPL | {"auth_key": 5}, "Value for 'auth_key' not supported: a string expected"),
        ("v2/translate", DEEPL | {"glossary_id": []}, "Value for 'glossary_id' not supported"),
        ("v2/translate", DEEPL | {"splitting_tags": [5]}, "Value for 'splitting_tags' not supported: tag names"),
        # checked although no text needs them (all empty)
        ("v2/translate", {"text": [""], "target_lang": "ES", "ignore_tags": "\x84"}, "Value for 'ignore_tags'"),
    ],
)
def test_a_value_of_the_wrong_kind_is_400_naming_it(server, route, body, said):
    # what schemathesis's invalid requests found accepted (a falsy value read as "not given")
    answer = call(server.url + route, "POST", json_body=body)
    assert answer.status == 400, answer.body
    assert said in next(iter(answer.json().values()))


@pytest.mark.parametrize("route, body", [("translate", LIBRE), ("v2/translate", DEEPL)])
def test_null_is_a_parameter_left_out(server, route, body):
    nulls = {"translate": ["alternatives", "formality", "glossary_id", "model", "format", "api_key", "glossary"]}
    nulls["v2/translate"] = ["source_lang", "formality", "tag_handling", "model_type", "context", "auth_key"]
    answer = call(server.url + route, "POST", json_body=body | dict.fromkeys(nulls[route]))
    assert answer.status == 200, answer.body


def test_a_glossary_language_not_served_is_named_alone(server):
    body = {"name": "x", "source_lang": "XX", "target_lang": "ES", "entries": "a\tb"}
    answer = call(server.url + "v2/glossaries", "POST", json_body=body)
    assert answer.status == 400
    said = "Unsupported glossary source and target language pair: XX is not supported (supported: "
    assert answer.json()["message"].startswith(said)
