"""scripts/measure/formality_eval.py: the verdict per language (the registers whose setting passed,
as config.json's "registers" list) from a stand-in `traductor translate` that answers Italian
lines by register, with --model passed on instead of --to."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "measure" / "formality_eval.py"

# What the stand-in CLI answers, by --formality: `less` all tu, `more` one Lei line and one tu
# line in three (a third informal: fails), `default` neutral
FAKE_CLI = """#!{python}
import json, sys
args = sys.argv[1:]
assert args[0] == "translate" and "--to" not in args, args
json.dump(args, open({log!r}, "a")); open({log!r}, "a").write("\\n")
formality = args[args.index("--formality") + 1]
answers = {{
    "less": ["Vuoi salvare le tue modifiche?", "Inserisci il tuo nome.", "Hai dimenticato la password?"],
    "more": ["Vuole salvare le Sue modifiche?", "Inserisca il Suo nome.", "Hai dimenticato la password?"],
    "default": ["Salvare le modifiche?", "Inserire il nome.", "Password dimenticata?"],
}}[formality]
lines = sys.stdin.read().splitlines()
print("\\n".join(answers[: len(lines)]))
"""


def _load():
    spec = importlib.util.spec_from_file_location("formality_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_cli(tmp_path):
    log = tmp_path / "calls.jsonl"
    cli = tmp_path / "traductor"
    cli.write_text(FAKE_CLI.format(python=sys.executable, log=str(log)))
    cli.chmod(0o755)
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("Do you want to save your changes?\nEnter your name.\nDid you forget your password?\n")
    return cli, log, sentences


def test_verdict_lists_the_registers_that_passed(fake_cli, tmp_path, monkeypatch, capsys):
    cli, log, sentences = fake_cli
    out = tmp_path / "report.json"
    argv = ["formality_eval.py", "--lang", "it", "--model", "/bundles/en-it", "--cli", str(cli)]
    monkeypatch.setattr(sys, "argv", [*argv, "--sentences", str(sentences), "--out", str(out)])
    _load().main()
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == 'it registers ["informal"]'
    report = json.loads(out.read_text())
    assert report["registers"] == {"it": ["informal"]} and report["model"] == "/bundles/en-it"
    less, more = report["languages"]["it"]["less"], report["languages"]["it"]["more"]
    assert (less["in_register"], less["mixed"], less["passes"]) == (100.0, 0, True)
    assert (more["in_register"], more["passes"]) == (66.7, False)
    assert more["counts"] == {"formal": 2, "informal": 1, "mixed": 0, "neutral": 0}
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert all(call[call.index("--model") + 1] == "/bundles/en-it" for call in calls)
    assert [call[call.index("--formality") + 1] for call in calls] == ["default", "less", "more"]


def test_verdict_needs_both_less_and_more():
    module = _load()
    assert module.verdict({"default": {"counts": {}}}) is None
    assert module.verdict({"more": {"passes": True}, "less": {"passes": True}}) == ["formal", "informal"]
    assert module.verdict({"more": {"passes": False}}) is None  # less never tried: no list to paste
    assert module.verdict({"more": {"passes": False}, "less": {"passes": True}}) == ["informal"]


def test_a_test_split_gives_its_sources_that_say_you_once_each(tmp_path):
    split = tmp_path / "test.tsv"
    rows = [
        ("Do you want to quit?", "Vuoi uscire?"),
        ("File saved.", "File salvato."),  # no "you": not measured
        ("Enter your name.", "Inserisci il tuo nome."),  # "your" alone: not measured (the word "you" is)
        ("Did you save it?", "L'hai salvato?"),
        ("Do you want to quit?", "Vuoi davvero uscire?"),  # the same source twice: once
        ("Youth hostel", "Ostello"),  # "Youth" is no "you"
    ]
    split.write_text("".join(f"{s}\t{t}\n" for s, t in rows), encoding="utf-8")
    assert _load().split_sentences(split) == ["Do you want to quit?", "Did you save it?"]


def test_bad_arguments_are_refused_in_one_line(monkeypatch, capsys):
    module = _load()
    for argv, message in (
        (["--lang", "sv"], "no register rules for 'sv'"),
        (["--lang", "it", "--lang", "ru", "--model", "/x"], "--model takes one --lang"),
    ):
        monkeypatch.setattr(sys, "argv", ["formality_eval.py", *argv])
        with pytest.raises(SystemExit) as exit_:
            module.main()
        assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_brazilian_portuguese_is_judged_where_the_english_says_you():
    """ "Digite seu nome" is right in both registers: only sentences with "you" count towards the
    90%, and the others fail the setting only when they are in the other register."""
    measure = _load().measure
    sentences = ["Do you want to save your changes?", "Enter your name.", "Are you sure?"]
    formal = ["O senhor deseja salvar suas alterações?", "Digite seu nome.", "O senhor tem certeza?"]
    result = measure(sentences, formal, "pt-BR", "formal")
    assert (result["in_register"], result["judged"], result["others_off_register"]) == (100.0, 2, 0)
    assert result["passes"] and result["counts"]["neutral"] == 1
    # a "you" sentence left without its pronoun counts against the register asked
    dropped = ["Deseja salvar suas alterações?", "Digite seu nome.", "O senhor tem certeza?"]
    result = measure(sentences, dropped, "pt-BR", "formal")
    assert result["in_register"] == 50.0 and not result["passes"]
    # an imperative sentence in the other register fails the setting
    informal_elsewhere = ["O senhor deseja salvar?", "Digite seu nome, você.", "O senhor tem certeza?"]
    result = measure(sentences, informal_elsewhere, "pt-BR", "formal")
    assert result["others_off_register"] == 1 and not result["passes"]
    # other languages keep counting every sentence
    it = measure(["Enter your name."], ["Inserire il nome."], "it", "formal")
    assert it["in_register"] == 0.0 and "judged" not in it
