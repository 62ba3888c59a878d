"""POST /translate_file and GET /download_file as LibreTranslate answers them, on the tiny model:
every filled unit holds exactly /translate's answer for its text, the output passes its format's
validator, a result downloads once, refusals are 400s naming the problem, calls are counted
like /translate's."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from http_harness import call, http_requests, multipart
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "client"))
from file_samples import SAMPLES, mutate  # noqa: E402 - the client tests' files of every format

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: src/main.c:10
#, c-format
msgid "cuatro %s"
msgstr ""

msgid "uno dos tres"
msgstr ""

# a translator's comment
msgid "nueve ocho"
msgstr "ya traducido"
"""


def upload(server, filename: str, data: bytes, **fields):
    body, headers = multipart({"source": "en", "target": "es", **fields}, {"file": (filename, data)})
    return call(server.url + "translate_file", "POST", data=body, headers=headers)


def translated(server, text: str) -> str:
    answer = call(server.url + "translate", "POST", json_body={"q": text, "source": "en", "target": "es"})
    return answer.json()["translatedText"]


def download(server, answer) -> bytes:
    url = answer.json()["translatedFileUrl"]
    assert url.startswith(server.url + "download_file/") and url.endswith(".messages.po") or "download_file" in url
    got = call(url)
    assert got.status == 200, got.body
    return got


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed (apt-get install gettext)")
def test_po_file_filled_with_translate_answers_and_downloaded_once(server, tmp_path):
    before = http_requests(server, "/translate_file", "OK")
    answer = upload(server, "messages.po", PO.encode())
    assert answer.status == 200, answer.body
    body = answer.json()
    got = download(server, answer)
    assert "attachment" in got.headers["content-disposition"] and "messages.po" in got.headers["content-disposition"]
    out = tmp_path / "messages.po"
    out.write_bytes(got.body)
    check = subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(out)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    entries = {e.msgid: e for e in polib.pofile(str(out))}
    assert (
        entries["nueve ocho"].msgstr == "ya traducido"
        and '# a translator\'s comment\nmsgid "nueve ocho"' in out.read_text()
    )
    report = body["report"]
    written = report["filled"] + len(report["needsReview"])  # needs review: cut short or low confidence, also fuzzy
    assert report["alreadyTranslated"] == 1 and written + len(report["rejected"]) + len(report["skipped"]) == 2
    for msgid in ("cuatro %s", "uno dos tres"):
        entry = entries[msgid]
        if entry.msgstr:  # filled: exactly what /translate answers, marked for review
            assert entry.msgstr == translated(server, msgid) and "fuzzy" in entry.flags
        else:  # left untranslated: the report says why
            assert any(msgid in item["unit"] for item in report["rejected"] + report["skipped"])
    again = call(answer.json()["translatedFileUrl"])
    assert again.status == 404 and "downloaded already or has expired" in again.json()["error"]
    assert http_requests(server, "/translate_file", "OK") == before + 1


def test_json_and_srt_files(server):
    data = {"title": "uno dos tres", "menu": {"open": "cuatro {{name}}", "n": 3}}
    answer = upload(server, "en.json", json.dumps(data).encode())
    assert answer.status == 200, answer.body
    out = json.loads(download(server, answer).body)
    assert list(out) == ["title", "menu"] and out["menu"]["n"] == 3
    assert out["title"] == translated(server, "uno dos tres")
    srt = b"1\n00:00:01,000 --> 00:00:02,000\nuno dos\n\n2\n00:00:03,000 --> 00:00:04,000\nnueve ocho\n"
    out = download(server, upload(server, "movie.srt", srt)).body.decode()
    assert "00:00:01,000 --> 00:00:02,000" in out and "00:00:03,000 --> 00:00:04,000" in out


