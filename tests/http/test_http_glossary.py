"""Glossaries on the LibreTranslate API (issue 35), on the tiny model ("uno dos" -> "C B"):
`glossary` as JSON pairs, objects, a mapping, TSV or CSV text (JSON and form bodies), and as a
.tsv/.csv/.po/.tbx file beside /translate_file's file; `glossary_id` of a stored glossary; the
same text as gRPC; 400 naming the bad entry or line, 404 for an unknown id."""

from __future__ import annotations

import urllib.request

import pytest
from http_harness import call, multipart
from server_harness import WAIT

from traductor_client.v1 import translator_pb2 as pb


def translate(server, **fields):
    return call(server.url + "translate", "POST", json_body={"source": "en", "target": "es", **fields})


@pytest.mark.parametrize(
    "glossary",
    [
        [["dos", "DOS"]],
        [{"source": "dos", "target": "DOS"}],
        {"dos": "DOS"},
        "dos\tDOS\n",
        "dos,DOS\n",
    ],
)
def test_every_form_of_inline_entries_gives_the_grpc_text(server, glossary):
    answer = translate(server, q="uno dos tres", glossary=glossary)
    assert answer.status == 200, answer.body
    request = pb.TranslateRequest(text="uno dos tres", glossary=[pb.GlossaryEntry(source="dos", target="DOS")])
    assert answer.json()["translatedText"] == server.stub.Translate(request, timeout=WAIT).text
    assert answer.json()["translatedText"].count("DOS") == 1


def test_a_form_body_and_a_batch_take_it_too(server):
    form = call(
        server.url + "translate", "POST", form={"q": "uno dos", "source": "en", "target": "es", "glossary": "dos\tDOS"}
    )
    assert form.status == 200 and "DOS" in form.json()["translatedText"]
    batch = translate(server, q=["uno dos", "tres"], glossary={"dos": "DOS"})
    plain = translate(server, q=["uno dos", "tres"])
    texts, before = batch.json()["translatedText"], plain.json()["translatedText"]
    assert "DOS" in texts[0] and texts[1] == before[1]


def test_the_stream_joins_to_the_translate_text(server):
    body = {"q": "uno dos. tres", "source": "en", "target": "es", "glossary": {"dos": "DOS"}}
    answer = call(server.url + "translate_stream", "POST", json_body=body)
    events = [line for line in answer.body.decode().splitlines() if line.startswith("data: ")]
    assert '"translatedText"' in events[-1] and "DOS" in events[-1]
    assert translate(server, q="uno dos. tres", glossary={"dos": "DOS"}).json()["translatedText"] in events[-1]


@pytest.mark.parametrize(
    "fields, status, message",
    [
        ({"glossary": [["dos", ""]]}, 400, "glossary entry 1 ('dos'): target is empty"),
        ({"glossary": [["dos"]]}, 400, "glossary entry 1 must be"),
        ({"glossary": "dos\tDOS\ntres"}, 400, "line 2 is not source<TAB>target"),
        ({"glossary": 3}, 400, "glossary must be entries"),
        ({"glossary": {"dos": "DOS"}, "glossary_id": "x"}, 400, "not both"),
        ({"glossary_id": "no-such-glossary"}, 404, "no-such-glossary"),
    ],
)
def test_bad_glossaries_are_refused_naming_what_is_wrong(server, fields, status, message):
    answer = translate(server, q="uno dos", **fields)
    assert answer.status == status and message in answer.json()["error"], answer.body


TBX = b"""<?xml version="1.0"?>
<martif type="TBX" xml:lang="en"><text><body>
<termEntry id="1"><langSet xml:lang="en"><tig><term>dos</term></tig></langSet>
<langSet xml:lang="es"><tig><term>DOS</term></tig></langSet></termEntry>
</body></text></martif>"""
PO = b'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "dos"\nmsgstr "DOS"\n'


@pytest.mark.parametrize(
    "name, data", [("g.tsv", b"dos\tDOS\n"), ("g.csv", b"dos,DOS\n"), ("g.po", PO), ("g.tbx", TBX)]
)
def test_translate_file_takes_a_glossary_file(server, name, data):
    body, headers = multipart(
        {"source": "en", "target": "es"}, {"file": ("a.txt", b"uno dos\ntres\n"), "glossary": (name, data)}
    )
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers)
    assert answer.status == 200, answer.body
    with urllib.request.urlopen(
        answer.json()["translatedFileUrl"].replace("localhost", "127.0.0.1"), timeout=WAIT
    ) as r:
        lines = r.read().decode().splitlines()
    assert "DOS" in lines[0] and "DOS" not in lines[1]


def test_a_bad_glossary_file_is_400_naming_it(server):
    body, headers = multipart(
        {"source": "en", "target": "es"}, {"file": ("a.txt", b"uno dos"), "glossary": ("g.xls", b"x")}
    )
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers)
    assert answer.status == 400 and "g.xls: not a glossary file" in answer.json()["error"]
