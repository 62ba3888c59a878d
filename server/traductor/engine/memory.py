"""A translation memory: source messages answered with a human translation, no model call.

memory.tsv holds one entry a line, `source<TAB>translation<TAB>packages`, as `traductor corpus`
writes it (the messages found in at least two training packages, with the translation most of
them use); `traductor export --memory FILE` copies it into a bundle and records its name,
sha256 and entry count in config.json (`MemoryFile`), which `load_bundle` verifies.

`read_memory` turns the file into a dict, source -> translation. The service looks a segment up
by its exact text (`service/pipeline/protect.py`): no normalisation of case, spaces or punctuation, no fuzzy
match, no placeholder substitution ("Open %s" and "Open %d" are different entries).

This module does not know which program or context a message comes from (gettext contexts are
stripped by the corpus), whether the translation is still the best one, or anything of torch or
of the model: an entry is trusted as it is, and a source in it is never seen by the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import BundleError

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
