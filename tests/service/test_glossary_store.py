"""The glossary store (service/glossaries.py): files that survive a re-open and are shared by
processes; concurrent creates and deletes in threads and processes lose nothing; limits named
with their flags; entries read as DeepL takes them; ids that are not the store's never reach the
file system."""

from __future__ import annotations

import json
import multiprocessing
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from traductor.errors import InvalidInput
from traductor.glossary import Glossary, GlossaryNotFound
from traductor.service.glossaries import GlossaryStore, GlossaryTooLarge, Limits, TooManyGlossaries, default_dir
from traductor.service.settings import Settings

TSV = "file\tfichero\nsettings\tajustes\n"


def test_a_glossary_survives_a_new_store_on_the_same_directory(tmp_path):
    created = GlossaryStore(tmp_path).create("project", "en", "es", TSV)
    reopened = GlossaryStore(tmp_path)
    assert reopened.get(created.glossary_id) == Glossary("en", "es", (("file", "fichero"), ("settings", "ajustes")))
    assert [g.as_json() for g in reopened.list()] == [created.as_json()]
    assert created.as_json()["entry_count"] == 2 and created.as_json()["ready"] is True
    assert reopened.info(created.glossary_id).tsv() == TSV
    listed = GlossaryStore(tmp_path).list()  # a listing reads each file's first line only
    assert (listed[0].entry_count, listed[0].entries) == (2, ())
    # one whole file per glossary, nothing half-written left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", f"{created.glossary_id}.json"]
    head, entries = (tmp_path / f"{created.glossary_id}.json").read_text().splitlines()
    assert (json.loads(head), json.loads(entries)) == (
        {**created.as_json(), "owner": ""},  # owner: the key that made it (service/keys); "": no key
        [["file", "fichero"], ["settings", "ajustes"]],
    )


def test_a_delete_by_another_store_is_seen_at_once(tmp_path):
    mine, other = GlossaryStore(tmp_path), GlossaryStore(tmp_path)
    created = mine.create("project", "en", "es", TSV)
    assert mine.get(created.glossary_id)  # now in mine's memory
    other.delete(created.glossary_id)
    with pytest.raises(GlossaryNotFound):
        mine.get(created.glossary_id)
    with pytest.raises(GlossaryNotFound):
        other.delete(created.glossary_id)
    assert mine.list() == []


@pytest.mark.parametrize("bad", ["../../etc/passwd", "x", "", "ABCDEF00-0000-4000-8000-000000000000", 7])
def test_an_id_that_is_not_a_uuid4_is_not_found_without_touching_files(tmp_path, bad):
    store = GlossaryStore(tmp_path / "none")
    for call in (store.get, store.delete):
        with pytest.raises(GlossaryNotFound):
            call(bad)
    assert not (tmp_path / "none").exists()


def test_limits_are_named_with_their_flags(tmp_path):
    store = GlossaryStore(tmp_path, Limits(glossaries=1, entries=2, bytes=40))
    with pytest.raises(GlossaryTooLarge, match=r"3 entries.*limit of 2 \(--max-glossary-entries\)"):
        store.create("g", "en", "es", "a\tb\nc\td\ne\tf\n")
    with pytest.raises(GlossaryTooLarge, match=r"limit of 40 \(--max-glossary-bytes\)"):
        store.create("g", "en", "es", "a" * 30 + "\t" + "b" * 30)
    store.create("g", "en", "es", "a\tb")
    with pytest.raises(TooManyGlossaries, match=r"--max-glossaries 1"):
        store.create("h", "en", "es", "a\tb")


@pytest.mark.parametrize(
    "text, fmt, message",
    [
        ("a\tb\tc", "tsv", "line 1 is not source<TAB>target"),
        ("a\tb\n\nonly", "tsv", "line 3 is not"),
        ("a\t", "tsv", "target is empty"),
        ("file\tfichero\nFile\tarchivo", "tsv", "entry 1"),
        ("\n\n", "tsv", "no entry"),
        ('"a,b', "csv", "not readable as CSV"),
        ("a,b,c", "csv", "line 1 is not source,target"),
        ("a\tb", "xlsx", "entries_format"),
    ],
)
def test_bad_entries_are_refused_naming_the_line_or_entry(tmp_path, text, fmt, message):
    with pytest.raises(InvalidInput, match=message):
        GlossaryStore(tmp_path).create("g", "en", "es", text, fmt)
    assert GlossaryStore(tmp_path).list() == []


def test_csv_entries_as_deepl_takes_them(tmp_path):
    info = GlossaryStore(tmp_path).create("g", "en", "es", 'file,fichero\n"log in, now",entrar,en,es\n', "csv")
    assert info.entries == (("file", "fichero"), ("log in, now", "entrar"))


@pytest.mark.parametrize("name", ["", "   ", "a\nb", "x" * 1025])
def test_a_bad_name_is_refused(tmp_path, name):
    with pytest.raises(InvalidInput, match="name"):
        GlossaryStore(tmp_path).create(name, "en", "es", TSV)


def test_where_glossaries_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_dir(Settings()) == tmp_path / "data" / "traductor" / "glossaries"
    assert default_dir(Settings(model_repository="/models")) == Path("/models/glossaries")
    assert default_dir(Settings(model_repository="/models", glossary_dir="/g")) == Path("/g")
    store = GlossaryStore.from_settings(replace(Settings(), glossary_dir=str(tmp_path), max_glossary_entries=3))
    assert store.directory == tmp_path and store.limits.entries == 3


def test_concurrent_creates_and_deletes_in_threads_lose_nothing(tmp_path):
    store, start = GlossaryStore(tmp_path), threading.Barrier(8)
    kept: list[list[str]] = [[] for _ in range(8)]

    def work(n: int) -> None:
        start.wait()
        for i in range(10):
            info = store.create(f"t{n}-{i}", "en", "es", f"term{n}x{i}\tvalor")
            if i % 2:
                store.delete(info.glossary_id)
            else:
                kept[n].append(info.glossary_id)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = {g for ids in kept for g in ids}
    assert {g.glossary_id for g in GlossaryStore(tmp_path).list()} == expected and len(expected) == 40


def _create_and_delete(directory: str, n: int, start) -> list[str]:
    store = GlossaryStore(directory)
    start.wait()
    kept = []
    for i in range(6):
        info = store.create(f"p{n}-{i}", "en", "es", f"term{n}x{i}\tvalor")
        if i % 3 == 2:
            store.delete(info.glossary_id)
        else:
            kept.append(info.glossary_id)
    return kept


def _create_one(directory: str, n: int, start) -> str:
    store = GlossaryStore(directory, Limits(glossaries=3))
    start.wait()
    try:
        return store.create(f"race{n}", "en", "es", "a\tb").glossary_id
    except TooManyGlossaries:
        return ""


def _in_processes(function, directory: Path, count: int) -> list:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        start = manager.Barrier(count)
        with context.Pool(count) as pool:
            return pool.starmap(function, [(str(directory), n, start) for n in range(count)])


def test_concurrent_creates_and_deletes_in_processes_lose_nothing(tmp_path):
    kept = _in_processes(_create_and_delete, tmp_path, 4)
    expected = {g for ids in kept for g in ids}
    assert {g.glossary_id for g in GlossaryStore(tmp_path).list()} == expected and len(expected) == 16
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_processes_racing_for_the_last_places_take_exactly_the_limit(tmp_path):
    ids = _in_processes(_create_one, tmp_path, 6)
    assert len([i for i in ids if i]) == 3
    assert {g.glossary_id for g in GlossaryStore(tmp_path).list()} == {i for i in ids if i}
