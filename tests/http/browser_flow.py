"""The translation page driven in a real Chromium (selenium with Debian's chromium and
chromium-driver): what a person does, step by step. Used by tests/http/test_browser.py on the tiny
model and by scripts/figures/web_screenshots.py on the default model for docs/web.md's screenshots."""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
WAIT = 60


def missing() -> str:
    """Why the browser cannot run here ("" when it can)."""
    absent = [package for package, found in (("chromium", CHROMIUM), ("chromium-driver", CHROMEDRIVER)) if not found]
    if absent:
        what = " and ".join(absent)
        return f"{what} not installed (apt-get install {' '.join(absent)}; scripts/setup.sh does it as root)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium; the test extra has it)"
    return ""


def shots(default: Path) -> Path:
    """Where a test saves its screenshots: $TRADUCTOR_SCREENSHOTS when set, else `default`."""
    folder = Path(os.environ.get("TRADUCTOR_SCREENSHOTS") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def browser(width: int = 1280, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=en-US"):
        options.add_argument(flag)
    options.add_argument(f"--window-size={width},{height}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(WAIT)
    return driver


def translated(base: str, text: str, fmt: str = "text", source: str = "en", target: str = "es") -> str:
    """/translate's answer, through the standard library (no proxy)."""
    body = json.dumps({"q": text, "source": source, "target": target, "format": fmt}).encode()
    request = urllib.request.Request(base + "translate", body, {"Content-Type": "application/json"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=WAIT) as answer:
        return json.loads(answer.read())["translatedText"]


def until(driver, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(lambda d: condition(d), message=what)


def open_page(driver, base: str) -> None:
    driver.get(base)
    until(driver, lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "true", "page ready")


def pick(driver, source: str, target: str) -> None:
    """Choose the pair in the two language lists, as a person does."""
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "source")).select_by_value(source)
    Select(driver.find_element("id", "target")).select_by_value(target)


def translate_text(driver, base: str, text: str, source: str = "en", target: str = "es", fmt: str = "text") -> dict:
    """Pick the pair and the format, type `text`, wait for the streamed translation; returns
    what was seen."""
    pick(driver, source, target)
    driver.find_element("css selector", f"input[name=format][value={fmt}]").click()
    # every value the output box takes while the translation streams in
    driver.execute_script(
        "window.seen = []; const out = document.getElementById('output');"
        "new MutationObserver(() => window.seen.push(out.textContent))"
        ".observe(out, {childList: true, characterData: true, subtree: true});"
    )
    box = driver.find_element("id", "input")
    box.clear()
    box.send_keys(text)
    expected = translated(base, text, fmt, source, target)
    until(driver, lambda d: d.find_element("id", "output").text == expected.strip(), "the streamed translation")
    # the end: no status, or "stopped: length" where the tiny model ran to its length limit
    until(driver, lambda d: d.find_element("id", "status").text in ("", "stopped: length"), "the stream's end")
    return {
        "expected": expected,
        "output": driver.execute_script("return document.getElementById('output').textContent"),
        "seen": driver.execute_script("return window.seen"),
        "count": driver.find_element("id", "count").text,
    }


def translate_file(driver, path: Path) -> dict:
    """Open the Files tab with the keyboard, upload `path`, wait for the download link; returns
    the downloaded bytes (read by the page's own link) and the report shown."""
    from selenium.webdriver.common.keys import Keys

    driver.find_element("id", "tab-text").send_keys(Keys.ARROW_RIGHT)
    until(driver, lambda d: d.find_element("id", "panel-file").is_displayed(), "the Files tab")
    driver.find_element("id", "file").send_keys(str(path))
    driver.find_element("id", "upload").click()
    until(driver, lambda d: d.find_element("id", "download").is_displayed(), "the download link")
    data = driver.execute_async_script(
        "const done = arguments[0];fetch(document.getElementById('download').href).then(r => r.text()).then(done);"
    )
    link = driver.find_element("id", "download")
    return {"data": data, "name": link.get_attribute("download"), "report": driver.find_element("id", "report").text}
