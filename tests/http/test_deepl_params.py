"""DeepL's parameters read the same way on every /v2 route (issue 57 item 5): from the query string
and from the body, whether the body is JSON, urlencoded or multipart, as DeepL documents. A name given
both in the query and in the body is two values, refused where one belongs. Raw requests, and the
official `deepl` client on the same server (test_deepl_languages.py's: several pairs, each model
answering MARKER with its name)."""

# ruff: noqa: F811 - `server` and `translator` are test_deepl_languages.py's fixtures, named as parameters

from __future__ import annotations

import pytest
from http_harness import call, multipart
from server_harness import MARKER
from test_deepl_languages import server, translator  # noqa: F401

AUTH = {"Authorization": "DeepL-Auth-Key any"}
TARGETS = ["EN-GB", "EN-US", "ES", "PT-BR", "PT-PT"]
SOURCES = ["EN", "ES", "FR"]


def _body(kind: str, fields: dict) -> dict:
    """call()'s keyword arguments for a body of `kind` holding `fields`."""
    if kind == "json":
        return {"json_body": fields}
    if kind == "form":
        return {"form": fields or {"unused": ""}}
    if kind == "multipart":
        data, headers = multipart(fields or {"unused": ""}, {})
        return {"data": data, "headers": AUTH | headers}
    return {}


def _codes(answer) -> list[str]:
    assert answer.status == 200, answer.body
    return [lang["language"] for lang in answer.json()]


@pytest.mark.parametrize("kind", ["none", "json", "form", "multipart"])
@pytest.mark.parametrize("where", ["query", "body"])
def test_languages_type_from_the_query_or_any_body(server, kind, where):
    if kind == "none" and where == "body":
        pytest.skip("no body to hold it")
    query, fields = ({"type": "target"}, {}) if where == "query" else ({}, {"type": "target"})
    body = _body(kind, fields)
    answer = call(server.url + "v2/languages", "POST", query=query, **({"headers": AUTH} | body))
    assert _codes(answer) == TARGETS
    plain = call(server.url + "v2/languages", "POST", **({"headers": AUTH} | _body(kind, {})))
    assert _codes(plain) == SOURCES


def test_get_languages_reads_the_query_and_a_form_body(server):
    assert _codes(call(server.url + "v2/languages", query={"type": "target"}, headers=AUTH)) == TARGETS
    answer = call(server.url + "v2/languages", "GET", form={"type": "target"}, headers=AUTH)
    assert _codes(answer) == TARGETS


@pytest.mark.parametrize("kind", ["json", "form", "multipart"])
def test_translate_takes_its_languages_from_the_query_and_its_text_from_the_body(server, kind):
    query = {"source_lang": "FR", "target_lang": "EN-US"}
    answer = call(
        server.url + "v2/translate", "POST", query=query, **({"headers": AUTH} | _body(kind, {"text": MARKER}))
    )
    assert answer.status == 200, answer.body
    [one] = answer.json()["translations"]
    assert (one["detected_source_language"], one["text"]) == ("FR", "[fr-en]")


def test_a_name_in_the_query_and_the_body_is_two_values(server):
    answer = call(
        server.url + "v2/languages", "POST", query={"type": "target"}, json_body={"type": "source"}, headers=AUTH
    )
    assert answer.status == 400 and "'type'" in answer.json()["message"]


def test_the_official_client_reads_the_same(translator):
    assert [lang.code for lang in translator.get_target_languages()] == TARGETS
    assert [lang.code for lang in translator.get_source_languages()] == SOURCES
    result = translator.translate_text(MARKER, source_lang="ES", target_lang="EN-GB")
    assert (result.text, result.detected_source_lang) == ("[es-en]", "ES")


@pytest.mark.parametrize("kind", ["json", "form", "multipart"])
def test_glossary_routes_read_the_query_with_the_body(server, kind):
    # v2: the name and languages in the query, the entries in the body
    query = {"name": f"split {kind}", "source_lang": "EN", "target_lang": "ES"}
    made = call(
        server.url + "v2/glossaries", "POST", query=query, **({"headers": AUTH} | _body(kind, {"entries": "a\tb"}))
    )
    assert made.status == 201, made.body
    assert (made.json()["name"], made.json()["entry_count"]) == (f"split {kind}", 1)
    gid = made.json()["glossary_id"]
    # v3: a dictionary replaced with its pair in the query and its entries in the body
    url = server.url + f"v3/glossaries/{gid}/dictionaries"
    fields = {"entries": "c\td\ne\tf", "entries_format": "tsv"}
    replaced = call(
        url, "PUT", query={"source_lang": "EN", "target_lang": "ES"}, **({"headers": AUTH} | _body(kind, fields))
    )
    assert replaced.status == 200 and replaced.json()["entry_count"] == 2, replaced.body
    # the entries of a pair: one language in the query, the other in the body
    entries = call(
        server.url + f"v3/glossaries/{gid}/entries",
        "GET" if kind != "multipart" else "POST",
        query={"source_lang": "EN"},
        **({"headers": AUTH} | _body(kind, {"target_lang": "ES"})),
    )
    if kind != "multipart":  # a GET; no POST route for entries
        assert entries.status == 200 and entries.json()["dictionaries"][0]["entries"] == "c\td\ne\tf", entries.body
    assert call(server.url + f"v3/glossaries/{gid}", "DELETE", headers=AUTH).status == 204


def test_document_routes_read_the_query_with_the_body(server):
    data, headers = multipart({"source_lang": "FR"}, {"file": ("a.txt", MARKER.encode())})
    handle = call(server.url + "v2/document", "POST", query={"target_lang": "EN-US"}, data=data, headers=AUTH | headers)
    assert handle.status == 200, handle.body
    url = server.url + f"v2/document/{handle.json()['document_id']}"
    key = {"document_key": handle.json()["document_key"]}
    for _ in range(30):  # each status request waits for the translation up to 2 s
        status = call(url, "POST", query=key, headers=AUTH)  # the key in the query, no body
        assert status.status == 200, status.body
        if status.json()["status"] != "translating":
            break
    assert call(url + "/result", "POST", form=key, headers=AUTH).body == b"[fr-en]"  # the key in a form
