"""Screenshots of the translation page for docs/web.md, on the default model, in headless Chromium.

    python scripts/figures/web_screenshots.py [--out docs/web]

Starts `traductor serve --http-port` on free ports (the bundled default model, one thread),
drives the page with the browser tests' own steps (tests/http/browser_flow.py): a text typed and
streamed, a gettext catalog uploaded and downloaded (checked with msgfmt --check), the page at a
phone's width, then English -> German with the formality selector on "Informal". Writes
web-text.png, web-file.png, web-phone.png, web-formality.png, and demo.po / demo.es.po / msgfmt.txt
(the catalog's round trip) into --out. Stops the server when done.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "http"))

from browser_flow import browser, missing, open_page, pick, translate_file, translate_text, until  # noqa: E402

TEXT = "Save the file before closing.\nThe repository is empty. Run git init first."
INFORMAL = "You must restart the application to apply your changes."  # in German, "du" asked
CATALOG = r"""# Demo catalog for the translation page.
msgid ""
msgstr ""
"Project-Id-Version: demo 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: src/main.c:12
#, c-format
msgid "cannot open file %s"
msgstr ""

#: src/main.c:40
msgid "Permission denied"
msgstr ""

#: src/main.c:51
#, c-format
msgid "One file removed"
msgid_plural "%d files removed"
msgstr[0] ""
msgstr[1] ""

#: src/ui.c:7
msgid "Quit"
msgstr "Salir"
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(base: str, server: subprocess.Popen, seconds: float = 120) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if server.poll() is not None:
            raise SystemExit(f"traductor serve exited with {server.returncode}")
        try:
            opener.open(base + "languages", timeout=2).read()
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the HTTP API did not answer in time")


def formality_step(driver, base: str) -> str:
    """English -> German, "Informal" in the formality selector (shown for models trained with a
    register), INFORMAL typed; the translation, once it equals /translate's with formality=less."""
    import json

    from selenium.webdriver.support.ui import Select

    pick(driver, "en", "de")
    until(driver, lambda d: d.find_element("id", "formality-field").is_displayed(), "the formality selector")
    Select(driver.find_element("id", "formality")).select_by_value("less")
    body = json.dumps({"q": INFORMAL, "source": "en", "target": "de", "formality": "less"}).encode()
    request = urllib.request.Request(base + "translate", body, {"Content-Type": "application/json"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=60) as answer:
        expected = json.loads(answer.read())["translatedText"]
    box = driver.find_element("id", "input")
    box.clear()
    box.send_keys(INFORMAL)
    until(driver, lambda d: d.find_element("id", "output").text == expected.strip(), "the informal translation")
    until(driver, lambda d: d.find_element("id", "status").text == "", "the stream's end")
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "web")
    args = parser.parse_args()
    if missing():
        raise SystemExit(missing())
    args.out.mkdir(parents=True, exist_ok=True)
    http_port = free_port()
    command = ["traductor", "serve", "--host", "127.0.0.1", "--port", str(free_port()), "--metrics-port", "0"]
    command += ["--http-port", str(http_port), "--threads", "1"]
    server = subprocess.Popen(command)
    base = f"http://127.0.0.1:{http_port}/"
    driver = None
    try:
        wait_http(base, server)
        driver = browser()
        open_page(driver, base)
        seen = translate_text(driver, base, TEXT)
        assert seen["output"] == seen["expected"], seen
        driver.save_screenshot(str(args.out / "web-text.png"))
        catalog = args.out / "demo.po"
        catalog.write_text(CATALOG)
        got = translate_file(driver, catalog)
        (args.out / "demo.es.po").write_text(got["data"])
        driver.save_screenshot(str(args.out / "web-file.png"))
        check = subprocess.run(
            ["msgfmt", "--check", "--statistics", "-o", "/dev/null", "demo.es.po"],
            capture_output=True,
            text=True,
            cwd=args.out,
        )
        (args.out / "msgfmt.txt").write_text(f"$ msgfmt --check --statistics -o /dev/null demo.es.po\n{check.stderr}")
        driver.set_window_size(390, 844)
        driver.find_element("id", "tab-text").click()
        driver.save_screenshot(str(args.out / "web-phone.png"))
        driver.set_window_size(1280, 900)
        informal = formality_step(driver, base)
        driver.save_screenshot(str(args.out / "web-formality.png"))
        print(f"en -> de, formality less: {informal}")
        print(f"screenshots and the catalog's round trip in {args.out}; msgfmt exit {check.returncode}")
        print(got["report"])
        return check.returncode
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
