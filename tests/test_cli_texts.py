"""`traductor translate` with whole texts: every stdin line is a text, cut into sentences by the
text layer and put back with its own spacing; one output line per input line."""

from __future__ import annotations

import io
import re

from traductor.cli import main
from traductor.engine.translator import OnnxTranslator


def run(bundle, stdin: str, monkeypatch, capsys, *flags: str) -> list[str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["translate", "--model", str(bundle), "--threads", "1", *flags]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n")
    return out[:-1].split("\n")


def test_each_line_is_a_text_and_keeps_its_spacing(tiny_bundle, monkeypatch, capsys):
    """Sentences are translated one by one; blank lines, indentation, tabs and pass-through lines stay."""
    sentences = ["uno dos.", "tres cuatro!", "cinco %s", "seis siete.", "ocho."]
    t = dict(zip(sentences, OnnxTranslator.load(tiny_bundle, threads=1).translate(sentences)))
    lines = ["uno dos. tres cuatro!", "", "  cinco %s  ", "42", "seis siete.\tocho."]
    out = run(tiny_bundle, "".join(line + "\n" for line in lines), monkeypatch, capsys)
    assert out == [
        f"{t['uno dos.']} {t['tres cuatro!']}",
        "",
        f"  {t['cinco %s']}  ",
        "42",
        f"{t['seis siete.']}\t{t['ocho.']}",
    ]


def test_html_lines_keep_their_tags(tiny_bundle, monkeypatch, capsys):
    """--format html: each line's tags come back in the same order."""
    line = '<p><b>uno</b> dos. <a href="x">tres</a> cuatro.</p><pre>uno</pre>'
    (out,) = run(tiny_bundle, line + "\n", monkeypatch, capsys, "--format", "html")
    assert re.findall(r"<[^>]+>", out) == re.findall(r"<[^>]+>", line)
    assert "<pre>uno</pre>" in out


def test_lines_with_nothing_to_translate_need_no_model_call(tiny_bundle, monkeypatch, capsys):
    """Blank lines, numbers and placeholders only: printed as they are."""
    assert run(tiny_bundle, "\n  \n42\n%s: %s\n", monkeypatch, capsys) == ["", "  ", "42", "%s: %s"]
