"""Shareable page links (issue 57 item 2), in headless Chromium: the page opened from
`?source=..&target=..&q=..` shows that pair and text and translates it at once; as the pair and the
text change, the address follows (history.replaceState); a code of the link that is not served
leaves the page's default. On test_browser_models.py's server (en->es, en->fr, es->en; each model
answers MARKER with its own name, so the translation says which pair the page used)."""

# ruff: noqa: F811 - `server` is test_browser_models.py's fixture, named as a parameter

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest
from browser_flow import browser, missing, open_page, pick, until
from server_harness import MARKER
from test_browser_models import server  # noqa: F401

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "ok")


def _address(driver) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(driver.current_url).query).items()}


def _output(driver, expected: str) -> None:
    until(driver, lambda d: d.find_element("id", "output").text == expected, f"the translation {expected!r}")


def test_a_link_opens_with_its_pair_and_text_translated(server):
    driver = browser()
    try:
        open_page(driver, f"{server.url}?source=EN&target=fr&q={quote(MARKER)}")
        _output(driver, "[en-fr]")  # translated on opening, by the model of the link's pair
        values = driver.execute_script(
            "return ['source', 'target', 'input'].map((id) => document.getElementById(id).value)"
        )
        assert values == ["en", "fr", MARKER]
        assert _address(driver) == {"source": "en", "target": "fr", "q": MARKER}
    finally:
        driver.quit()


def test_the_address_follows_the_pair_and_the_text(server):
    driver = browser()
    try:
        open_page(driver, server.url)
        assert _address(driver) == {"source": "en", "target": "es"}  # the default pair, no text
        pick(driver, "es", "en")
        box = driver.find_element("id", "input")
        box.send_keys(MARKER)
        _output(driver, "[es-en]")
        assert _address(driver) == {"source": "es", "target": "en", "q": MARKER}
        box.send_keys(" y más")
        until(driver, lambda d: _address(d).get("q") == f"{MARKER} y más", "the address with the new text")
        box.clear()
        box.send_keys(" ")  # (clear() alone fires no input event)
        until(driver, lambda d: "q" not in _address(d), "the address without text")
        # the address shared: a new page opened from it shows the same
        driver.get(f"{server.url}?source=es&target=en&q={quote(MARKER)}")
        _output(driver, "[es-en]")
    finally:
        driver.quit()


def test_a_link_to_a_pair_not_served_keeps_the_default(server):
    driver = browser()
    try:
        open_page(driver, f"{server.url}?source=de&target=it&q={quote(MARKER)}")
        _output(driver, "[en-es]")  # the default pair translates the link's text
        assert _address(driver) == {"source": "en", "target": "es", "q": MARKER}
    finally:
        driver.quit()
