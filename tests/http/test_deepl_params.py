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
