"""`po` and `translate-file` as a new user runs them: the same flags under the same names, an
output folder that does not exist yet, and a bad output path refused before any translating.
The service is tests/client/conftest.py's fake (it answers "[es] TEXT")."""

from __future__ import annotations

import pytest
from file_samples import SAMPLES

from traductor_client.cli import main


def run(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_an_output_folder_that_does_not_exist_is_created(fake, tmp_path, capsys):
    source = tmp_path / "en.json"
    source.write_bytes(SAMPLES["en.json"])
    out = tmp_path / "new" / "deeper" / "es.json"
    status, stdout, err = run(capsys, "translate-file", source, "-o", out, "--target", fake.address)
    assert status == 0, err
    assert out.exists() and b"[es]" in out.read_bytes() and f"written to {out}" in stdout


@pytest.mark.parametrize("command", ["translate-file", "po"])
def test_an_output_that_cannot_be_written_is_refused_before_any_translating(fake, tmp_path, capsys, command):
    source = tmp_path / "messages.po"
    source.write_bytes(SAMPLES["messages.po"])
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    status, _, err = run(capsys, command, source, "-o", blocker / "out.po", "--target", fake.address)
    assert status == 2 and f"{blocker} is a file, not a folder" in err and err.count("\n") == 1
    assert fake.texts == []  # nothing was sent
    status, _, err = run(capsys, command, source, "-o", tmp_path, "--target", fake.address)
    assert status == 2 and "is a folder, not a file to write" in err and fake.texts == []


@pytest.mark.parametrize("command", ["translate-file", "po"])
@pytest.mark.parametrize("include, mark", [("--include-review", "--no-review-mark"), ("--include-fuzzy", "--no-fuzzy")])
def test_po_and_translate_file_take_the_same_flags(fake, tmp_path, capsys, command, include, mark):
    """Both commands read --include-review/--no-review-mark, and gettext's words for them; the
    summary names the flag both know."""
    source = tmp_path / "messages.po"
    source.write_bytes(SAMPLES["messages.po"].replace(b'msgid "Open %s"', b'#, fuzzy\nmsgid "Open %s"', 1))
    out = tmp_path / "out.po"
    status, stdout, err = run(capsys, command, source, "-o", out, "--target", fake.address)
    assert status == 0, err
    assert "fuzzy, kept             1  (--include-review retranslates them)" in stdout
    status, stdout, err = run(capsys, command, source, "-o", out, include, mark, "--target", fake.address)
    assert status == 0, err
    assert "fuzzy, kept             0" in stdout
    assert b"#, fuzzy" not in out.read_bytes() and b'msgstr "[es] Open %s"' in out.read_bytes()
