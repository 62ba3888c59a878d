"""Formality from the client library, its CLI (translate, translate-file, loadtest) and the page
(issue 44): on a server of three tiny models, en-de trained with register tags (test_formality.py's
`controls_bundle`), en-it with them but delivering the informal register only, en-pt-BR the formal
one by a rewrite too, and en-es without. A
formality that reaches the model shows in its input: the tag adds 2 source tokens to every text. A
model without a formality refuses "more"/"less": the CLI says so in one line naming the models that
have one, exit status non-zero, no traceback; the page shows its selector only for a pair whose model
has a formality, offers only the registers it delivers, and sends it with texts and files."""

# ruff: noqa: F811 - `server` and `controls_bundle` are test_formality.py's fixtures, named as parameters

from __future__ import annotations

import io
import json

import pytest
from browser_flow import browser, missing, open_page, pick, until
from http_harness import call
from test_formality import controls_bundle, controls_checkpoint, server  # noqa: F401 - en-de with tags, en-es without

from traductor_client import InvalidArgument, TranslatorClient
from traductor_client.cli import main

FORMAL_TOKENS = 2  # "▁" and <formal>/<informal> before each text


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


# -- the library -------------------------------------------------------------------------------------
def test_library_sends_formality_and_reads_which_models_have_it(server):
    with TranslatorClient(server.target) as client:
        plain = client.translate("one two", target_language="de")
        formal = client.translate("one two", target_language="de", formality="more")
        assert formal.usage.input_tokens == plain.usage.input_tokens + FORMAL_TOKENS
        batch = client.translate_batch(["one", "two three"], target_language="de", formality="less")
        plain_batch = client.translate_batch(["one", "two three"], target_language="de")
        assert [r.usage.input_tokens for r in batch] == [r.usage.input_tokens + FORMAL_TOKENS for r in plain_batch]
        final = list(client.stream_events("one two", target_language="de", formality="prefer_more"))[-1]
        assert final.usage.input_tokens == plain.usage.input_tokens + FORMAL_TOKENS
        formality = {m.name: m.formality for m in client.list_models()}
        assert formality == {"en-de": True, "en-it": False, "en-pt-BR": True, "en-es": False}
        assert client.model_info("en-de").formality is True
        assert client.model_info("en-it").registers == ("informal",) and client.model_info("en-es").registers == ()
        with pytest.raises(InvalidArgument, match="formality 'more'"):
            client.translate("one", target_language="es", formality="more")
        with pytest.raises(TypeError, match="formality must be a str"):
            client.translate("one", formality=1)


# -- the CLI -------------------------------------------------------------------------------------------
def _tokens(server, capsys, *flags: str) -> list[int]:
    assert main(["--target", server.target, "translate", "--json", *flags]) == 0
    return [line["usage"]["input_tokens"] for line in _json_lines(capsys.readouterr().out)]


def test_cli_formality_reaches_the_model(server, capsys):
    plain = _tokens(server, capsys, "--to", "de", "one two", "three")
    assert _tokens(server, capsys, "--to", "de", "--formality", "more", "one two", "three") == [
        n + FORMAL_TOKENS for n in plain
    ]
    assert _tokens(server, capsys, "--to", "de", "--formality", "less", "--batch", "one two", "three") == [
        n + FORMAL_TOKENS for n in plain
    ]
    assert (
        main(
            [
                "--target",
                server.target,
                "translate",
                "--json",
                "--stream",
                "--to",
                "de",
                "--formality",
                "less",
                "one two",
            ]
        )
        == 0
    )
    (final,) = [e for e in _json_lines(capsys.readouterr().out) if e["type"] == "final"]
    assert final["usage"]["input_tokens"] == plain[0] + FORMAL_TOKENS
    # "default", and prefer_* on a model without a formality, translate as without the flag
    assert _tokens(server, capsys, "--to", "de", "--formality", "default", "one two", "three") == plain
    assert main(["--target", server.target, "translate", "--to", "es", "one two"]) == 0
    es = capsys.readouterr().out
    assert main(["--target", server.target, "translate", "--to", "es", "--formality", "prefer_less", "one two"]) == 0
    assert capsys.readouterr().out == es


@pytest.mark.parametrize("extra", [[], ["--batch"], ["--stream"]])
def test_cli_refusal_is_one_line_naming_the_problem(server, capsys, extra):
    status = main(["--target", server.target, "translate", "--to", "es", "--formality", "more", *extra, "one"])
    out, err = capsys.readouterr()
    assert status == 1 and out == "" and "Traceback" not in err
    assert err.startswith("traductor-client: INVALID_ARGUMENT: formality 'more': this model has none")
    assert err.endswith("(models with a formality: en-de, en-it (informal only), en-pt-BR)\n") and err.count("\n") == 1


