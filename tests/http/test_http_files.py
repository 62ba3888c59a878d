"""POST /translate_file and GET /download_file as LibreTranslate answers them, on the tiny model:
every filled unit holds exactly /translate's answer for its text, the output passes its format's
validator, a result downloads once, refusals are 400s naming the problem, calls are counted
like /translate's."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid

import polib
import pytest
from http_harness import call, http_requests

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


def multipart(fields: dict, files: dict) -> tuple[bytes, dict]:
    """A multipart/form-data body (fields, and files as name -> (filename, bytes))."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data) in files.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
        parts.append(head.encode() + b"Content-Type: application/octet-stream\r\n\r\n" + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


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
    assert report["alreadyTranslated"] == 1 and report["filled"] + len(report["rejected"]) + len(report["skipped"]) == 2
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
        ("a.docx", b"PK\x03\x04", {}, ".docx is not a supported file format"),
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


def test_unknown_download_is_404(server):
    answer = call(server.url + "download_file/nothing.po")
    assert answer.status == 404 and "no such translated file" in answer.json()["error"]


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
