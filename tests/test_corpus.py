"""`traductor corpus`: .mo catalogs written here -> filtered pairs, whole catalogs held out, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import run_error
from gettext_files import HEADER, write_mo

from traductor.cli import main
from traductor.training.corpus import CorpusError, build, read_mo

CATALOGS = {
    "coreutils": [
        ("", HEADER),  # header entry: skipped
        ("write error", "error de escritura"),  # also in a test catalog: not in train
        ("one file\0%d files", "un archivo\0%d archivos"),  # plural: two pairs
        ("menu\x04Open", "Abrir"),  # context: stripped
        ("OK", "OK"),  # identical: dropped
        ("line one\nline two", "línea uno\nlínea dos"),  # multi-line: dropped
        ("untranslated", ""),  # empty translation: dropped
        ("Permission denied", "Permiso denegado"),
    ],
    "bash": [
        ("", HEADER),
        ("Permission denied", "Permiso denegado"),  # the same pair in another catalog: once in train
        ("cannot open %s", "no se puede abrir %s"),  # also in the dev catalog: not in train
    ],
    "sed": [("", HEADER), ("missing command", "falta una orden"), ("cannot open %s", "no se puede abrir %s")],
    "grep": [("", HEADER), ("write error", "error de escritura"), ("invalid regex", "expresión regular inválida")],
}


@pytest.fixture
def catalogs(tmp_path) -> Path:
    d = tmp_path / "locale"
    d.mkdir()
    for name, entries in CATALOGS.items():
        write_mo(d / f"{name}.mo", entries)
    return d


def read_split(path: Path) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")) for line in path.read_text(encoding="utf-8").splitlines()]


def test_read_mo_pairs(catalogs):
    """Header skipped, plural as two pairs, context stripped; filtering is not read_mo's job."""
    assert sorted(read_mo(catalogs / "coreutils.mo")) == sorted(
        [
            ("write error", "error de escritura"),
            ("one file", "un archivo"),
            ("%d files", "%d archivos"),
            ("Open", "Abrir"),
            ("OK", "OK"),
            ("line one\nline two", "línea uno\nlínea dos"),
            ("untranslated", ""),
            ("Permission denied", "Permiso denegado"),
        ]
    )


def test_read_mo_big_endian(tmp_path):
    """A big-endian catalog reads the same as a little-endian one."""
    entries = [("", HEADER), ("hello", "hola"), ("bye", "adiós")]
    little = read_mo(write_mo(tmp_path / "le.mo", entries))
    assert (
        read_mo(write_mo(tmp_path / "be.mo", entries, big_endian=True))
        == little
        == [("bye", "adiós"), ("hello", "hola")]
    )


def test_build_counts_and_splits(catalogs, tmp_path):
    """Counts after filtering; dev/test are whole catalogs; train has no dev/test source; no duplicates."""
    stats = build(tmp_path / "out", catalogs, dev=("sed",), test=("grep",))
    assert stats["pairs_read"] == 11 and stats["catalogs"] == 4
    assert (stats["train_pairs"], stats["dev_pairs"], stats["test_pairs"]) == (4, 2, 2)
    assert json.loads((tmp_path / "out" / "stats.json").read_text()) == stats
    train = read_split(tmp_path / "out" / "train.tsv")
    dev = read_split(tmp_path / "out" / "dev.tsv")
    test = read_split(tmp_path / "out" / "test.tsv")
    assert sorted((s, t) for s, t, _ in train) == [
        ("%d files", "%d archivos"),
        ("Open", "Abrir"),
        ("Permission denied", "Permiso denegado"),
        ("one file", "un archivo"),
    ]
    assert {c for *_, c in dev} == {"sed"} and {c for *_, c in test} == {"grep"}
    assert {c for *_, c in train} <= {"coreutils", "bash"}
    held_out = {s for s, *_ in dev + test}
    assert not held_out & {s for s, *_ in train}
    assert ("invalid regex", "expresión regular inválida", "grep") in test


def test_build_is_deterministic(catalogs, tmp_path):
    """The same catalogs give byte-identical split files, whatever the order they were written in."""
    build(tmp_path / "a", catalogs, dev=("sed",), test=("grep",))
    other = tmp_path / "locale2"
    other.mkdir()
    for name in reversed(list(CATALOGS)):
        (other / f"{name}.mo").write_bytes((catalogs / f"{name}.mo").read_bytes())
    build(tmp_path / "b", other, dev=("sed",), test=("grep",))
    for name in ("train.tsv", "dev.tsv", "test.tsv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_cli_corpus(catalogs, tmp_path, capsys):
    """`traductor corpus` writes the splits and prints the stats as JSON."""
    code = main(
        ["corpus", "--out", str(tmp_path / "out"), "--catalogs", str(catalogs), "--dev", "sed", "--test", "grep"]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["train_pairs"] == 4


def test_cli_missing_catalog_dir(tmp_path, capsys):
    """A catalog directory that does not exist is a one-line error naming it."""
    run_error(
        ["corpus", "--out", str(tmp_path / "o"), "--catalogs", str(tmp_path / "nope")], capsys, "no gettext catalogs"
    )


def test_cli_empty_catalog_dir(tmp_path, capsys):
    """An empty catalog directory says what to install."""
    (tmp_path / "empty").mkdir()
    err = run_error(
        ["corpus", "--out", str(tmp_path / "o"), "--catalogs", str(tmp_path / "empty")], capsys, "no gettext catalogs"
    )
    assert str(tmp_path / "empty") in err


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda b: b"not a catalog at all, but long enough", "bad magic number"),
        (lambda b: b[:20], "too short"),
        (lambda b: b[:40], "corrupt .mo file"),  # tables cut off
        (lambda b: b[:-30], "corrupt .mo file"),  # strings cut off
        (lambda b: b.replace("Permiso".encode(), b"\xff\xfe\xfdmiso"), "corrupt .mo file"),  # not UTF-8
    ],
)
def test_cli_corrupt_mo(catalogs, tmp_path, capsys, damage, message):
    """A damaged catalog is a one-line error naming the file, not a traceback."""
    path = catalogs / "coreutils.mo"
    path.write_bytes(damage(path.read_bytes()))
    err = run_error(
        ["corpus", "--out", str(tmp_path / "o"), "--catalogs", str(catalogs), "--dev", "sed", "--test", "grep"],
        capsys,
        message,
    )
    assert "coreutils.mo" in err


def test_cli_unreadable_mo(catalogs, tmp_path, capsys):
    """A *.mo that cannot be read (here a directory) is a one-line error naming it."""
    (catalogs / "broken.mo").mkdir()
    err = run_error(
        ["corpus", "--out", str(tmp_path / "o"), "--catalogs", str(catalogs), "--dev", "sed", "--test", "grep"],
        capsys,
        "broken.mo",
    )
    assert "cannot read" in err


def test_cli_held_out_catalog_missing(catalogs, tmp_path, capsys):
    """Naming a dev catalog that is not there is an error, not an empty dev set."""
    run_error(
        ["corpus", "--out", str(tmp_path / "o"), "--catalogs", str(catalogs), "--dev", "nosuch", "--test", "grep"],
        capsys,
        "the dev split is empty",
    )


def test_build_raises_corpus_error(tmp_path):
    """The library raises CorpusError (what the CLI turns into exit status 2)."""
    with pytest.raises(CorpusError, match="no gettext catalogs"):
        build(tmp_path / "o", tmp_path)