def test_cli_unknown_formality_is_a_usage_error(server, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--target", server.target, "translate", "--formality", "polite", "one"])
    assert exit.value.code == 2 and "invalid choice: 'polite'" in capsys.readouterr().err


def test_cli_formal_and_informal_are_aliases_of_more_and_less(server, capsys):
    """issue 57: both CLIs take DeepL's values; the words `traductor translate` took before are aliases."""
    for alias, value in (("formal", "more"), ("informal", "less")):
        assert _tokens(server, capsys, "--to", "de", "--formality", alias, "one two") == _tokens(
            server, capsys, "--to", "de", "--formality", value, "one two"
        )
    assert main(["--target", server.target, "translate", "--to", "es", "--formality", "formal", "one"]) == 1
    assert "formality 'more': this model has none" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["translate", "--help"])
    assert "formal and informal are accepted as aliases of more and less" in " ".join(capsys.readouterr().out.split())


def test_server_cli_takes_deepl_values_and_the_old_words(controls_bundle, tiny_bundle, monkeypatch, capsys):
    """`traductor translate --formality`: DeepL's values, as traductor-client's; formal/informal still read."""
    from traductor.cli import main as traductor

    def run(bundle, *flags: str) -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO("one two\nthree\n"))
        status = traductor(["translate", "--model", str(bundle), "--threads", "1", *flags])
        out, err = capsys.readouterr()
        return status, out, err

    more, less = run(controls_bundle, "--formality", "more"), run(controls_bundle, "--formality", "less")
    assert more[0] == less[0] == 0 and len(more[1].splitlines()) == 2
    assert run(controls_bundle, "--formality", "formal") == more
    assert run(controls_bundle, "--formality", "informal") == less
    assert run(controls_bundle, "--formality", "prefer_more") == more
    assert run(tiny_bundle, "--formality", "prefer_less")[1] == run(tiny_bundle)[1]  # no formality: its default
    status, out, err = run(tiny_bundle, "--formality", "informal")
    assert status != 0 and out == "" and "formality 'less': this model has none" in err
    with pytest.raises(SystemExit):
        traductor(["translate", "--help"])
    assert "formal and informal are accepted as aliases of more and less" in " ".join(capsys.readouterr().out.split())


