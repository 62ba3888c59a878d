"""The translation page's server side: GET / and its files (no CDN, a strict CSP), and
/translate_stream, whose deltas join to exactly /translate's text. The page in a real browser is
tests/http/test_browser.py."""

from __future__ import annotations

import json
import re

import pytest
from http_harness import call, http_requests


def events(body: bytes) -> list[tuple[str, dict]]:
    """The (event, data) pairs of a server-sent events body."""
    out = []
    for block in body.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = "message", ""
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                data += line[len("data: ") :]
        out.append((name, json.loads(data)))
    return out


def test_page_and_its_files_are_served_without_any_remote_resource(server):
    page = call(server.url)
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    html = page.body.decode()
    assert '<script src="/page/page.js"' in html and 'href="/page/page.css"' in html
    for name in ("page.js", "page.css", "glossary.js", "link.js", "key.js", "files.js"):
        asset = call(server.url + "page/" + name)
        assert asset.status == 200
        assert not re.search(r"https?://", asset.body.decode()), f"{name} loads something remote"
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert call(server.url + "page/index.css").status == 404 and call(server.url + "page/..%2Fapp.py").status == 404


@pytest.mark.parametrize(
    "text, fmt",
    [("uno dos tres", "text"), ("cuatro %s.\nnueve ocho", "text"), ("<p>uno <b>dos</b></p><p>tres</p>", "html")],
)
def test_stream_deltas_join_to_the_translate_text(server, text, fmt):
    before = http_requests(server, "/translate_stream", "OK")
    params = {"q": text, "source": "en", "target": "es", "format": fmt}
    answer = call(server.url + "translate_stream", "POST", json_body=params)
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
    assert answer.headers["access-control-allow-origin"] == "*"
    got = events(answer.body)
    deltas = [data["delta"] for name, data in got if name == "message"]
    (done,) = [data for name, data in got if name == "done"]
    unary = call(server.url + "translate", "POST", json_body=params).json()["translatedText"]
    assert "".join(deltas) == done["translatedText"] == unary and done["finish"] in ("eos", "length", "loop")
    assert got[-1][0] == "done" and len(deltas) >= 1
    assert http_requests(server, "/translate_stream", "OK") == before + 1


def test_stream_refusals_are_json_errors(server):
    bad = call(server.url + "translate_stream", "POST", json_body={"q": "uno", "source": "en", "target": "fr"})
    assert bad.status == 400 and bad.json() == {"error": "fr is not supported (supported: en, es)"}
    many = call(server.url + "translate_stream", "POST", json_body={"q": ["a", "b"], "source": "en", "target": "es"})
    assert many.status == 400 and "one text" in many.json()["error"]
    empty = call(server.url + "translate_stream", "POST", json_body={"q": " ", "source": "en", "target": "es"})
    assert empty.status == 400


def test_frontend_settings_show_version_and_model(server):
    from traductor import __version__

    settings = call(server.url + "frontend/settings").json()
    assert settings["version"] == __version__ and settings["model"]
    assert settings["fileLimits"]["bytes"] > 0
