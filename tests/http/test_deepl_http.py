"""DeepL's API v2 over plain HTTP, on a server with a token: the key as DeepL sends it (403
otherwise, on every /v2 route), DeepL's form with repeated `text`, a GET whose form body says
`type=target` (what the deepl client sends), errors as `{"message": ...}` with DeepL's statuses,
hostile input answered 4xx (never a 500), glossaries visible to another store on the same
directory (a replica, a restart) and created concurrently without loss."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from http_harness import call, multipart
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_harness import WAIT, translate_request

from traductor.service.glossaries import GlossaryStore

TOKEN = "deepl-s3cret"
KEY = {"Authorization": f"DeepL-Auth-Key {TOKEN}"}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    return {"token": TOKEN, "glossary_dir": str(tmp_path_factory.mktemp("glossaries")), "max_glossary_entries": 3}


def v2(server, path: str, method: str = "GET", headers=KEY, **kwargs):
    return call(server.url + "v2/" + path, method, headers=headers, **kwargs)


def grpc_text(server, text: str) -> str:
    metadata = (("authorization", f"Bearer {TOKEN}"),)
    return server.stub.Translate(translate_request(text), timeout=WAIT, metadata=metadata).text


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "DeepL-Auth-Key wrong"}, {"Authorization": "DeepL-Auth-Key"}, {"Authorization": TOKEN}],
    ids=["none", "wrong", "empty", "no-scheme"],
)
@pytest.mark.parametrize(
    "method, path",
    [("POST", "translate"), ("GET", "languages"), ("GET", "usage"), ("GET", "glossaries"), ("POST", "document")],
)
def test_every_route_needs_the_key(server, headers, method, path):
    answer = v2(server, path, method, headers=headers, form={"text": "uno", "target_lang": "ES"})
    assert answer.status == 403 and answer.json() == {"message": "Invalid API key"}


def test_the_key_as_deepl_bearer_or_query_parameter(server):
    for headers, query in ((KEY, None), ({"Authorization": f"Bearer {TOKEN}"}, None), ({}, {"auth_key": TOKEN})):
        answer = v2(server, "usage", headers=headers, query=query)
        assert answer.status == 200 and answer.json()["character_limit"] == 10**12


@pytest.mark.parametrize(
    "path, form",
    [
        ("v2/glossaries", {"name": "form", "source_lang": "en", "target_lang": "es", "entries": "uno\tone"}),
        ("v3/glossaries", {"name": "form", "dictionaries": "x"}),
        ("v2/document", {"target_lang": "ES"}),
    ],
)
def test_the_key_in_a_form_body_on_routes_that_take_large_bodies(server, path, form):
    # these routes take bodies beyond --max-message-bytes: the key in the form is read after the
    # resize (it was a 500, "Cannot clone request after reading its content")
    answer = call(server.url + path, "POST", form=form | {"auth_key": TOKEN})
    assert answer.status in (201, 400), answer.body
    assert answer.status == 201 or "Invalid API key" not in answer.json()["message"]
    refused = call(server.url + path, "POST", form=form | {"auth_key": "wrong"})
    assert refused.status == 403 and refused.json() == {"message": "Invalid API key"}


def test_a_form_with_several_texts_and_the_json_body_agree(server):
    body = "text=uno+dos&text=siete&target_lang=es&source_lang=en".encode()
    as_form = v2(
        server, "translate", "POST", data=body, headers=KEY | {"Content-Type": "application/x-www-form-urlencoded"}
    )
    as_json = v2(server, "translate", "POST", json_body={"text": ["uno dos", "siete"], "target_lang": "ES"})
    expected = [
        {"detected_source_language": "EN", "text": grpc_text(server, t), "billed_characters": len(t)}
        for t in ("uno dos", "siete")
    ]
    assert as_form.status == as_json.status == 200
    assert as_form.json() == as_json.json()
    deepl_keys = [{k: t[k] for k in expected[0]} for t in as_json.json()["translations"]]  # beside traductor's own
    assert deepl_keys == expected


def test_an_empty_text_comes_back_empty_and_regional_targets_are_listed(server):
    answer = v2(server, "translate", "POST", json_body={"text": ["", "uno"], "target_lang": "ES", "source_lang": "EN"})
    assert [t["text"] for t in answer.json()["translations"]] == ["", grpc_text(server, "uno")]
    only_empty = v2(server, "translate", "POST", json_body={"text": ["", " "], "target_lang": "ES"}).json()
    untouched = {"finish_reason": "eos", "cut_short": False, "confidence": 1.0, "low_confidence": False, "segments": []}
    assert only_empty == {
        "translations": [
            {"detected_source_language": "EN", "text": t, "billed_characters": len(t), **untouched} for t in ("", " ")
        ]
    }
    # the deepl client's GET carries type=target in a form body, not in the query string
    targets = v2(
        server, "languages", data=b"type=target", headers=KEY | {"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert targets.json() == [{"language": "ES", "name": "Spanish", "supports_formality": False}]


@pytest.mark.parametrize(
    "body, message",
    [
        ({"target_lang": "ES"}, "Parameter 'text' not specified."),
        ({"text": ["uno"]}, "Parameter 'target_lang' not specified."),
        ({"text": ["uno"], "target_lang": "XX"}, "Value for 'target_lang' not supported"),
        ({"text": ["uno"], "target_lang": "FR"}, "Value for 'target_lang' not supported: FR is not supported"),
        (
            {"text": ["uno"], "target_lang": "EN", "source_lang": "ES"},
            "Value for 'source_lang' not supported: Spanish (es) is not available as a source language (sources: en)",
        ),
        ({"text": ["a\x00b"], "target_lang": "ES"}, "control character U+0000 at position 1"),
        ({"text": ["uno", "dos\x1b[0m"], "target_lang": "ES"}, "text[1]: text holds the control character U+001B"),
        ({"text": ["", "uno", "a\x00"], "target_lang": "ES"}, "text[2]: text holds the control character U+0000"),
        ({"text": ["uno"], "target_lang": "EN-GB"}, "English (en) is not available as a target language"),
        ({"text": ["uno"], "target_lang": ["ES", "EN"]}, "Value for 'target_lang' not supported"),
        ({"text": [1], "target_lang": "ES"}, "Value for 'text' not supported"),
        ({"text": ["uno"], "target_lang": "ES", "tag_handling": "markdown"}, "Value for 'tag_handling' not supported"),
        ({"text": ["uno"], "target_lang": "ES", "split_sentences": "2"}, "Value for 'split_sentences' not supported"),
        ({"text": ["uno"], "target_lang": "ES", "formality": "less"}, "'formality' is not supported for given"),
        ({"text": ["uno"], "target_lang": "ES", "formality": "casual"}, "Value for 'formality' not supported"),
        ({"text": ["uno"], "target_lang": "ES", "preserve_formatting": "yes"}, "'preserve_formatting' not supported"),
        ({"text": ["uno"], "target_lang": "ES", "glossary_id": "x"}, "requires the source_lang parameter"),
        ({"text": ["uno"] * 65, "target_lang": "ES", "source_lang": "EN"}, "(--max-batch-texts)"),
        ({"text": ["x" * 20_001], "target_lang": "ES", "source_lang": "EN"}, "--max-input-chars"),
        ({"text": ["a <x>b</x>"], "target_lang": "ES", "tag_handling": "xml", "ignore_tags": ["<x>"]}, "ignore_tags"),
    ],
)
def test_bad_parameters_are_400_with_deepls_message(server, body, message):
    answer = v2(server, "translate", "POST", json_body=body)
    assert answer.status == 400 and message in answer.json()["message"], answer.body


@pytest.mark.parametrize(
    "data, kind",
    [
        (b"{not json", "application/json"),
        (b'["a list"]', "application/json"),
        (b'{"text": ["\\ud800"], "target_lang": "ES"}', "application/json"),
        (b"\xff\xfe\x00junk", "application/x-www-form-urlencoded"),
        (b"--nope\r\n", "multipart/form-data"),
    ],
)
def test_unreadable_bodies_are_400_never_500(server, data, kind):
    answer = v2(server, "translate", "POST", data=data, headers=KEY | {"Content-Type": kind})
    assert answer.status == 400 and "message" in answer.json()


def test_unknown_routes_too_large_bodies_and_unknown_ids(server):
    assert v2(server, "nothing/here").json()["message"].startswith("Not found")
    assert v2(server, "nothing/here").status == 404
    big = v2(server, "translate", "POST", json_body={"text": ["a" * (2 << 20)], "target_lang": "ES"})
    assert big.status == 413 and "(the limits: --max-message-bytes;" in big.json()["message"]
    for path in ("glossaries/x", "glossaries/../../etc/passwd", "glossaries/" + "0" * 36 + "/entries"):
        answer = v2(server, path)
        assert answer.status == 404 and "not found" in answer.json()["message"].lower()
    status = v2(server, "document/ABC", "POST", form={"document_key": "K"})
    assert status.status == 404 and status.json()["message"].startswith("Document not found")


def test_glossary_limits_and_formats_over_http(server):
    over = {"name": "g", "source_lang": "EN", "target_lang": "ES", "entries": "a\tb\nc\td\ne\tf\ng\th"}
    answer = v2(server, "glossaries", "POST", json_body=over)
    assert answer.status == 413 and "(--max-glossary-entries)" in answer.json()["message"]
    bad = v2(server, "glossaries", "POST", json_body=over | {"entries": "a\tb", "entries_format": "xlsx"})
    assert bad.status == 400 and "entries_format" in bad.json()["message"]
    missing = v2(server, "glossaries", "POST", json_body={"name": "g", "source_lang": "EN", "target_lang": "ES"})
    assert missing.status == 400 and missing.json()["message"] == "Parameter 'entries' not specified."


@pytest.mark.parametrize("field", ["name", "source_lang", "target_lang", "entries", "entries_format"])
def test_a_glossary_field_given_as_a_list_is_400_and_nothing_is_stored(server, field):
    """DeepL's glossary fields are strings: a list (even of one string) is refused, not read as its item."""
    before = v2(server, "glossaries", "GET").json()["glossaries"]
    body = {"name": "g", "source_lang": "EN", "target_lang": "ES", "entries": "a\tb", "entries_format": "tsv"}
    answer = v2(server, "glossaries", "POST", json_body=body | {field: [body[field]]})
    assert answer.status == 400
    assert answer.json()["message"] == f"Value for '{field}' not supported: one value expected, not a list"
    assert v2(server, "glossaries", "GET").json()["glossaries"] == before