def test_cli_info_and_models_say_which_model_has_formality(server, capsys):
    assert main(["--target", server.target, "info", "--model", "en-de"]) == 0
    assert any(line.split() == ["formality", "yes"] for line in capsys.readouterr().out.splitlines())
    assert main(["--target", server.target, "info", "--model", "en-it"]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["formality", "no"] in lines and ["registers", "informal"] in lines
    assert main(["--target", server.target, "models", "--json"]) == 0
    listed = {m["name"]: (m["formality"], m["registers"]) for m in json.loads(capsys.readouterr().out)}
    assert listed == {
        "en-de": (True, ["formal", "informal"]),
        "en-it": (False, ["informal"]),
        "en-pt-BR": (True, ["formal", "informal"]),
        "en-es": (False, []),
    }


def test_translate_file_sends_formality(server, tmp_path, capsys):
    source = tmp_path / "en.json"
    source.write_text(json.dumps({"a": "one two three", "b": "four five"}))

    def input_tokens() -> float:
        return server.metric("traductor_input_tokens_total", {"model": "en-de"})

    counts = []
    for formality in ([], ["--formality", "less"]):
        before = input_tokens()
        out = tmp_path / f"de{len(formality)}.json"
        command = ["--target", server.target, "translate-file", str(source), "--to", "de", "-o", str(out)]
        assert main([*command, "--no-progress", *formality]) == 0
        assert set(json.loads(out.read_text())) == {"a", "b"}
        counts.append(input_tokens() - before)
    assert counts[1] == counts[0] + 2 * FORMAL_TOKENS  # two texts, each with the tag
    capsys.readouterr()

    refused = tmp_path / "es.json"
    command = ["--target", server.target, "translate-file", str(source), "--to", "es", "-o", str(refused)]
    assert main([*command, "--no-progress", "--formality", "more"]) == 2
    out, err = capsys.readouterr()
    assert "INVALID_ARGUMENT: formality 'more'" in err and "nothing was written" in err and "Traceback" not in err
    assert not refused.exists()


def test_loadtest_sends_formality(server, tmp_path, capsys):
    texts = tmp_path / "input.txt"
    texts.write_text("one two\n")
    before = server.metric("traductor_input_tokens_total", {"model": "en-de"})
    command = ["--target", server.target, "loadtest", "--to", "de", "--formality", "more", "--input", str(texts)]
    assert main([*command, "--requests", "2", "--warmup", "0", "--stream-fraction", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["options"]["formality"] == "more"
    with TranslatorClient(server.target) as client:
        plain = client.translate("one two", target_language="de").usage.input_tokens
    after = server.metric("traductor_input_tokens_total", {"model": "en-de"})
    assert after - before == 2 * (plain + FORMAL_TOKENS) + plain


# -- the page --------------------------------------------------------------------------------------------
RECORD = """
window.sent = [];
const originalFetch = window.fetch;
window.fetch = (url, init) => {
  if (String(url).endsWith("/translate_stream")) window.sent.push(JSON.parse(init.body));
  return originalFetch(url, init);
};
const originalSend = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function (body) {
  if (body instanceof FormData) {
    const fields = {};
    for (const [name, value] of body.entries()) if (typeof value === "string") fields[name] = value;
    window.sent.push(fields);
  }
  return originalSend.call(this, body);
};
"""


def _translated(base: str, text: str, target: str, formality: str = "") -> str:
    body = {"q": text, "source": "en", "target": target, **({"formality": formality} if formality else {})}
    return call(base + "translate", "POST", json_body=body).json()["translatedText"]


def _type(driver, base: str, text: str, target: str, formality: str = "") -> dict:
    """Type `text`, wait for the translation /translate gives with `formality`; what the page sent."""
    count = driver.execute_script("return window.sent.length")
    box = driver.find_element("id", "input")
    box.clear()
    box.send_keys(text)
    expected = _translated(base, text, target, formality).strip()
    last = "return window.sent.length > arguments[0] && window.sent[window.sent.length - 1].q"
    until(driver, lambda d: d.execute_script(last, count) == text, "the request")
    until(driver, lambda d: d.find_element("id", "output").text == expected, "the translation")
    until(driver, lambda d: "error" not in d.find_element("id", "status").get_attribute("class"), "no error")
    return driver.execute_script("return window.sent[window.sent.length - 1]")


def _upload(driver, path) -> dict:
    count = driver.execute_script("return window.sent.length")
    driver.find_element("id", "file").send_keys(str(path))
    driver.find_element("id", "upload").click()
    until(driver, lambda d: d.execute_script("return window.sent.length") > count, "the upload")
    until(driver, lambda d: d.find_element("id", "file-status").text.endswith("is translated."), "the file")
    return driver.execute_script("return window.sent[window.sent.length - 1]")


@pytest.mark.skipif(bool(missing()), reason=missing() or "ok")
def test_the_page_offers_formality_where_the_model_has_it(server, tmp_path):
    from selenium.webdriver.support.ui import Select

    settings = call(server.url + "frontend/settings").json()
    assert {m["name"]: m["formality"] for m in settings["models"]} == {
        "en-de": True,
        "en-it": False,
        "en-pt-BR": True,
        "en-es": False,
    }
    driver = browser()
    try:
        open_page(driver, server.url)
        driver.execute_script(RECORD)
        field = driver.find_element("id", "formality-field")
        assert not field.is_displayed()  # the default pair, en-es: its model has none
        pick(driver, "en", "de")
        until(driver, lambda d: field.is_displayed(), "the formality selector")
        values = [o.get_attribute("value") for o in driver.find_elements("css selector", "#formality option")]
        assert values == ["default", "more", "less"]

        assert "formality" not in _type(driver, server.url, "one two three", "de")  # default: not sent
        Select(driver.find_element("id", "formality")).select_by_value("less")
        assert _type(driver, server.url, "one two four", "de", "less")["formality"] == "less"

        pick(driver, "en", "es")  # hidden again, and nothing sent that the model would refuse
        until(driver, lambda d: not field.is_displayed(), "the selector hidden")
        assert "formality" not in _type(driver, server.url, "one two five", "es")

        # en-it delivers the informal register only: "more" cannot be chosen, a chosen "more" is dropped
        pick(driver, "en", "de")
        until(driver, lambda d: field.is_displayed(), "the formality selector")
        Select(driver.find_element("id", "formality")).select_by_value("more")
        pick(driver, "en", "it")
        until(driver, lambda d: d.find_element("id", "formality").get_attribute("value") == "default", "more dropped")
        options = driver.find_elements("css selector", "#formality option")
        assert [o.get_attribute("value") for o in options if o.is_enabled()] == ["default", "less"]
        Select(driver.find_element("id", "formality")).select_by_value("less")
        assert _type(driver, server.url, "one two six", "it", "less")["formality"] == "less"

        # files: the same selector
        driver.find_element("id", "tab-file").click()
        source = tmp_path / "en.json"
        source.write_text(json.dumps({"title": "one two"}))
        pick(driver, "en", "de")
        until(driver, lambda d: field.is_displayed(), "the formality selector")
        Select(driver.find_element("id", "formality")).select_by_value("more")
        fields = _upload(driver, source)
        assert fields["formality"] == "more" and fields["target"] == "de"
        pick(driver, "en", "es")
        assert "formality" not in _upload(driver, source)
    finally:
        driver.quit()
