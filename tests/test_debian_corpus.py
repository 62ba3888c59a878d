"""`traductor corpus` on Debian packages built here with dpkg-deb (no network, no install).

Sixteen packages, four of each kind of program, each with two messages of its own and the shared
"Cancel" and "Open" (the gtk ones also "_Quit"); one extra .deb lies in the cache but is not on
the package list.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from gettext_files import make_deb

from traductor.cli import main
from traductor.training import debian

KINDS = {  # kind -> (section, depends, desktop)
    "command-line": ("utils", "libc6", False),
    "gtk": ("gnome", "libgtk-3-0, libc6", False),
    "kde-qt": ("kde", "libkf5coreaddons5, libqt5core5a", False),
    "other": ("games", "libsdl2-2.0-0", True),
}
ES = "usr/share/locale/es/LC_MESSAGES/{}.mo"
FR = "usr/share/locale/fr/LC_MESSAGES/{}.mo"


def package_names() -> dict[str, str]:
    return {f"{kind.split('-')[0]}{i}": kind for kind in KINDS for i in range(4)}


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("debian")
    debs = root / "cache" / "debs"
    for name, kind in package_names().items():
        section, depends, desktop = KINDS[kind]
        own = [(f"{name} says hello", f"{name} saluda"), (f"The {name} file", f"El archivo de {name}")]
        shared = [("Cancel", "Cancelar"), ("Open", "Abrir")] + ([("_Quit", "_Salir")] if kind == "gtk" else [])
        catalogs = {ES.format(name): own + shared, FR.format(name): [("Cancel", "Annuler")]}
        make_deb(debs, name, catalogs, section=section, depends=depends, desktop=desktop)
    # a -data package with no GUI dependency of its own: it takes its source's kind (gtk)
    make_deb(
        debs,
        "gtk0-data",
        {ES.format("gtk0-data"): [("Data only", "Solo datos")]},
        section="misc",
        depends="",
        source="gtk0",
    )
    # a catalog in a program's own folder, and one in Latin-1
    make_deb(
        debs,
        "game-own",
        {"usr/share/game-own/locale/es/LC_MESSAGES/g.mo": [("Level up", "Subir de nivel")]},
        section="games",
        desktop=True,
    )
    make_deb(debs, "latin", {ES.format("latin"): [("Settings", "Configuración")]}, charset="iso-8859-1")
    make_deb(debs, "unlisted", {ES.format("unlisted"): [("Secret message", "Mensaje secreto")]})
    names = sorted(package_names()) + ["gtk0-data", "game-own", "latin"]
    (root / "list.txt").write_text("# packages\n" + "\n".join(names) + "\nmissing-package\n")
    return root


def run_corpus(cache: Path, out: Path, *extra: str) -> dict:
    argv = [
        "corpus",
        "--out",
        str(out),
        "--cache",
        str(cache / "cache"),
        "--packages",
        str(cache / "list.txt"),
        "--offline",
        "--quiet",
        "--test-pairs",
        "1",
        "--dev-pairs",
        "1",
        *extra,
    ]
    assert main(argv) == 0
    return json.loads((out / "stats.json").read_text())


def rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def built(cache, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("corpus")
    return out, run_corpus(cache, out)


def test_reads_only_listed_packages_and_reports_the_rest(built):
    out, stats = built
    assert stats["packages_with_catalogs"] == 19
    assert stats["packages_not_in_cache"] == ["missing-package"]
    text = "".join((out / f).read_text(encoding="utf-8") for f in ("train.tsv", "dev.tsv", "test.tsv", "common.tsv"))
    assert "Secret message" not in text and "Annuler" not in text  # unlisted package; other language


def test_kinds_come_from_control_fields_and_sources(built):
    out, _ = built
    expected = {**package_names(), "gtk0-data": "gtk", "game-own": "other", "latin": "command-line"}
    for split in ("train", "dev", "test"):
        for _source, _target, package, kind in rows(out / f"{split}.tsv"):
            assert kind == expected[package], (package, kind)


def test_splits_are_whole_packages_of_every_kind_and_never_leak(built):
    out, stats = built
    split_rows = {s: rows(out / f"{s}.tsv") for s in ("train", "dev", "test")}
    packages = {s: {r[2] for r in rs} for s, rs in split_rows.items()}
    assert not packages["train"] & packages["test"] and not packages["train"] & packages["dev"]
    assert not packages["dev"] & packages["test"]
    train_sources = {r[0] for r in split_rows["train"]}
    assert not train_sources & {r[0] for r in split_rows["test"] + split_rows["dev"]}
    for kind in KINDS:
        assert stats["by_kind"][kind]["test"]["pairs"] >= 1 and stats["by_kind"][kind]["train"]["pairs"] >= 1
    # a held-out package's shared messages ("Cancel") are in training, so they are not tested
    assert "Cancel" in train_sources and all(r[0] != "Cancel" for r in split_rows["test"])


def test_catalogs_outside_usr_share_locale_and_other_charsets(built):
    out, _ = built
    every = [r for s in ("train", "dev", "test") for r in rows(out / f"{s}.tsv")]
    assert ["Level up", "Subir de nivel", "game-own", "other"] in every
    assert ["Settings", "Configuración", "latin", "command-line"] in every


def test_common_messages_with_their_most_common_translation(built):
    out, _ = built
    common = rows(out / "common.tsv")
    assert common[:2] == [["Cancel", "Cancelar", "16"], ["Open", "Abrir", "16"]]
    assert ["_Quit", "_Salir", "4"] in common


def test_memory_counts_training_packages_only(built):
    out, stats = built
    memory = rows(out / "memory.tsv")
    held_out = set(stats["dev_packages"]) | set(stats["test_packages"])
    assert held_out and stats["memory_entries"] == len(memory)
    training = {p: k for p, k in package_names().items() if p not in held_out}
    gtk_training = sum(k == "gtk" for k in training.values())
    expected = [["Cancel", "Cancelar", str(len(training))], ["Open", "Abrir", str(len(training))]]
    if gtk_training >= 2:  # "_Quit" is in the four gtk packages, held-out ones not counted
        expected.append(["_Quit", "_Salir", str(gtk_training)])
    assert memory == sorted(expected)
    train_sources = {r[0] for r in rows(out / "train.tsv")}
    assert {r[0] for r in memory} <= train_sources  # nothing from held-out packages only


def test_memory_keeps_the_translation_two_packages_agree_on():
    from traductor.training.corpus import Pair
    from traductor.training.debian_corpus import memory_entries

    def pairs(source, targets, first=0):
        return [Pair(source, t, f"p{first + i}", "gtk") for i, t in enumerate(targets)]

    every = (
        pairs("Save", ["Guardar", "Guardar", "Salvar"])  # 2 agree: kept
        + pairs("Close", ["Cerrar", "Cerrar", "Clausurar", "Terminar", "Fin"])  # 2 of 5 agree: kept
        + pairs("Help", ["Ayuda", "Socorro"])  # no two agree: dropped
        + pairs("Alone", ["Solo"])  # one package: dropped
        + pairs("Quit", ["Salir"] * 2 + ["Abandonar"] * 3, first=10)  # the 3 are held out: Salir
        + pairs("Save", ["Guardar"])  # the same package twice counts once
    )
    train = {f"p{i}" for i in range(5)} | {"p10", "p11"}
    assert memory_entries(every, train) == [
        ("Close", "Cerrar", 5),
        ("Quit", "Salir", 2),
        ("Save", "Guardar", 3),
    ]


def test_same_cache_gives_byte_identical_files(cache, built, tmp_path):
    out, _ = built
    run_corpus(cache, tmp_path / "again")
    for name in ("train.tsv", "dev.tsv", "test.tsv", "common.tsv", "memory.tsv"):
        assert (tmp_path / "again" / name).read_bytes() == (out / name).read_bytes()


def test_lang_picks_another_language(cache, tmp_path):
    stats = run_corpus(cache, tmp_path / "fr", "--lang", "fr")
    assert stats["packages_with_catalogs"] == 16
    every = [r for s in ("train", "dev", "test") for r in rows(tmp_path / "fr" / f"{s}.tsv")]
    assert {(r[0], r[1]) for r in every} == {("Cancel", "Annuler")}


def test_into_english_reverses_pairs_and_holds_out_the_same_packages(cache, built, tmp_path):
    forward_dir, forward = built
    stats = run_corpus(cache, tmp_path / "es-en", "--into-english")
    assert stats["languages"] == {"source": "es", "target": "en"}
    assert (stats["dev_packages"], stats["test_packages"]) == (forward["dev_packages"], forward["test_packages"])
    for split in ("dev", "test"):  # the held-out pairs are the forward ones, turned round
        back = [(r[1], r[0], *r[2:]) for r in rows(forward_dir / f"{split}.tsv")]
        assert [tuple(r) for r in rows(tmp_path / "es-en" / f"{split}.tsv")] == back
    train = rows(tmp_path / "es-en" / "train.tsv")
    held = {r[0] for s in ("dev", "test") for r in rows(tmp_path / "es-en" / f"{s}.tsv")}
    assert train and not held & {r[0] for r in train}  # a held-out Spanish source is never trained on
    assert ("Cancelar", "Cancel") in {(r[0], r[1]) for r in train}
    memory = {(r[0], r[1]) for r in rows(tmp_path / "es-en" / "memory.tsv")}
    assert {("Abrir", "Open"), ("Cancelar", "Cancel")} <= memory


def test_download_fills_the_cache_then_offline_reuses_it(cache, tmp_path, monkeypatch):
    """apt-get is a fake on PATH that copies from a local 'mirror': what is cached is not fetched again."""
    mirror = cache / "cache" / "debs"
    fake = tmp_path / "bin" / "apt-get"
    fake.parent.mkdir()
    log = tmp_path / "apt.log"
    fake.write_text(
        f'#!/bin/sh\nshift; [ "$1" = -q ] && shift\nfor p in "$@"; do echo "$p" >> {log}; '
        f'cp {mirror}/"$p"_*.deb . 2>/dev/null || exit 100; done\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "list.txt").write_text("command0\ncommand1\ngtk0\n")
    new_cache = tmp_path / "cache"
    (new_cache / "debs").mkdir(parents=True)
    (new_cache / "debs" / "command0_1.0_all.deb").write_bytes((mirror / "command0_1.0_all.deb").read_bytes())
    argv = [
        "corpus",
        "--out",
        str(tmp_path / "out"),
        "--cache",
        str(new_cache),
        "--packages",
        str(tmp_path / "list.txt"),
        "--quiet",
        "--test-pairs",
        "1",
        "--dev-pairs",
        "1",
    ]
    assert main(argv) == 0
    assert sorted(log.read_text().split()) == ["command1", "gtk0"]  # command0 was cached
    assert main([*argv, "--offline"]) == 0
    assert sorted(log.read_text().split()) == ["command1", "gtk0"]  # nothing fetched offline


def test_kind_rules():
    info = debian.PackageInfo("x", "x", "utils", "libqt5widgets5", 0, ())
    assert debian.own_kind(info) == "kde-qt"
    assert debian.own_kind(debian.PackageInfo("x", "x", "misc", "", 0, ())) is None
    assert debian.own_kind(debian.PackageInfo("x", "x", "games", "", 1, ())) == "other"


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--packages", "/nonexistent/list.txt"], "package list not found"),
        (["--dev", "sed"], "--dev/--test name catalogs"),
    ],
)
def test_bad_input_is_one_line(argv, match, tmp_path, capsys):
    assert main(["corpus", "--out", str(tmp_path / "o"), "--cache", str(tmp_path / "c"), "--offline", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and match in err, err


def test_bad_package_names_are_refused(tmp_path, capsys):
    (tmp_path / "list.txt").write_text("good-name\nBad Name!\n")
    assert main(["corpus", "--out", str(tmp_path / "o"), "--packages", str(tmp_path / "list.txt"), "--offline"]) == 2
    assert "not Debian package names" in capsys.readouterr().err
