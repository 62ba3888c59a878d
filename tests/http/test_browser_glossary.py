"""The page's glossary box in a real headless Chromium (as tests/http/test_browser.py), on the tiny
model: entries typed as "source = target" change the streamed translation to /translate's with the
same glossary, a line that is not an entry is named under the text, and the Files tab sends the
box with the file. Skipped, with the reason, where Chromium is not installed."""

from __future__ import annotations

import json
import urllib.request

import pytest
from browser_flow import WAIT, browser, missing, open_page, pick, translate_file, until

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "ok")


def glossed(base: str, text: str, glossary: dict) -> str:
    body = json.dumps({"q": text, "source": "en", "target": "es", "glossary": glossary}).encode()
    request = urllib.request.Request(base + "translate", body, {"Content-Type": "application/json"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=WAIT) as answer:
        return json.loads(answer.read())["translatedText"]


def test_the_glossary_box(server, tmp_path):
    driver = browser()
    try:
        open_page(driver, server.url)
        pick(driver, "en", "es")
        driver.find_element("css selector", "#glossary-box summary").click()
        box = driver.find_element("id", "glossary")
        box.send_keys("dos = DOS")
        driver.find_element("id", "input").send_keys("uno dos tres")
        expected = glossed(server.url, "uno dos tres", {"dos": "DOS"})
        assert "DOS" in expected
        until(driver, lambda d: d.find_element("id", "output").text == expected.strip(), "the glossary's translation")

        box.send_keys("\ntres")
        until(driver, lambda d: "Glossary line 2" in d.find_element("id", "status").text, "the bad line named")
        box.send_keys(" = TRES")

        page = tmp_path / "a.txt"
        page.write_text("uno dos\ncinco\n")
        got = translate_file(driver, page)
        assert got["data"].splitlines()[0] == glossed(server.url, "uno dos", {"dos": "DOS", "tres": "TRES"})
    finally:
        driver.quit()
