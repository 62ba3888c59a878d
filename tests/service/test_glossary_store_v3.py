"""The glossary store's v3 side (DeepL's multilingual glossaries): several dictionaries in one
file, changes seen by another store on the same directory at once (a replica), concurrent changes
that all land, a change never bringing back a deleted glossary, limits over all dictionaries."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from traductor.glossary import Glossary, GlossaryNotFound
from traductor.service.glossaries import GlossaryStore, GlossaryTooLarge, Limits
from traductor.service.glossary_records import with_dictionary, without_dictionary


def test_several_dictionaries_in_one_file_and_the_pair_of_each(tmp_path):
    store = GlossaryStore(tmp_path)
    made = store.create_many(
        "two", [store.dictionary("en", "es", "file\tfichero"), store.dictionary("en", "fr", "file\tfichier")]
    )
    head, es, fr = (tmp_path / f"{made.glossary_id}.json").read_text().splitlines()
    assert json.loads(head)["dictionaries"] == [
        {"source_lang": "en", "target_lang": "es", "entry_count": 1},
        {"source_lang": "en", "target_lang": "fr", "entry_count": 1},
    ]
    assert (json.loads(es), json.loads(fr)) == ([["file", "fichero"]], [["file", "fichier"]])
    found = GlossaryStore(tmp_path).get(made.glossary_id)
    assert found.others == (Glossary("en", "fr", (("file", "fichier"),)),)
    assert (found.source_language, found.target_language, found.entries) == ("en", "es", (("file", "fichero"),))
    listed = GlossaryStore(tmp_path).list()  # first lines only: the counts, no entries
    assert [(d.pair(), d.entry_count, d.entries) for d in listed[0].dictionaries] == [
        (("en", "es"), 1, ()),
        (("en", "fr"), 1, ()),
    ]


def test_a_change_by_another_store_is_seen_at_once(tmp_path):
    mine, replica = GlossaryStore(tmp_path), GlossaryStore(tmp_path)
    made = mine.create("one", "en", "es", "file\tfichero")
    assert mine.get(made.glossary_id).entries == (("file", "fichero"),)  # now in mine's memory
    replica.update(
        made.glossary_id, None, lambda g: with_dictionary(g, replica.dictionary("en", "es", "file\tarchivo"))
    )
    assert mine.get(made.glossary_id).entries == (("file", "archivo"),)
    replica.update(made.glossary_id, None, lambda g: without_dictionary(g, "en", "es"))
    assert mine.info(made.glossary_id).dictionaries == ()
    with pytest.raises(GlossaryNotFound, match="has no dictionary"):
        mine.get(made.glossary_id)


def test_concurrent_changes_all_land_and_none_revives_a_deleted_glossary(tmp_path):
    store = GlossaryStore(tmp_path)
    made = store.create("many", "en", "es", "uno\tone")

    def add(n: int) -> None:
        entry = store.dictionary("en", "es", f"term{n}\tT{n}")
        store.update(made.glossary_id, None, lambda g: with_dictionary(g, entry, merge=True))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(add, range(16)))
    assert GlossaryStore(tmp_path).info(made.glossary_id).entry_count == 17
    store.delete(made.glossary_id)
    with pytest.raises(GlossaryNotFound):
        add(99)
    assert not (tmp_path / f"{made.glossary_id}.json").exists()


def test_owner_and_limits_hold_for_changes(tmp_path):
    store = GlossaryStore(tmp_path, Limits(entries=3))
    made = store.create("mine", "en", "es", "a\tb\nc\td", owner="alice")
    more = store.dictionary("en", "fr", "e\tf\ng\th")
    with pytest.raises(GlossaryTooLarge, match="--max-glossary-entries"):  # 4 over both dictionaries
        store.update(made.glossary_id, "alice", lambda g: with_dictionary(g, more))
    with pytest.raises(GlossaryNotFound):
        store.update(made.glossary_id, "bob", lambda g: g)
    assert store.info(made.glossary_id).entry_count == 2
