"""A stored glossary as DeepL's APIs show it and as its file holds it (the store: glossaries.py).

A glossary has a name, an owner and one or more dictionaries, each a language pair with its
entries (DeepL's v3, "multilingual" glossaries; a v2 glossary is one with a single dictionary).
Its file, `<uuid4>.json`, is JSON lines:

    line 1      what DeepL shows of it: glossary_id, name, ready, creation_time, owner, and the
                first dictionary's source_lang, target_lang, entry_count (all a v2 glossary has);
                `dictionaries` ([{source_lang, target_lang, entry_count}, ...]) only when the
                glossary has not exactly one dictionary
    line 2...   one line per dictionary: its entries, [[source, target], ...]

So a one-dictionary glossary's file is the v2 file it always was, and a listing reads first lines
only. Entries are read from DeepL's TSV or CSV here (`read_entries`), names checked
(`check_name`). This module knows nothing about files' places, locks or HTTP.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import IO

from traductor_client import glossary as glossary_files

from ..errors import InvalidInput
from ..glossary import Glossary, GlossaryNotFound

FORMATS = ("tsv", "csv")
MAX_NAME_CHARS = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

Entries = tuple[tuple[str, str], ...]


def read_entries(text: str, fmt: str, source_lang: str, target_lang: str) -> Glossary:
    """Entries as DeepL takes them, TSV or CSV (traductor_client.glossary reads them, as it reads
    glossary files); the Glossary checks the terms (empty, too long, a source term twice)."""
    if fmt not in FORMATS:
        raise InvalidInput(f"Value for 'entries_format' not supported: {fmt!r} (supported: {', '.join(FORMATS)})")
    try:
        entries = glossary_files.parse(text, fmt, "entries")
    except glossary_files.GlossaryFileError as error:
        raise InvalidInput(f"Invalid glossary entries: {error}") from None
    if not entries:
        raise InvalidInput(f"Invalid glossary entries: no entry (expected {fmt.upper()} lines: source and target term)")
    return Glossary(source_lang, target_lang, tuple(entries))


def check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("Missing or empty glossary name")
    if len(name) > MAX_NAME_CHARS or _CONTROL.search(name):
        raise InvalidInput(f"Invalid glossary name: at most {MAX_NAME_CHARS} characters, no control characters")
    try:
        name.encode()
    except UnicodeEncodeError:  # "\ud800": a lone surrogate is no text
        raise InvalidInput("Invalid glossary: a name or term holds a lone surrogate, not text") from None
    return name


@dataclass(frozen=True)
class Dictionary:
    """One language pair of a glossary (languages as DeepL keeps them: "en", lower case)."""

    source_lang: str
    target_lang: str
    entry_count: int
    entries: Entries = ()  # () when only the first line was read (a listing)

    def as_json(self) -> dict:
        return {"source_lang": self.source_lang, "target_lang": self.target_lang, "entry_count": self.entry_count}

    def tsv(self) -> str:
        return "".join(f"{source}\t{target}\n" for source, target in self.entries)

    @property
    def glossary(self) -> Glossary:
        return Glossary(self.source_lang, self.target_lang, self.entries)

    def pair(self) -> tuple[str, str]:
        return self.source_lang, self.target_lang


@dataclass(frozen=True)
class GlossaryInfo:
    """A stored glossary: what DeepL's API shows of it, and its dictionaries' entries."""

    glossary_id: str
    name: str
    creation_time: str  # ISO 8601, UTC, milliseconds ("2026-11-25T15:01:02.345Z")
    dictionaries: tuple[Dictionary, ...]
    owner: str = ""  # the name of the key that made it (service/keys); "": the administrator or an open server

    def visible_to(self, owner: str | None) -> bool:  # None: the administrator, an open server's callers
        return owner is None or self.owner == owner

    # ---- a v2 glossary: its one dictionary --------------------------------------------------

    @property
    def first(self) -> Dictionary:
        return self.dictionaries[0] if self.dictionaries else Dictionary("", "", 0)

    @property
    def source_lang(self) -> str:
        return self.first.source_lang

    @property
    def target_lang(self) -> str:
        return self.first.target_lang

    @property
    def entry_count(self) -> int:
        return self.first.entry_count

    @property
    def entries(self) -> Entries:
        return self.first.entries

    def tsv(self) -> str:
        return self.first.tsv()

    def as_json(self) -> dict:
        """DeepL's v2 glossary object (entries not included: GET .../entries has them)."""
        first = self.first
        return {
            "glossary_id": self.glossary_id,
            "name": self.name,
            "ready": True,
            "source_lang": first.source_lang,
            "target_lang": first.target_lang,
            "creation_time": self.creation_time,
            "entry_count": first.entry_count,
        }

    # ---- every dictionary -------------------------------------------------------------------

    @property
    def glossary(self) -> Glossary:
        """The first dictionary as a Glossary, the others as its `others` (glossary_use.for_model
        picks the call's pair)."""
        if not self.dictionaries:
            raise GlossaryNotFound(f"glossary {self.glossary_id} has no dictionary")
        first, *others = (d.glossary for d in self.dictionaries)
        return replace(first, others=tuple(others)) if others else first

    def as_v3_json(self) -> dict:
        """DeepL's v3 (multilingual) glossary object."""
        return {
            "glossary_id": self.glossary_id,
            "name": self.name,
            "dictionaries": [d.as_json() for d in self.dictionaries],
            "creation_time": self.creation_time,
        }

    def dictionary(self, source_lang: str, target_lang: str) -> Dictionary:
        """The dictionary of a pair (GlossaryNotFound: the glossary has none of it)."""
        for found in self.dictionaries:
            if found.pair() == (source_lang, target_lang):
                return found
        raise GlossaryNotFound(f"glossary {self.glossary_id} has no {source_lang}->{target_lang} dictionary")

    def with_dictionaries(self, dictionaries: tuple[Dictionary, ...]) -> GlossaryInfo:
        return replace(self, dictionaries=dictionaries)

    # ---- the file ---------------------------------------------------------------------------

    def lines(self) -> bytes:
        """The file's contents (see the module docstring)."""
        head = {**self.as_json(), "owner": self.owner}
        if len(self.dictionaries) != 1:
            head["dictionaries"] = [d.as_json() for d in self.dictionaries]
        if not self.dictionaries:
            for key in ("source_lang", "target_lang", "entry_count"):
                head.pop(key)
        rows = [head, *([list(e) for e in d.entries] for d in self.dictionaries)]
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()