def test_a_glossary_made_over_http_is_on_disk_for_every_replica(server):
    made = v2(
        server,
        "glossaries",
        "POST",
        form={"name": "g", "source_lang": "en", "target_lang": "es-ES", "entries": "dos\tDOS"},
    )
    assert made.status == 201 and (made.json()["source_lang"], made.json()["target_lang"]) == ("en", "es")
    replica = GlossaryStore(server.settings.glossary_dir)  # another server on the same volume
    assert replica.info(made.json()["glossary_id"]).entries == (("dos", "DOS"),)
    entries = v2(
        server,
        f"glossaries/{made.json()['glossary_id']}/entries",
        headers=KEY | {"Accept": "text/tab-separated-values"},
    )
    assert entries.body == b"dos\tDOS\n" and entries.headers["content-type"].startswith("text/tab-separated-values")
    replica.delete(made.json()["glossary_id"])
    assert v2(server, f"glossaries/{made.json()['glossary_id']}").status == 404


def test_concurrent_glossary_creates_and_deletes_over_http_lose_nothing(server):
    def create(n: int) -> str:
        body = {"name": f"c{n}", "source_lang": "EN", "target_lang": "ES", "entries": f"t{n}\tv{n}"}
        return v2(server, "glossaries", "POST", json_body=body).json()["glossary_id"]

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(create, range(16)))
        gone = list(pool.map(lambda i: v2(server, f"glossaries/{i}", "DELETE").status, ids[::2]))
    assert gone == [204] * 8
    listed = {g["glossary_id"] for g in v2(server, "glossaries").json()["glossaries"]}
    assert set(ids[1::2]) <= listed and not set(ids[::2]) & listed


