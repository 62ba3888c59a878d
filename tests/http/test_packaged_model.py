"""The packaged en-es model, served, on what a new user hit (issue 37), over gRPC and HTTP alike:
GNU --help lines keep their options and get their descriptions translated; an Android string's
<xliff:g> comes back whole from /translate_file; <pre> is kept by /translate_file as by
/translate with format=html. The behaviour here is the model's, so the model is the real one."""

from __future__ import annotations

import re

import pytest
from http_harness import call, multipart
from server_harness import WAIT, ServerThread, free_port, make_settings, translate_request

from traductor.engine.bundle import packaged_bundle

HELP = "  -h, --help          display this help and exit\n      --version       output version information and exit"


@pytest.fixture(scope="module")
def server():
    s = ServerThread(make_settings(packaged_bundle("", ""), http_port=free_port()))
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def translate(server, q: str, **extra) -> str:
    answer = call(server.url + "translate", "POST", json_body={"q": q, "source": "en", "target": "es", **extra})
    assert answer.status == 200, answer.body
    return answer.json()["translatedText"]


def download(server, name: str, data: bytes) -> tuple[bytes, dict]:
    body, headers = multipart({"source": "en", "target": "es"}, {"file": (name, data)})
    answer = call(server.url + "translate_file", "POST", data=body, headers=headers, timeout=WAIT * 4)
    assert answer.status == 200, answer.body
    url = answer.json()["translatedFileUrl"]
    return call(server.url + url.split("/", 3)[3]).body, answer.json()["report"]


def test_help_lines_get_their_descriptions_translated_over_grpc_and_http(server):
    reply = server.stub.Translate(translate_request(HELP), timeout=WAIT)
    assert reply.text == translate(server, HELP)
    assert reply.finish_reason == 1  # FINISH_REASON_EOS: every segment ended by the model
    for line, out in zip(HELP.split("\n"), reply.text.split("\n")):
        options = re.match(r"\s*-.*?  +", line).group()
        assert out.startswith(options) and re.search(r"[a-záéíóúñ]{4}", out[len(options) :]), out


def test_android_xliff_g_comes_back_whole_from_translate_file(server):
    from translate.storage import aresource

    data = (
        b'<?xml version="1.0" encoding="utf-8"?>\n<resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">\n'
        b'    <string name="welcome">Hello <xliff:g id="user">%1$s</xliff:g>, welcome back.</string>\n'
        b"</resources>\n"
    )
    out, report = download(server, "strings.xml", data)
    (unit,) = aresource.AndroidResourceFile.parsestring(out).units
    assert report["filled"] + len(report["rejected"]) + len(report["skipped"]) == 1
    assert '<xliff:g id="user">%1$s</xliff:g>' in unit.target and "&lt;" not in out.decode()
    assert report["filled"] == 0 or b"welcome back" not in out  # filled: translated around the tag


def test_pre_is_kept_by_translate_file_as_by_translate(server):
    page = "<p>Run the build.</p>\n<pre>make install</pre>\n"
    assert "<pre>make install</pre>" in translate(server, page, format="html")
    out, report = download(server, "page.html", page.encode())
    assert b"<pre>make install</pre>" in out and report["filled"] == 1
