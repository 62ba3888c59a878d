"""The requests Weblate's DeepL backend (weblate/machinery/deepl.py, read in Weblate 5.14) sends,
replayed with `requests` as it sends them: the languages as query parameters, a JSON translate
call with `formality: default`, `tag_handling: xml`, `ignore_tags: ["x"]` and its placeholders
written `<x id="N"></x>`, the glossary language pairs, and a glossary kept in sync by name
(create, list, translate with it, delete). Weblate's class itself needs a full Weblate (its
machinery imports Weblate's Django models; pip cannot build borgbackup, PyGObject or tesserocr
here), so docs/deepl-api.md says what was run: this."""

from __future__ import annotations

import pytest
import requests
from server_harness import WAIT, translate_request

KEY = {"Authorization": "DeepL-Auth-Key weblate-key"}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    return {"glossary_dir": str(tmp_path_factory.mktemp("glossaries"))}


@pytest.fixture(scope="module")
def session():
    with requests.Session() as s:
        s.trust_env = False  # 127.0.0.1 only, never a proxy
        s.headers.update(KEY)
        yield s


def test_what_weblate_asks_of_a_deepl_server(server, session):
    api = server.url + "v2/"
    sources = session.get(api + "languages", params={"type": "source"}).json()
    targets = session.get(api + "languages", params={"type": "target"}).json()
    assert [s["language"] for s in sources] == ["EN"]
    assert [(t["language"], t["supports_formality"]) for t in targets] == [("ES", False)]
    pairs = session.get(api + "glossary-language-pairs").json()["supported_languages"]
    assert {(p["source_lang"].upper(), p["target_lang"].upper()) for p in pairs} == {("EN", "ES")}

    made = session.post(
        api + "glossaries",
        json={
            "name": "weblate:1:EN:ES:abc",
            "source_lang": "EN",
            "target_lang": "ES",
            "entries": "dos\tDOS",
            "entries_format": "tsv",
        },
    )
    assert made.status_code == 201
    by_name = {g["name"]: g["glossary_id"] for g in session.get(api + "glossaries").json()["glossaries"]}
    glossary_id = by_name["weblate:1:EN:ES:abc"]

    texts = ['uno <x id="7"></x> tres', "uno dos", "tres"]
    answer = session.post(
        api + "translate",
        json={
            "text": texts,
            "source_lang": "EN",
            "target_lang": "ES",
            "formality": "default",
            "tag_handling": "xml",
            "ignore_tags": ["x"],
            "glossary_id": glossary_id,
        },
    )
    assert answer.status_code == 200
    first, second, third = (t["text"] for t in answer.json()["translations"])
    assert first.count('<x id="7"></x>') == 1 and second.count("DOS") == 1
    assert third == server.stub.Translate(translate_request("tres"), timeout=WAIT).text

    assert session.delete(api + f"glossaries/{glossary_id}").status_code == 204
    assert session.delete(api + f"glossaries/{glossary_id}").status_code == 404  # Weblate: it does not exist
