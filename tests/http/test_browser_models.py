"""The translation page in headless Chromium on a server with several models (a model repository
of three copies of the tiny model declaring en->es, en->fr and es->en; each answers
server_harness.MARKER with its own name, so the page's answer says which model made it): the
language lists come from /languages, the pair picks the model for the text and for a file, the
model shown follows the pair, swap works only where a model translates back, HTML is sent as
HTML, and the character count stops a text over the limit."""

from __future__ import annotations

import json

import pytest
from browser_flow import browser, missing, open_page, pick, shots, translate_file, translate_text, translated, until
from server_harness import MARKER, ServerThread, free_port, make_repository, make_settings

pytestmark = pytest.mark.skipif(bool(missing()), reason=missing() or "ok")

PAIRS = {"en-es": ("en", "es"), "en-fr": ("en", "fr"), "es-en": ("es", "en")}
CHAR_LIMIT = 40


@pytest.fixture(scope="module")
def server(tiny_bundle, tmp_path_factory):
    repository = make_repository(tiny_bundle, tmp_path_factory.mktemp("repo"), PAIRS)
    settings = make_settings(
        "",
        model_repository=str(repository),
        default_model="en-es",
        http_port=free_port(),
        max_input_chars=CHAR_LIMIT,
    )
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def options(driver, element: str) -> list[str]:
    return [o.get_attribute("value") for o in driver.find_elements("css selector", f"#{element} option")]


def test_the_page_chooses_among_the_models(server, tmp_path):
    driver = browser()
    try:
        open_page(driver, server.url)
        # the lists are /languages': sources with a target, the targets of the chosen source
        assert options(driver, "source") == ["en", "es"] and options(driver, "target") == ["es", "fr"]
        about = driver.find_element("id", "about")
        assert about.text.endswith("model en-es")  # the default model's pair first

        seen = translate_text(driver, server.url, MARKER, "en", "fr")
        assert seen["output"] == seen["expected"] == "[en-fr]"  # the stream came from en-fr
        assert about.text.endswith("model en-fr") and driver.find_element("id", "swap").get_attribute("disabled")
        assert "No model translates fr to en" in driver.find_element("id", "swap").get_attribute("title")
        driver.save_screenshot(str(shots(tmp_path) / "web-models.png"))  # docs/web.md's

        seen = translate_text(driver, server.url, MARKER, "en", "es")
        assert seen["output"] == "[en-es]" and about.text.endswith("model en-es")
        driver.find_element("id", "swap").click()  # es-en exists: the pair turns round
        until(driver, lambda d: d.find_element("id", "source").get_attribute("value") == "es", "the swap")
        assert options(driver, "target") == ["en", "fr"] and about.text.endswith("model es-en")  # fr through English
        assert driver.find_element("id", "input").get_attribute("value") == "[en-es]"
        pick(driver, "es", "fr")  # no model: through English, both named
        until(driver, lambda d: about.text.endswith("model es-en + en-fr, through English"), "the pivot's models")

        html = "<p>uno <b>dos</b></p>"
        seen = translate_text(driver, server.url, html, "en", "fr", fmt="html")
        assert seen["output"] == translated(server.url, html, "html", "en", "fr")

        box = driver.find_element("id", "input")
        box.clear()
        box.send_keys("x" * (CHAR_LIMIT + 1))
        count = driver.find_element("id", "count")
        until(driver, lambda d: count.text == f"{CHAR_LIMIT + 1} / {CHAR_LIMIT}", "the count")
        assert "over" in count.get_attribute("class")
        assert driver.find_element("id", "translate").get_attribute("disabled")  # nothing is sent

        # a file goes to the pair's model too
        pick(driver, "en", "fr")
        source = tmp_path / "en.json"
        source.write_text(json.dumps({"title": MARKER, "menu": {"open": MARKER, "n": 3}}))
        got = translate_file(driver, source)
        assert json.loads(got["data"]) == {"title": "[en-fr]", "menu": {"open": "[en-fr]", "n": 3}}
        assert got["name"] == "en.json" and got["report"].startswith("2 filled")
    finally:
        driver.quit()
