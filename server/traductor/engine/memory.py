"""A translation memory: source messages answered with a human translation, no model call.

memory.tsv holds one entry a line, `source<TAB>translation<TAB>packages`, as `traductor corpus`
writes it (the messages found in at least two training packages, with the translation most of
them use); `traductor export --memory FILE` copies it into a bundle and records its name,
sha256 and entry count in config.json (`MemoryFile`), which `load_bundle` verifies.

`read_memory` turns the file into a dict, source -> translation. The service looks a segment up
with `find` (`service/pipeline/protect.py`): by its exact text, or, for a text that begins with a
lowercase letter ("edge", "image files", "running..."), by the same text capitalised, the entry's
translation then beginning lowercase too ("Край" -> "край"; not in a language that capitalises
its nouns: German keeps "Kante"). Nothing else is normalised (spaces, punctuation), no fuzzy match,
no placeholder substitution ("Open %s" and "Open %d" are different entries).

This module does not know which program or context a message comes from (gettext contexts are
stripped by the corpus), whether the translation is still the best one, or anything of torch or
of the model: an entry is trusted as it is, and a source in it is never seen by the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import BundleError
from ..languages import capitalizes_nouns
from ..model import placeholders

FILENAME = "memory.tsv"


@dataclass(frozen=True)
class MemoryFile:
    """What config.json records of a bundle's memory."""

    file: str
    sha256: str
    entries: int


def parse(text: str, where: str) -> dict[str, str]:
    """source -> translation; a BundleError names the first malformed line."""
    entries: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0] or not fields[1]:
            raise BundleError(f"{where}:{n}: expected source<TAB>translation[<TAB>packages], got {line[:80]!r}")
        if fields[0] in entries:
            raise BundleError(f"{where}:{n}: {fields[0][:80]!r} is in the memory twice")
        entries[fields[0]] = fields[1]
    return entries


def read_memory(path: Path | str) -> dict[str, str]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BundleError(f"{path}: cannot read the translation memory: {e}") from e
    return parse(text, str(path))


def find(entries: Mapping[str, str], text: str, target: str) -> str | None:
    """The memory's translation of `text` into `target` (the bundle's target language), or None.

    Its own entry first. Then a text of two characters or more that begins with a lowercase letter
    takes the entry of its capitalised form, with the translation's first letter lowered (never
    inside a placeholder or a tag; an all-capitals word kept: "URL"), except in a target that
    capitalises its nouns. Catalogs write the same message both ways ("Edge" a label, "edge" in a
    list); on the held-out test splits the 18 messages of it, fr, pt-BR and ru found only this way
    scored chrF 88.7, 85.8, 79.3 and 100 from the memory against 78.3, 85.0, 48.3 and 19.7 from the
    model. A lone letter is not looked up this way ("m" for minutes is not "M")."""
    found = entries.get(text)
    if found is not None or len(text) < 2 or not text[0].islower():
        return found
    found = entries.get(text[0].upper() + text[1:])
    if found is None or capitalizes_nouns(target):
        return found
    return _first_letter_lowered(found)


def _first_letter_lowered(translation: str) -> str:
    """The first letter outside placeholders and markup in lowercase ("¡Hola" -> "¡hola", "{Name}
    abierto" as it is), unless the letter after it is a capital too ("URL")."""
    at = placeholders.first_letter(translation)
    if at is None or not translation[at].isupper() or translation[at + 1 : at + 2].isupper():
        return translation
    return translation[:at] + translation[at].lower() + translation[at + 1 :]
