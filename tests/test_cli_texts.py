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


HELP = [
    "  -h, --help          display this help and exit",
    "      --version       output version information and exit",
    "  -v, --verbose\texplain what is being done",
]


def test_help_lines_keep_their_options_and_get_their_descriptions_translated(monkeypatch, capsys):
    """The packaged model on GNU --help lines: the option column byte for byte, the description
    translated (the model gave a run of spaces until its length limit when it saw the gap)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in HELP)))
    assert main(["translate", "--threads", "1"]) == 0
    out, err = capsys.readouterr()
    lines = out.rstrip("\n").split("\n")
    assert err == "" and len(lines) == len(HELP)
    for line, translated in zip(HELP, lines):
        options, description = re.match(r"(\s*-[^\t]*?(?:  +|\t))(\S.*)", line).groups()
        assert translated.startswith(options)
        rest = translated[len(options) :]
        assert rest.strip() and rest != description and re.search(r"[a-záéíóúñ]{3}", rest), translated


class EmptyFirst:
    """A translator whose translation of the first segment has nothing in it."""

    source_language = "en"
    bundle = type("Bundle", (), {"max_len": 64})()

    class tokenizer:  # noqa: N801 - the attribute's name
        @staticmethod
        def encode(text, *languages):  # target, source, register: as Tokenizer.encode takes them
            return text.split(), []

    @staticmethod
    def translate(texts, **_):
        return ["   " if i == 0 else text.upper() for i, text in enumerate(texts)]


def test_a_segment_that_came_back_empty_keeps_its_source_and_is_named_on_stderr(capsys):
    from traductor.cli import translate_texts

    kept: list = []
    assert translate_texts(EmptyFirst, ["Open it. Close it.", "Save."], 1, 8, untranslated=kept) == [
        "Open it. CLOSE IT.",
        "SAVE.",
    ]
    assert kept == [(0, "Open it.")]


def test_a_reader_that_goes_away_ends_translate_quietly(tiny_bundle):
    """`traductor translate | head -1`: status 141 (as SIGPIPE) and nothing on stderr."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "traductor.cli", "translate", "--model", str(tiny_bundle), "--threads", "1"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    _, err = process.communicate(b"uno dos\n" * 5, timeout=120)
    assert (process.returncode, err) == (141, b"")
