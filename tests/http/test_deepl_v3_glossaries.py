"""DeepL's v3 (multilingual) glossaries against a live traductor (the tiny en->es model, "uno
dos" -> "C B"): through the official `deepl` client's DeepLClient (create, list, get, entries,
rename, merge, replace and delete a dictionary, delete; used in translate_text and documents)
and through raw requests (the JSON shapes, DeepL's errors, a v2 glossary seen and deleted through
v3, the file on disk, another key's glossary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from http_harness import call
from server_harness import WAIT, translate_request

deepl = pytest.importorskip("deepl")
Entries = deepl.api_data.MultilingualGlossaryDictionaryEntries

KEY = {"Authorization": "DeepL-Auth-Key any"}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    return {"glossary_dir": str(tmp_path_factory.mktemp("glossaries"))}


@pytest.fixture(scope="module")
def client(server):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deepl.http_client, "max_network_retries", 0)
        made = deepl.DeepLClient("any-key", server_url=server.url.rstrip("/"))
        made._client._session.trust_env = False  # 127.0.0.1 only, never a proxy
        yield made
        made.close()


def v3(server, path: str, method: str = "GET", **kwargs):
    return call(server.url + "v3/" + path, method, headers=KEY, **kwargs)


def entries_of(client, glossary, source="EN", target="ES") -> dict:
    found = client.get_multilingual_glossary_entries(glossary, source, target).dictionaries
    assert [(d.source_lang, d.target_lang) for d in found] == [(source.lower(), target.lower())]
    return deepl.util.convert_tsv_to_dict(found[0].entries)


def test_the_client_makes_reads_changes_and_deletes_a_glossary(server, client):
    made = client.create_multilingual_glossary("project", [Entries("EN", "ES", {"dos": "DOS", "tres": "TRES"})])
    assert (made.name, len(made.glossary_id)) == ("project", 36)
    assert [(d.source_lang, d.target_lang, d.entry_count) for d in made.dictionaries] == [("EN", "ES", 2)]
    assert made.glossary_id in {g.glossary_id for g in client.list_multilingual_glossaries()}
    assert client.get_multilingual_glossary(made.glossary_id).name == "project"
    assert entries_of(client, made) == {"dos": "DOS", "tres": "TRES"}

    renamed = client.update_multilingual_glossary_name(made, "renamed")
    assert (renamed.name, renamed.creation_time) == ("renamed", made.creation_time)
    merged = client.update_multilingual_glossary_dictionary(
        made, Entries("EN", "ES", {"Tres": "3", "cuatro": "CUATRO"})
    )
    assert [d.entry_count for d in merged.dictionaries] == [3]
    assert entries_of(client, made) == {"dos": "DOS", "Tres": "3", "cuatro": "CUATRO"}  # a term of both: the new
    replaced = client.replace_multilingual_glossary_dictionary(made, Entries("EN", "ES", {"uno": "UNO"}))
    assert (replaced.source_lang, replaced.target_lang, replaced.entry_count) == ("EN", "ES", 1)
    assert entries_of(client, made) == {"uno": "UNO"}

    client.delete_multilingual_glossary_dictionary(made, source_lang="EN", target_lang="ES")
    assert client.get_multilingual_glossary(made.glossary_id).dictionaries == []
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.get_multilingual_glossary_entries(made, "EN", "ES")
    client.delete_multilingual_glossary(made)
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.get_multilingual_glossary(made.glossary_id)
    with pytest.raises(deepl.GlossaryNotFoundException):
        client.delete_multilingual_glossary(made.glossary_id)


def test_a_v3_glossary_in_translate_text_and_a_document(server, client):
    made = client.create_multilingual_glossary_from_csv("csv", "EN", "ES", "dos,DOS\n")
    plain = client.translate_text("uno dos", source_lang="EN", target_lang="ES").text
    glossed = client.translate_text(["uno dos", "cuatro"], source_lang="EN", target_lang="ES", glossary=made)
    assert "DOS" not in plain and glossed[0].text.count("DOS") == 1
    assert glossed[1].text == server.stub.Translate(translate_request("cuatro"), timeout=WAIT).text
    by_id = translate_request("uno dos")  # the same store behind gRPC's glossary_id
    by_id.glossary_id = made.glossary_id
    assert server.stub.Translate(by_id, timeout=WAIT).text == glossed[0].text

    handle = client.translate_document_upload(
        b"uno dos\ncuatro\n", source_lang="EN", target_lang="ES", filename="notes.txt", glossary=made
    )
    assert client.translate_document_get_status(handle).status.value == "done"
    lines = client.translate_document_download(handle).content.decode().splitlines()
    assert lines[0].count("DOS") == 1 and "DOS" not in lines[1]
    client.delete_multilingual_glossary(made)


def test_the_json_shapes_and_the_file(server, server_settings):
    body = {"name": "raw", "dictionaries": [{"source_lang": "EN", "target_lang": "ES", "entries": "dos\tDOS"}]}
    made = v3(server, "glossaries", "POST", json_body=body)
    assert made.status == 201
    glossary = made.json()
    assert set(glossary) == {"glossary_id", "name", "dictionaries", "creation_time"}
    assert glossary["dictionaries"] == [{"source_lang": "en", "target_lang": "es", "entry_count": 1}]
    gid = glossary["glossary_id"]
    assert v3(server, f"glossaries/{gid}").json() == glossary
    assert v3(server, f"glossaries/{gid}/entries", query={"source_lang": "en", "target_lang": "es"}).json() == {
        "dictionaries": [
            {
                "source_lang": "en",
                "target_lang": "es",
                "entry_count": 1,
                "entries": "dos\tDOS",  # as DeepL's: no line break after the last entry
                "entries_format": "tsv",
            }
        ]
    }
    # a v3 glossary of one dictionary is a v2 glossary too, and its file is the v2 file
    v2 = call(server.url + f"v2/glossaries/{gid}", headers=KEY).json()
    assert (v2["source_lang"], v2["target_lang"], v2["entry_count"]) == ("en", "es", 1)
    path = Path(server_settings["glossary_dir"]) / f"{gid}.json"
    head, entries = path.read_text().splitlines()
    assert "dictionaries" not in json.loads(head) and json.loads(entries) == [["dos", "DOS"]]
    # no dictionary left: the head lists none, v2 does not show it
    pair = {"source_lang": "EN", "target_lang": "ES"}
    assert v3(server, f"glossaries/{gid}/dictionaries", "DELETE", query=pair).status == 204
    assert json.loads(path.read_text())["dictionaries"] == []
    assert gid not in {g["glossary_id"] for g in call(server.url + "v2/glossaries", headers=KEY).json()["glossaries"]}
    assert call(server.url + f"v2/glossaries/{gid}", headers=KEY).status == 400
    assert v3(server, f"glossaries/{gid}", "DELETE").status == 204


def test_a_v2_glossary_is_listed_and_deleted_through_v3(server):
    form = {"name": "old", "source_lang": "EN", "target_lang": "ES", "entries": "dos\tDOS"}
    gid = call(server.url + "v2/glossaries", "POST", headers=KEY, form=form).json()["glossary_id"]
    listed = {g["glossary_id"]: g for g in v3(server, "glossaries").json()["glossaries"]}
    assert listed[gid]["dictionaries"] == [{"source_lang": "en", "target_lang": "es", "entry_count": 1}]
    assert v3(server, f"glossaries/{gid}", "DELETE").status == 204
    assert call(server.url + f"v2/glossaries/{gid}", headers=KEY).status == 404


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({"dictionaries": []}, 400, "Parameter 'name' not specified."),
        ({"name": "x"}, 400, "Parameter 'dictionaries' not specified."),
        ({"name": "x", "dictionaries": ["en-es"]}, 400, "dictionaries[0]"),
        ({"name": "x", "dictionaries": [{"source_lang": "EN", "target_lang": "ES"}]}, 400, "'entries' not specified"),
        (
            {"name": "x", "dictionaries": [{"source_lang": "EN", "target_lang": "FR", "entries": "a\tb"}]},
            400,
            "Unsupported glossary source and target language pair",
        ),
        (
            {"name": "x", "dictionaries": [{"source_lang": "EN", "target_lang": "ES", "entries": "a\tb\na\tc"}]},
            400,
            "the source term is entry 1 already",
        ),
        (
            {"name": "x", "dictionaries": [{"source_lang": "en", "target_lang": "es", "entries": "a\tb"}] * 2},
            400,
            "a language pair is given twice",
        ),
        (
            {"name": "x", "dictionaries": [{"source_lang": "en", "target_lang": "es", "entries": 7}]},
            400,
            "Value for 'entries' not supported",
        ),
    ],
)
def test_bad_creates_are_400_in_deepls_shape(server, body, status, message):
    answer = v3(server, "glossaries", "POST", json_body=body)
    assert answer.status == status and message in answer.json()["message"], answer.body


def test_unknown_ids_pairs_and_routes(server):
    missing = "00000000-0000-4000-8000-000000000000"
    assert v3(server, f"glossaries/{missing}").status == 404
    assert v3(server, f"glossaries/{missing}", "PATCH", json_body={"name": "y"}).status == 404
    body = {"name": "x", "dictionaries": [{"source_lang": "en", "target_lang": "es", "entries": "a\tb"}]}
    gid = v3(server, "glossaries", "POST", json_body=body).json()["glossary_id"]
    assert v3(server, f"glossaries/{gid}/entries", query={"source_lang": "en"}).status == 400
    assert v3(server, f"glossaries/{gid}", "PATCH", json_body={}).status == 400
    wrong_pair = v3(
        server, f"glossaries/{gid}/dictionaries", "DELETE", query={"source_lang": "es", "target_lang": "en"}
    )
    assert wrong_pair.status == 400 and "language pair" in wrong_pair.json()["message"]
    assert v3(server, "style_rules").status == 404 and "message" in v3(server, "style_rules").json()
    assert v3(server, "glossaries", "PUT").status == 405
    assert v3(server, f"glossaries/{gid}", "DELETE").status == 204