def read(f: IO[str], entries: bool = True) -> GlossaryInfo:
    """A glossary from its open file (ValueError, KeyError, TypeError: not a glossary file)."""
    head = json.loads(f.readline())
    listed = head["dictionaries"] if "dictionaries" in head else [head]
    dictionaries = []
    for d in listed:
        found: Entries = tuple((str(s), str(t)) for s, t in json.loads(f.readline())) if entries else ()
        dictionaries.append(Dictionary(str(d["source_lang"]), str(d["target_lang"]), int(d["entry_count"]), found))
    keys = ("glossary_id", "name", "creation_time")
    return GlossaryInfo(*(str(head[k]) for k in keys), tuple(dictionaries), str(head.get("owner", "")))


def _term_key(term: str) -> str:
    return " ".join(term.casefold().split())


def merged(old: Dictionary, new: Dictionary) -> Dictionary:
    """`old` updated by `new` (DeepL's v3 PATCH): a source term of both takes `new`'s target (the
    terms compared as the Glossary compares them), `new`'s other entries come after `old`'s."""
    given = {_term_key(s): (s, t) for s, t in new.entries}
    entries = [given.pop(_term_key(s), (s, t)) for s, t in old.entries] + list(given.values())
    return Dictionary(old.source_lang, old.target_lang, len(entries), tuple(entries))


def with_dictionary(info: GlossaryInfo, new: Dictionary, merge: bool = False) -> GlossaryInfo:
    """The glossary with `new` in place of its dictionary of the same pair (merged into it with
    `merge`), or added after the others."""
    found = [d for d in info.dictionaries if d.pair() == new.pair()]
    if not found:
        return info.with_dictionaries((*info.dictionaries, new))
    new = merged(found[0], new) if merge else new
    return info.with_dictionaries(tuple(new if d.pair() == new.pair() else d for d in info.dictionaries))


def without_dictionary(info: GlossaryInfo, source_lang: str, target_lang: str) -> GlossaryInfo:
    info.dictionary(source_lang, target_lang)  # GlossaryNotFound: it has none of the pair
    return info.with_dictionaries(tuple(d for d in info.dictionaries if d.pair() != (source_lang, target_lang)))
