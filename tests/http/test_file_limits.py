"""A server with small file limits and a token: the size and units limits are refused with their
flag named, the key is required by /translate_file as by /translate (and the page asks for it),
and a result that is not downloaded expires (the store's clock is the test's)."""

from __future__ import annotations

import pytest
from browser_flow import browser, missing, open_page, until
from http_harness import call, multipart

from traductor.errors import NotFound, QueueFull
from traductor.service.http.files import Results


@pytest.fixture(scope="module")
def server_settings() -> dict:
    return {"max_file_bytes": 1000, "max_file_units": 2, "token": "secret"}


def upload(server, filename, data, **fields):
    body, headers = multipart({"source": "en", "target": "es", **fields}, {"file": (filename, data)})
    return call(server.url + "translate_file", "POST", data=body, headers=headers)


def test_size_and_units_limits_name_their_flags(server):
    big = upload(server, "big.txt", b"uno dos tres. " * 100, api_key="secret")
    assert big.status == 400 and "more than the limit of 1000 (--max-file-bytes)" in big.json()["error"]
    many = upload(server, "many.txt", b"uno\n\ndos\n\ntres\n", api_key="secret")
    assert many.status == 400 and "3 units, more than the limit of 2 (--max-file-units)" in many.json()["error"]
    huge = upload(server, "huge.txt", b"x" * (1 << 20) + b"x" * 100_000, api_key="secret")  # over the body limit
    assert huge.status == 413 and "--max-file-bytes" in huge.json()["error"]


def test_key_required(server):
    assert upload(server, "a.txt", b"uno dos").status == 403
    assert upload(server, "a.txt", b"uno dos", api_key="wrong").status == 403
    assert upload(server, "a.txt", b"uno dos", api_key="secret").status == 200


def test_results_expire_and_are_bounded():
    now = [0.0]
    results = Results(ttl=600, capacity=2, clock=lambda: now[0])
    first = results.put("a.po", b"A")
    results.put("b.po", b"B")
    with pytest.raises(QueueFull):
        results.put("c.po", b"C")
    now[0] = 599.0
    assert results.take(first).data == b"A" and len(results) == 1
    now[0] = 600.0
    assert len(results) == 0  # expired, unfetched
    with pytest.raises(NotFound, match="kept 600 s, until its first download"):
        results.take(first)


@pytest.mark.skipif(bool(missing()), reason=missing() or "ok")
def test_the_page_asks_for_the_key_when_one_is_required(server):
    """On a server with a token the page shows the key field; without the key the translation is
    refused with the server's message, with it the streamed translation equals /translate's."""
    from selenium.webdriver.common.keys import Keys

    driver = browser()
    try:
        open_page(driver, server.url)
        assert driver.find_element("id", "key-field").is_displayed()
        box = driver.find_element("id", "input")
        box.send_keys("uno dos tres", Keys.CONTROL, Keys.ENTER)
        until(driver, lambda d: d.find_element("id", "status").text == "Invalid API key", "the refusal")
        driver.find_element("id", "api-key").send_keys("secret")
        box.send_keys(Keys.CONTROL, Keys.ENTER)
        body = {"q": "uno dos tres", "source": "en", "target": "es", "api_key": "secret"}
        expected = call(server.url + "translate", "POST", json_body=body).json()["translatedText"]
        until(driver, lambda d: d.find_element("id", "output").text == expected.strip(), "the translation")
    finally:
        driver.quit()
