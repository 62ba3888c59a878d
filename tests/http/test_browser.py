"""The translation page in a real headless Chromium (Debian's chromium + chromium-driver through
selenium), on the tiny model: load it, pick the pair, type, see the streamed translation equal
/translate's, upload a catalog, download it and check it with msgfmt; then the same page at a
phone's width. Skipped, with the reason, where Chromium is not installed. Screenshots go to
$TRADUCTOR_SCREENSHOTS when set (scripts/figures/web_screenshots.py makes docs/web.md's on the real
model)."""

from __future__ import annotations

import os
import shutil
import subprocess

import polib
import pytest
from browser_flow import browser, missing, open_page, shots, translate_file, translate_text, translated

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "ok")

CATALOG = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "uno dos tres"
msgstr ""

msgid "nueve ocho"
msgstr "ya traducido"
"""


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU msgfmt is not installed (apt-get install gettext)")
def test_the_page_in_chromium(server, tmp_path):
    folder = shots(tmp_path)
    driver = browser()
    try:
        open_page(driver, server.url)
        seen = translate_text(driver, server.url, "uno dos tres")
        assert seen["output"] == seen["expected"]  # the stream, joined, is /translate's text
        assert seen["seen"] and seen["seen"][-1] == seen["expected"]
        assert seen["count"].startswith("12 / ")
        driver.save_screenshot(str(folder / "web-text.png"))

        catalog = tmp_path / "demo.po"
        catalog.write_text(CATALOG)
        got = translate_file(driver, catalog)
        assert got["name"] == "demo.po"
        out = tmp_path / "out.po"
        out.write_text(got["data"])
        check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(out)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        entries = {e.msgid: e for e in polib.pofile(str(out))}
        assert entries["nueve ocho"].msgstr == "ya traducido"
        filled = entries["uno dos tres"]
        if filled.msgstr:
            assert filled.msgstr == translated(server.url, "uno dos tres") and "fuzzy" in filled.flags
            assert "1 filled" in got["report"]
        else:
            assert "uno dos tres" in got["report"]  # left untranslated: the page says why
        driver.save_screenshot(str(folder / "web-file.png"))

        driver.set_window_size(390, 844)  # a phone
        driver.find_element("id", "tab-text").click()
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        boxes = driver.find_elements("css selector", ".box")
        assert boxes[1].location["y"] > boxes[0].location["y"]  # stacked, not side by side
        driver.save_screenshot(str(folder / "web-phone.png"))
    finally:
        driver.quit()
