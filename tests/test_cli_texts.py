"""`traductor translate` with whole texts: every stdin line is a text, cut into sentences by the
text layer and put back with its own spacing; one output line per input line."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest

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
    """A translator with no bundle (decoded as --engine pytorch is) whose translation of "Open it."
    has nothing in it; the others come back in capitals."""

    source_language, target = "en", "es"
    model = SimpleNamespace(cfg=SimpleNamespace(max_len=64))
    texts: list[str] = []  # token k stands for texts[k - 1]

    class tokenizer:  # noqa: N801 - the attribute's name
        eos_id, controls, placeholder_ids, languages, source_languages = 0, (), (), (), ()
        rewrites: dict = {}  # no register by a rewrite (model/controls.Registers)

        @staticmethod
        def encode(text, *languages):  # target, source, register: as Tokenizer.encode takes them
            EmptyFirst.texts.append(text)
            return [len(EmptyFirst.texts), 0], []

        @staticmethod
        def decode(tokens, values):
            text = EmptyFirst.texts[tokens[0] - 1]
            return "   " if text == "Open it." else text.upper()

    @staticmethod
    def decode(work, batch_size):  # (source ids, beam, max new tokens) -> tokens: the source's
        return [list(ids) for ids, _, _ in work]


def test_a_segment_that_came_back_empty_keeps_its_source_and_is_named_on_stderr(capsys):
    from traductor.offline import translate_texts

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


def run_bytes(bundle, stdin: bytes, monkeypatch, capsysbinary, *flags: str) -> tuple[int, list[bytes], str]:
    """`traductor translate` on stdin's bytes: its status, its stdout lines (bytes), its stderr."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(["translate", "--model", str(bundle), "--threads", "1", *flags])
    out, err = capsysbinary.readouterr()
    assert out.endswith(b"\n")
    return status, out[:-1].split(b"\n"), err.decode()


def test_a_bad_line_is_printed_as_it_was_named_on_stderr_and_the_others_are_translated(
    tiny_bundle, monkeypatch, capsysbinary
):
    """A control character, bytes that are not UTF-8: each such line comes out as it went in,
    stderr names its number and the problem, the lines around it are translated, status 1."""
    (good,) = OnnxTranslator.load(tiny_bundle, threads=1).translate(["uno dos"])  # no end punctuation to lose
    stdin = b"uno dos\nuno \x01 dos.\nuno dos\nuno \xff dos.\nuno dos\n"
    status, out, err = run_bytes(tiny_bundle, stdin, monkeypatch, capsysbinary)
    assert status == 1
    assert out == [good.encode(), b"uno \x01 dos.", good.encode(), b"uno \xff dos.", good.encode()]
    assert err.splitlines() == [
        "traductor translate: line 2: text holds the control character U+0001 at position 4 (characters counted "
        "from 0); only tab, line feed and carriage return are accepted; printed as it was",
        "traductor translate: line 4: not valid UTF-8 (byte 0xFF at byte 4 of the line, counted from 0); "
        "printed as it was",
        "traductor translate: 2 of 5 lines not translated",
    ]


def test_the_servers_input_limits_apply_line_by_line(tiny_bundle, monkeypatch, capsysbinary):
    """By default the limits of `traductor serve` (a 2 MB line is refused before any model work);
    --max-input-chars and --max-segments change them."""
    status, out, err = run_bytes(tiny_bundle, b"a" * 2_000_000 + b"\n42\n", monkeypatch, capsysbinary)
    assert (status, len(out[0]), out[1]) == (1, 2_000_000, b"42")
    assert "line 1: text is 2000000 characters, over the limit of 20000 (--max-input-chars)" in err
    (good,) = OnnxTranslator.load(tiny_bundle, threads=1).translate(["uno dos."])
    stdin = b"uno dos. tres.\nuno dos tres cuatro\n42\nuno dos.\n"
    flags = ("--max-input-chars", "18", "--max-segments", "1")
    status, out, err = run_bytes(tiny_bundle, stdin, monkeypatch, capsysbinary, *flags)
    assert status == 1 and out == [b"uno dos. tres.", b"uno dos tres cuatro", b"42", good.encode()]
    assert "line 1: text is 2 segments, over the limit of 1 (--max-segments)" in err
    assert "line 2: text is 19 characters, over the limit of 18 (--max-input-chars)" in err


def test_the_limits_must_be_positive(tiny_bundle, capsys):
    with pytest.raises(SystemExit):
        main(["translate", "--model", str(tiny_bundle), "--max-input-chars", "0"])
    assert "--max-input-chars: must be at least 1, got 0" in capsys.readouterr().err


def test_every_sentence_goes_through_the_servers_verifier(tiny_bundle, monkeypatch, capsysbinary):
    """The verifier of the serving path (text/verify.py) on each translated sentence: a no-break
    space the tiny model drops comes back where the source has it (repaired, nothing said); a
    sentence that still fails a check is printed all the same and named on stderr with its line
    number and the checks; one line out per line, and the status stays 0."""
    from traductor.text import verify

    repaired, flagged = "uno dos\u00a0%s", "cinco seis\u00a0?"
    raw = OnnxTranslator.load(tiny_bundle, threads=1).translate([repaired, flagged])
    assert "\u00a0" not in raw[0] and verify.verify(repaired, raw[0]).repaired == ("spaces",)  # the model drops it
    stdin = f"{repaired}\n42\n{flagged}\n".encode()
    status, out, err = run_bytes(tiny_bundle, stdin, monkeypatch, capsysbinary)
    assert status == 0 and len(out) == 3 and out[1] == b"42"
    assert out[0].decode() == raw[0].replace(" %s", "\u00a0%s")
    assert out[2].decode() == verify.verify(flagged, raw[1]).text
    (line,) = err.splitlines()
    assert line.startswith(f"traductor translate: line 3: {flagged!r} failed the checks spaces")
    assert line.endswith("; review it")
