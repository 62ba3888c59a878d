"""A fresh server serves every packaged language (issue 33): the packaged repository as `traductor
serve` runs it with no flags, over gRPC, HTTP and the CLIs; the text layer (lines, paragraphs,
HTML, placeholders, quotes) in French and German, and what each language's catalogs do (French
spaces before `:;?!`, German capitalised nouns). The translation memory is off where the test is
about the model, on where it is about what users get.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from cli_harness import run_error
from server_harness import ServerThread, free_port, make_settings, translate_request

from traductor.engine.bundle import scan
from traductor.packaged import DEFAULT_MODEL, MODELS_DIR
from traductor_client.v1 import translator_pb2 as pb

sys.path.insert(0, str(Path(__file__).parent.parent / "http"))
from http_harness import call  # noqa: E402

LANGUAGES = {"en-es": "es", "en-fr": "fr", "en-de": "de"}
SPACES = " \u00a0\u202f"  # before French ":;?!": a space, a no-break space or a narrow one


@pytest.fixture(scope="module")
def server():
    """The packaged repository, as `traductor serve` serves it without --model or --model-repository."""
    settings = make_settings("", default_model=DEFAULT_MODEL, http_port=free_port(), use_memory=False)
    s = ServerThread(settings)
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


def translate(server, text: str, target: str, format=pb.FORMAT_TEXT) -> str:
    request = translate_request(text)
    request.target_language, request.format = target, format
    return server.stub.Translate(request, timeout=120).text


def test_every_packaged_language_is_served(server):
    assert set(LANGUAGES) <= set(scan(MODELS_DIR))
    listed = {
        m.name: [(p.source, p.target) for p in m.languages]
        for m in server.stub.ListModels(pb.ListModelsRequest()).models
    }
    assert {name: pairs for name, pairs in listed.items() if name in LANGUAGES} == {
        name: [("en", target)] for name, target in LANGUAGES.items()
    }
    languages = {entry["code"]: entry for entry in call(server.url + "languages").json()}
    assert {"de", "es", "fr"} <= set(languages["en"]["targets"])  # and the languages added since (it)
    assert languages["en"]["targets"] == sorted(languages["en"]["targets"])
    assert [languages[c]["name"] for c in ("de", "es", "fr")] == ["German", "Spanish", "French"]


@pytest.mark.parametrize("target", ["fr", "de", "FR", "de-DE", "fra", "deu"])
def test_each_language_answers_in_its_own_words(server, target):
    """Routed by the target alone, in any form of its code: not Spanish, not the source."""
    out = translate(server, "Save the file", target)
    spanish = translate(server, "Save the file", "es")
    assert out and out != "Save the file" and out != spanish


def test_paragraphs_lines_and_placeholders_in_each_language(server):
    text = "Could not open the file %s.\nThe disk is full. Delete some files and try again."
    for target in ("fr", "de"):
        out = translate(server, text, target)
        lines = out.split("\n")
        assert len(lines) == 2 and "%s" in lines[0] and all(line.strip() for line in lines), (target, out)


def test_html_keeps_its_tags_in_each_language(server):
    text = "<b>Warning:</b> the file <i>%s</i> is read-only."
    for target in ("fr", "de"):
        out = translate(server, text, target, pb.FORMAT_HTML)
        assert out.index("<b>") < out.index("</b>") < out.index("<i>") < out.index("</i>"), (target, out)
        assert "%s" in out


def test_french_spaces_before_high_punctuation(server):
    """Most French catalogs put a (no-break) space before : ; ? ! (docs/model-card.md)."""
    for text, mark in [("Are you sure?", "?"), ("Warning: the disk is full", ":")]:
        out = translate(server, text, "fr")
        at = out.index(mark)
        assert at > 0 and out[at - 1] in SPACES, out


def test_german_capitalises_its_nouns(server):
    out = translate(server, "Open the file", "de")
    assert "Datei" in out, out


def test_quotes_around_a_placeholder_keep_it(server):
    for target in ("fr", "de"):
        out = translate(server, 'Cannot find "%s".', target)
        assert "%s" in out and out != 'Cannot find "%s".', (target, out)


def test_translate_cli_to_each_packaged_language(monkeypatch, capsys):
    from traductor.cli import main

    for target in ("fr", "de", "es"):
        monkeypatch.setattr("sys.stdin", io.StringIO("Permission denied\n"))
        assert main(["translate", "--to", target, "--threads", "1"]) == 0
        out = capsys.readouterr().out.strip()
        assert out and out != "Permission denied", (target, out)


PIVOT_LINES = [
    "Die Datei %s konnte nicht gespeichert werden.",
    "Klicken Sie auf <b>OK</b>, um fortzufahren.",
    "Fehler beim Öffnen von https://example.org/a.txt: Zugriff verweigert",
]


def test_translate_cli_goes_through_english_as_the_server_does(server, monkeypatch, capsys):
    """`traductor translate --from de --to fr`: no packaged model translates de -> fr, so de-en then
    en-fr, the text the server's pivot answers, line for line (placeholders, markup and URLs kept)."""
    from traductor.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in PIVOT_LINES)))
    assert main(["translate", "--from", "de", "--to", "fr", "--threads", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    served = []
    for text in PIVOT_LINES:
        request = translate_request(text)
        request.source_language, request.target_language = "de", "fr"
        served.append(server.stub.Translate(request, timeout=120).text)
    assert lines == served
    assert "%s" in lines[0] and "https://example.org/a.txt" in lines[2]
    assert lines[1].count("<b>") == lines[1].count("</b>") == 1 and lines[0] != PIVOT_LINES[0]


def test_evaluate_through_english_and_its_refusals(tmp_path, capsys, monkeypatch):
    from traductor.cli import main

    split = tmp_path / "test.tsv"
    split.write_text("Die Datei %s konnte nicht gespeichert werden.\tImpossible d'enregistrer le fichier %s.\n")
    assert main(["evaluate", "--from", "de", "--to", "fr", "--corpus", str(split), "--threads", "1"]) in (None, 0)
    report = json.loads(capsys.readouterr().out)
    assert report["through_english"] == ["de-en", "en-fr"] and report["placeholders"] == 1.0
    for flags, message in (
        (["--no-segment"], "--no-segment decodes with one model"),
        (["--device", "cpu"], "goes through English: --device runs one model only"),
        (["--engine", "pytorch"], "--from/--to pick a packaged bundle; --engine pytorch runs the checkpoint"),
    ):
        run_error(["evaluate", "--from", "de", "--to", "fr", "--corpus", str(split), *flags], capsys, message)
    for source, target in (("de", "pl"), ("de", "de-AT")):  # no route; the same language is no pair to pivot
        monkeypatch.setattr("sys.stdin", io.StringIO("Hallo\n"))
        run_error(["translate", "--from", source, "--to", target], capsys, f"no packaged model translates {source}->")


def test_translate_cli_through_english_takes_the_second_models_registers(monkeypatch, capsys):
    """de -> it is de-en then en-it, which delivers the informal register by its tag and the formal
    one by rewriting its informal output (config.json's register_rewrites: service/pipeline/register.py,
    reading the English between the hops): each comes out in the register asked, and `prefer_more`
    is `more` now that the model delivers it."""
    from traductor.cli import main
    from traductor.text import address

    def run(*flags: str) -> str:
        monkeypatch.setattr("sys.stdin", io.StringIO("Möchtest du die Datei speichern?\n"))
        assert main(["translate", "--from", "de", "--to", "it", "--threads", "1", *flags]) == 0
        out = capsys.readouterr()
        assert "review it" not in out.err  # not flagged
        return out.out.strip()

    less, more = run("--formality", "less"), run("--formality", "more")
    assert (
        address.read(less, "it") == address.INFORMAL
        and address.read(more, "it", "Do you want to save the file?") == address.FORMAL
    )
    assert run("--formality", "prefer_more") == more


def test_formal_italian_and_brazilian_portuguese_by_rewrite_on_every_interface(server):
    """en-it and en-pt-BR deliver the formal register by rewriting their informal output (issue 55):
    DeepL lists them with supports_formality, and `more` comes out formal through DeepL's route, a
    gRPC stream (which sends the rewritten words only: its deltas join into the unary text) and
    TranslateBatch; `less` stays informal."""
    from traductor.text import address

    listed = call(server.url + "v2/languages", query={"type": "target"}).json()
    formality = {x["language"]: x["supports_formality"] for x in listed}
    assert formality["IT"] is True and formality["PT-BR"] is True and formality["NL"] is True
    source = "Do you want to save your changes?"
    for target, code in (("it", "IT"), ("pt-BR", "PT-BR")):
        form = {"text": source, "target_lang": code, "formality": "more"}
        deepl = call(server.url + "v2/translate", "POST", form=form).json()["translations"][0]["text"]
        request = translate_request(source)
        request.target_language, request.formality = target, "more"
        messages = list(server.stub.TranslateStream(request, timeout=120))
        streamed = "".join(m.text_delta for m in messages)
        unary = server.stub.Translate(request, timeout=120)
        batch = server.stub.TranslateBatch(
            pb.TranslateBatchRequest(texts=[source, "Close"], target_language=target, formality="more"), timeout=120
        )
        assert deepl == streamed == unary.text == batch.results[0].text, target
        assert address.read(unary.text, target, source) == address.FORMAL, unary.text
        request.formality = "less"
        informal = server.stub.Translate(request, timeout=120).text
        assert address.read(informal, target, source) == address.INFORMAL, informal