def test_document_upload_refusals(server):
    body, headers = multipart(
        {"target_lang": "ES", "output_format": "docx"}, {"file": ("a.po", b'msgid "a"\nmsgstr ""\n')}
    )
    answer = v2(server, "document", "POST", data=body, headers=KEY | headers)
    assert answer.status == 400 and "output_format" in answer.json()["message"]
    body, headers = multipart({"target_lang": "EN-US"}, {"file": ("a.po", b'msgid "a"\nmsgstr ""\n')})
    answer = v2(server, "document", "POST", data=body, headers=KEY | headers)
    assert answer.status == 400 and "not available as a target language" in answer.json()["message"]
    body, headers = multipart({"target_lang": "ES"}, {})
    answer = v2(server, "document", "POST", data=body, headers=KEY | headers)
    assert answer.status == 400 and "missing file" in answer.json()["message"]
    body, headers = multipart({"target_lang": "ES"}, {"file": ("a.po", b"not a po file \x00\xff")})
    handle = v2(server, "document", "POST", data=body, headers=KEY | headers).json()
    status = v2(server, f"document/{handle['document_id']}", "POST", json_body={"document_key": handle["document_key"]})
    assert status.json()["status"] == "error" and status.json()["error_message"]
    result = v2(
        server, f"document/{handle['document_id']}/result", "POST", json_body={"document_key": handle["document_key"]}
    )
    assert result.status == 400 and json.loads(result.body)["message"].startswith("Document translation failed")


def test_a_key_that_is_not_text_is_403(server):
    """Header bytes that are not UTF-8 (here and on the LibreTranslate side: params.check_key)."""
    import socket

    for request, scheme in ((b"GET /v2/usage", b"DeepL-Auth-Key"), (b"POST /translate", b"Bearer")):
        with socket.create_connection(("127.0.0.1", server.service.http.port), timeout=WAIT) as s:
            s.sendall(request + b" HTTP/1.1\r\nHost: x\r\nAuthorization: " + scheme + b" \xff\xfe\r\n")
            s.sendall(b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.1 403"), request


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
NAMES = ["text", "source_lang", "target_lang", "tag_handling", "ignore_tags", "formality", "glossary_id", "name"]
NAMES += ["split_sentences", "preserve_formatting", "entries", "entries_format", "type", "document_key"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(["translate", "glossaries", "languages", "document", "document/AB", "glossaries/x/entries"]),
    body=st.dictionaries(st.sampled_from(NAMES), JSON_VALUES, max_size=6),
    as_form=st.booleans(),
)
def test_any_parameters_get_an_answer_never_a_server_error(server, path, body, as_form):
    if as_form:  # every value as the text a form would carry
        answer = v2(
            server, path, "POST", form={k: json.dumps(v) if not isinstance(v, str) else v for k, v in body.items()}
        )
    else:
        answer = v2(server, path, "POST", json_body=body)
    assert answer.status < 500 and "message" in answer.json() or answer.status in (200, 201), (
        answer.status,
        answer.body,
    )