@pytest.mark.parametrize(
    "filename, data, fields, words",
    [
        ("a.po", PO.encode(), {"target": ""}, "Invalid request: missing target parameter"),
        ("a.po", PO.encode(), {"target": "fr"}, "fr is not supported"),
        ("a.po", b"", {}, "Invalid request: empty file"),
        ("a.docx", b"PK\x03\x04", {}, "Invalid request: file format not supported (a.docx; supported: .htm"),
        ("program.exe", b"MZ\x90\x00", {"target": "zz"}, "Invalid request: file format not supported"),
        ("a.txt", b"uno", {"target": "zz"}, "zz is not supported"),
        ("a.txt", b"uno", {"source": "zz"}, "zz is not supported"),
        ("a.txt", b"uno", {"source": ""}, "Invalid request: missing source parameter"),
        # hostile uploads: each a 400 naming the problem, fast, the server unharmed
        ("deep.html", b"<div>" * 100_000, {}, "deep.html: line 1: elements nested more than 256 deep"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, {}, "deep.json: not a valid JSON file (RecursionError"),
        ("deep.xlf", b"<xliff>" + b"<g>" * 10_000 + b"</g>" * 10_000 + b"</xliff>", {}, "Excessive depth"),
        ("utf16.txt", "uno dos".encode("utf-16"), {}, "utf16.txt: not UTF-8 text"),
        ("latin1.po", 'msgid "caf\xe9"\nmsgstr ""\n'.encode("latin-1"), {}, "latin1.po: not a PO file"),
        ("zipped.xlf", b"PK\x03\x04\x14\x00\x00\x00\x08\x00", {}, "zipped.xlf: not well-formed XML"),
        ("gzipped.po", b"\x1f\x8b\x08\x00\x00\x00\x00\x00", {}, "gzipped.po: not a PO file"),
        ("laughs.ts", b'<!DOCTYPE TS [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;">]><TS>&b;</TS>', {}, "entity"),
        ("a.xml", b'<!DOCTYPE r [<!ENTITY a "aaaa">]><resources>&a;</resources>', {}, "entity declarations"),
        ("a.xlf", b"<xliff><file>", {}, "not well-formed XML"),
        ("a.json", b'{"a": [1, ', {}, "not valid JSON"),
    ],
)
def test_bad_uploads_are_400_naming_the_problem(server, filename, data, fields, words):
    answer = upload(server, filename, data, **fields)
    assert answer.status == 400 and words in answer.json()["error"], answer.body


def test_the_download_url_follows_the_host_and_scheme_the_client_used(server):
    """Behind the compose balancer (TLS ends there) the URL must be the one the client can reach."""
    body, headers = multipart({"source": "en", "target": "es"}, {"file": ("a.txt", b"uno dos")})
    headers |= {"Host": "translate.example.org:5000", "X-Forwarded-Proto": "https"}
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers)
    assert answer.json()["translatedFileUrl"].startswith("https://translate.example.org:5000/download_file/")


def test_missing_file_field(server):
    body, headers = multipart({"source": "en", "target": "es"}, {})
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers)
    assert answer.status == 400 and answer.json() == {"error": "Invalid request: missing file parameter"}


def test_frontend_settings_lists_the_extensions(server):
    settings = call(server.url + "frontend/settings").json()
    assert settings["filesTranslation"] is True
    assert {".po", ".pot", ".xlf", ".xliff", ".ts", ".xml", ".json", ".srt", ".txt", ".html", ".md"} <= set(
        settings["supportedFilesFormat"]
    )


def test_unknown_download_is_404_and_a_name_never_given_is_400(server):
    answer = call(server.url + "download_file/" + "A" * 22 + ".po")
    assert answer.status == 404 and "no such translated file" in answer.json()["error"]
    for name in ("..", "nothing.po", "%2e%2e%2fapp.py"):  # as LibreTranslate answers a traversal
        answer = call(server.url + "download_file/" + name)
        assert (answer.status, answer.json()) == (400, {"error": "Invalid filename"}), name


def test_a_files_checks_never_hold_the_other_requests(server, monkeypatch):
    """Reading, checking and writing a file run in a worker thread: while a file's placeholder
    checks are held here, the event loop still answers /languages at once."""
    import threading

    from traductor_client.files import placeholders

    entered, release = threading.Event(), threading.Event()
    check = placeholders.problems

    def held(*args, **kwargs):
        entered.set()
        release.wait(60)
        return check(*args, **kwargs)

    monkeypatch.setattr(placeholders, "problems", held)
    answers = []
    uploading = threading.Thread(target=lambda: answers.append(upload(server, "en.json", b'{"a": "uno dos"}')))
    uploading.start()
    try:
        assert entered.wait(60), "the file's checks never started"
        assert call(server.url + "languages", timeout=5).status == 200
    finally:
        release.set()
        uploading.join(60)
    assert answers and answers[0].status == 200, answers


