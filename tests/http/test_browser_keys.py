"""The page on a server with a key store (--api-keys, SQLite; issue 56), in headless Chromium: the
key field shows; without a key a text and a file are refused with the server's message; with the
key typed the text translates as /translate does and a file comes back; the key survives a reload
(localStorage); over a key's requests a minute the page shows the server's message and the
Retry-After wait. The page on an open server (no field, nothing sent) is test_browser.py's."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from browser_flow import browser, missing, open_page, translate_file, until
from http_harness import call

from traductor.service.keys.model import Limits, new_key
from traductor.service.keys.stores import open_store

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "ok")

TEXT = "uno dos tres"
SECRETS: dict[str, str] = {}


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory):
    directory = tmp_path_factory.mktemp("data")
    store = open_store(path=directory / "keys.sqlite3")
    for name, limits in (("page", Limits()), ("once", Limits(requests_per_minute=1))):
        key, SECRETS[name] = new_key(name, limits)
        store.add(key)
    store.close()
    return {"glossary_dir": str(directory), "api_keys": True}


def expected(server, text: str = TEXT) -> str:
    body = {"q": text, "source": "en", "target": "es", "api_key": SECRETS["page"]}
    answer = call(server.url + "translate", "POST", json_body=body)
    assert answer.status == 200
    return answer.json()["translatedText"].strip()


def text_of(driver, element: str) -> str:
    return driver.find_element("id", element).text


def test_the_page_asks_for_a_key_keeps_it_and_sends_it(server, tmp_path):
    from selenium.webdriver.common.keys import Keys

    driver = browser()
    try:
        open_page(driver, server.url)
        field = driver.find_element("id", "api-key")
        assert driver.find_element("id", "key-field").is_displayed() and field.get_attribute("value") == ""
        # without a key: the server's refusal, and the field marked
        driver.find_element("id", "input").send_keys(TEXT, Keys.CONTROL, Keys.ENTER)
        until(driver, lambda d: text_of(d, "status") == "Invalid API key", "the refusal")
        assert "error" in driver.find_element("id", "status").get_attribute("class")
        assert field.get_attribute("aria-invalid") == "true"
        catalog = tmp_path / "en.json"
        catalog.write_text('{"title": "uno dos tres"}')
        driver.find_element("id", "tab-text").send_keys(Keys.ARROW_RIGHT)
        driver.find_element("id", "file").send_keys(str(catalog))
        driver.find_element("id", "upload").click()
        until(driver, lambda d: text_of(d, "file-status") == "Invalid API key", "the file's refusal")
        driver.find_element("id", "tab-file").send_keys(Keys.ARROW_LEFT)

        # the key typed: the page translates again with it
        want = expected(server)
        field.send_keys(SECRETS["page"])
        until(driver, lambda d: text_of(d, "output") == want, "the translation with the key")
        assert field.get_attribute("aria-invalid") is None and text_of(driver, "status") == ""
        stored = driver.execute_script("return localStorage.getItem('traductor-api-key')")
        assert stored == SECRETS["page"]
        got = translate_file(driver, catalog)
        assert got["name"] == "en.json" and got["report"].startswith("1 filled")

        # a reload (the address holds the text): the key is still there and the text translates at once
        driver.refresh()
        until(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true", "ready")
        assert driver.find_element("id", "api-key").get_attribute("value") == SECRETS["page"]
        until(driver, lambda d: text_of(d, "output") == want, "the translation after the reload")
    finally:
        driver.quit()


def test_over_the_keys_limit_the_page_says_when_to_retry(server):
    driver = browser()
    try:
        open_page(driver, server.url)
        driver.find_element("id", "api-key").send_keys(SECRETS["once"])  # no text: nothing is sent
        # the link's text is translated on opening: the key's one call of the minute
        driver.get(f"{server.url}?source=en&target=es&q={quote(TEXT)}")
        until(driver, lambda d: text_of(d, "output") == expected(server), "the first translation")
        driver.find_element("id", "translate").click()
        until(driver, lambda d: "requests a minute used" in text_of(d, "status"), "the 429's message")
        status = text_of(driver, "status")
        assert status.startswith("key once: 1 requests a minute used") and SECRETS["once"] not in status
        wait = re.search(r"· retry after (\d+) s$", status)
        assert wait and 1 <= int(wait.group(1)) <= 60, status
        assert driver.find_element("id", "api-key").get_attribute("aria-invalid") is None  # the key is good
    finally:
        driver.quit()