def test_xml_uploads_never_reach_the_network(server):
    """A DTD, an XInclude, a schema location and a stylesheet pointing at a web server here: the
    upload is translated or refused, and that web server is never asked for anything."""
    import http.server
    import threading

    asked = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the standard library's name
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'<!ENTITY x "leaked">')

        def log_message(self, *args):
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    there = f"http://127.0.0.1:{web.server_port}"
    files = {
        "dtd.ts": f'<?xml version="1.0"?><!DOCTYPE TS SYSTEM "{there}/ts.dtd"><TS version="2.1"><context>'
        "<name>a</name><message><source>uno dos</source><translation type='unfinished'/></message></context></TS>",
        "include.xlf": '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2" '
        'xmlns:xi="http://www.w3.org/2001/XInclude"><file original="a" source-language="en" datatype="plaintext">'
        f'<body><trans-unit id="a"><source>uno <xi:include href="{there}/x.txt" parse="text"/></source>'
        "</trans-unit></body></file></xliff>",
        "schema.xml": '<resources xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="urn:x {there}/x.xsd"><string name="a">uno dos</string></resources>',
        "style.xlf": f'<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="{there}/x.xsl"?>'
        '<xliff version="1.2"><file original="a" source-language="en" datatype="plaintext"><body>'
        '<trans-unit id="a"><source>uno dos</source></trans-unit></body></file></xliff>',
        "entity.xlf": f'<!DOCTYPE xliff [<!ENTITY x SYSTEM "{there}/x.ent">]><xliff version="1.2">&x;</xliff>',
    }
    try:
        for name, text in files.items():
            answer = upload(server, name, text.encode())
            assert answer.status in (200, 400), (name, answer.body)
            if answer.status == 200:
                assert b"leaked" not in call(answer.json()["translatedFileUrl"]).body
    finally:
        web.shutdown()
    assert asked == []


@pytest.mark.parametrize("name", sorted(SAMPLES))
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_uploads_are_translated_or_400_never_500(server, name, data):
    """Mutated real files of every format (bytes replaced, cut short) through the endpoint: a
    translated file or a 400 naming the problem, never a 500, and the server goes on answering."""
    answer = upload(server, name, mutate(SAMPLES[name], data))
    assert answer.status in (200, 400), answer.body
    if answer.status == 400:
        assert answer.json()["error"]
    else:
        assert call(answer.json()["translatedFileUrl"]).status == 200


def test_libretranslates_own_file_cases(server):
    """The cases of LibreTranslate's own /translate_file tests that the 400s above do not cover:
    a plain text file, and source=auto; each gives a URL whose download differs from the upload."""
    for fields in ({}, {"source": "auto"}):
        answer = upload(server, "test.txt", b"uno dos tres", **fields)
        assert answer.status == 200 and "translatedFileUrl" in answer.json(), answer.body
        got = call(answer.json()["translatedFileUrl"])
        assert got.status == 200 and got.body and got.body != b"uno dos tres"


PAGE = (
    '<html><head><meta name="description" content="uno dos"></head><body>'
    '<button title="nueve ocho" aria-label="cuatro tres">uno</button><input type="submit" value="dos tres">'
    '<input type="text" value="seis siete" placeholder="ocho nueve"><p>uno <img src="a.png" alt="tres cuatro"> dos</p>'
    "</body></html>"
)


def test_one_rule_for_html_attributes_in_translate_and_translate_file(server):
    """issue 45: /translate_file and /translate with format=html translate the same attributes
    (those people see or hear) into the same text; the file also gets <html lang>."""
    from traductor_client import markup

    answer = upload(server, "page.html", PAGE.encode())
    assert answer.status == 200, answer.body
    filed = download(server, answer).body.decode()
    direct = call(
        server.url + "translate", "POST", json_body={"q": PAGE, "source": "en", "target": "es", "format": "html"}
    ).json()["translatedText"]
    assert filed.startswith('<html lang="es">') and direct.startswith("<html>")  # /translate keeps the page's

    def attributes(page: str) -> list:  # (tag, name, value, shown) of every attribute, in order
        return [
            (tag, name, value, name in markup.shown_attributes(tag, attrs))
            for _, sort, tag, attrs in markup.tokens(page)
            if sort in ("start", "void")
            for name, value in attrs.items()
        ]

    source, filed_attributes, direct_attributes = attributes(PAGE), attributes(filed), attributes(direct)
    assert sorted(name for _, name, _, shown in source if shown) == [
        "alt", "aria-label", "content", "placeholder", "title", "value"
    ]  # fmt: skip
    assert filed_attributes[0] == ("html", "lang", "es", False) and len(filed_attributes) == len(source) + 1
    for (tag, name, value, shown), by_file, by_translate in zip(source, filed_attributes[1:], direct_attributes):
        assert by_file[2] == by_translate[2]  # the same attributes, the same translations
        assert by_translate[2] == (translated(server, value) if shown else value), (tag, name)
    assert 'value="seis siete"' in filed and 'value="seis siete"' in direct  # a text field's value is data
