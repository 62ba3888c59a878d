"""The glossary store: glossaries kept as files, one per glossary, shared by every process that
points at the same directory (replicas on one volume, a restarted server).

    <dir>/<uuid4>.json      one glossary (glossary_records.py: a line of what DeepL shows of it,
                            then a line of entries per dictionary; a listing reads the first line)
    <dir>/.lock             held (flock) while a glossary is counted, written, changed or deleted
    <dir>/documents/        DeepL API documents (documents.py): servers that share their
                            glossaries share their documents

- Written atomically (shared_dir.write_atomically: a temporary file in the directory, fsync,
  `os.replace`): a reader sees a whole glossary or none, a crash leaves at most a `.tmp-*` file.
- Concurrent creates, changes and deletes lose nothing, in threads or processes: a glossary's
  file is named by a fresh uuid4 (DeepL's ids have that form); the count checked against
  `--max-glossaries`, a change (read, change, write: DeepL's v3 glossaries are editable) and a
  delete happen under the lock, so two servers cannot both take the last place, and a change
  never brings back a deleted glossary.
- `get` keeps the glossaries it read in memory with the identity of the file read (inode, times
  and size): a file replaced by a change, or deleted, by any process is read again.
- Limits, named with their flags: `--max-glossaries`, `--max-glossary-entries` (all the
  dictionaries of a glossary together), `--max-glossary-bytes` (entries as sent, per request).

Where (`default_dir`): `--glossary-dir`; else `<model repository>/glossaries` (no config.json:
no model); else `$XDG_DATA_HOME/traductor/glossaries`. It is made at the first create.

`GlossaryStore.get(glossary_id) -> Glossary` is the lookup of the gRPC servicer and the HTTP APIs.
A glossary made with a key belongs to its name (`owner`; service/keys): `owner=` (or `owned_by`) shows
a key only its own, others read as absent; None (the --token, an open server) sees all.
This module knows nothing about HTTP, gRPC or how a glossary is applied to a translation.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import InvalidInput, TraductorError
from ..glossary import Glossary, GlossaryNotFound
from . import glossary_records as records
from .glossary_records import Dictionary, GlossaryInfo, check_name, read_entries
from .settings import Settings
from .shared_dir import locked, write_atomically

log = logging.getLogger("traductor.glossaries")

CACHED = 256  # glossaries `get` keeps in memory
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


class GlossaryTooLarge(InvalidInput):
    """A glossary over --max-glossary-entries or --max-glossary-bytes (HTTP 413 on DeepL's API)."""


class TooManyGlossaries(InvalidInput):
    """The directory holds --max-glossaries glossaries already."""


class GlossaryStorageError(TraductorError):
    """The glossary directory cannot be written or read (the message names it and the flag)."""


@dataclass(frozen=True)
class Limits:
    glossaries: int = 1000
    entries: int = 10_000
    bytes: int = 1 << 20


def default_dir(settings: Settings) -> Path:
    """Where the glossaries are kept (see the module docstring)."""
    if settings.glossary_dir:
        return Path(settings.glossary_dir)
    if settings.model_repository:
        return Path(settings.model_repository) / "glossaries"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "traductor" / "glossaries"


class GlossaryStore:
    """The glossaries of one directory; safe to use from threads and from several processes."""

    def __init__(self, directory: Path | str, limits: Limits = Limits()):
        self.directory, self.limits = Path(directory), limits
        self._cache: OrderedDict[str, tuple[tuple[int, ...], GlossaryInfo]] = OrderedDict()
        self._lock = threading.Lock()  # guards the cache only

    @classmethod
    def from_settings(cls, settings: Settings) -> "GlossaryStore":
        limits = Limits(settings.max_glossaries, settings.max_glossary_entries, settings.max_glossary_bytes)
        return cls(default_dir(settings), limits)

    def _path(self, glossary_id: str) -> Path:
        if not isinstance(glossary_id, str) or not _ID.fullmatch(glossary_id):
            raise GlossaryNotFound(f"glossary {str(glossary_id)[:64]!r} not found (ids are lower-case uuid4s)")
        return self.directory / f"{glossary_id}.json"

    def _storage_error(self, error: OSError, doing: str) -> GlossaryStorageError:
        log.error("glossary store %s: %s failed", self.directory, doing, exc_info=error)
        return GlossaryStorageError(
            f"glossaries cannot be {doing} in {self.directory} ({error.strerror or error}); "
            f"point --glossary-dir at a writable directory"
        )

    # ---- writing ------------------------------------------------------------------------------

    def dictionary(self, source_lang: str, target_lang: str, entries_text: str, fmt: str = "tsv") -> Dictionary:
        """Entries as sent (TSV or CSV), checked, as a dictionary of the pair (stored as given:
        the caller checks the languages against the served pairs)."""
        try:
            size = len(entries_text.encode())
        except UnicodeEncodeError:  # "\ud800": a lone surrogate is no text
            raise InvalidInput("Invalid glossary: a name or term holds a lone surrogate, not text") from None
        if size > self.limits.bytes:
            raise GlossaryTooLarge(
                f"glossary entries of {size} bytes: over this server's limit of {self.limits.bytes} "
                f"(--max-glossary-bytes)"
            )
        entries = read_entries(entries_text, fmt, source_lang, target_lang).entries
        return Dictionary(source_lang, target_lang, len(entries), entries)

    def _check_size(self, info: GlossaryInfo) -> None:
        count = sum(d.entry_count for d in info.dictionaries)
        if count > self.limits.entries:
            raise GlossaryTooLarge(
                f"glossary of {count} entries: over this server's limit of {self.limits.entries} "
                f"(--max-glossary-entries)"
            )

    def create(
        self, name: str, source_lang: str, target_lang: str, entries_text: str, fmt: str = "tsv", owner: str | None = ""
    ) -> GlossaryInfo:
        """Check and store a new glossary of one pair (DeepL's v2) of `owner` (a key's name)."""
        check_name(name)
        return self.create_many(name, [self.dictionary(source_lang, target_lang, entries_text, fmt)], owner)

    def create_many(self, name: str, dictionaries: list[Dictionary], owner: str | None = "") -> GlossaryInfo:
        """Store a new glossary of these dictionaries (DeepL's v3); returns its GlossaryInfo."""
        check_name(name)
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        info = GlossaryInfo(str(uuid.uuid4()), name, now, tuple(dictionaries), owner or "")
        self._check_size(info)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with locked(self.directory):
                count = len(self._files())
                if count >= self.limits.glossaries:
                    raise TooManyGlossaries(
                        f"this server holds {count} glossaries, its limit (--max-glossaries {self.limits.glossaries}):"
                        f" delete one first"
                    )
                write_atomically(self._path(info.glossary_id), info.lines())
        except OSError as error:
            raise self._storage_error(error, "written") from None
        return info

    def update(
        self, glossary_id: str, owner: str | None, change: Callable[[GlossaryInfo], GlossaryInfo]
    ) -> GlossaryInfo:
        """Change a glossary (`change` gets it as its file says now, under the lock, and returns it
        changed); another owner's, or one deleted meanwhile, is GlossaryNotFound."""
        path = self._path(glossary_id)
        try:
            with locked(self.directory):
                now = self._load(glossary_id)
                if not now.visible_to(owner):
                    raise GlossaryNotFound(f"glossary {glossary_id} not found")
                changed = change(now)
                check_name(changed.name)
                self._check_size(changed)
                write_atomically(path, changed.lines())
        except FileNotFoundError:  # no directory: no glossary yet
            raise GlossaryNotFound(f"glossary {glossary_id} not found") from None
        except OSError as error:
            raise self._storage_error(error, "written") from None
        return changed

    def delete(self, glossary_id: str, owner: str | None = None) -> None:  # another owner's: GlossaryNotFound
        path = self._path(glossary_id)
        try:
            with locked(self.directory):
                self.info(glossary_id, owner, entries=False)
                with self._lock:
                    self._cache.pop(glossary_id, None)
                path.unlink()
        except FileNotFoundError:
            raise GlossaryNotFound(f"glossary {glossary_id} not found") from None
        except OSError as error:
            raise self._storage_error(error, "deleted") from None

    # ---- reading ------------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        try:
            return [p for p in self.directory.iterdir() if _ID.fullmatch(p.stem) and p.suffix == ".json"]
        except FileNotFoundError:
            return []

    def _remember(self, info: GlossaryInfo, identity: tuple[int, ...]) -> None:
        with self._lock:
            self._cache[info.glossary_id] = (identity, info)
            self._cache.move_to_end(info.glossary_id)
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)

    def _load(self, glossary_id: str, entries: bool = True) -> GlossaryInfo:
        """A glossary as its file says now (GlossaryNotFound when it is not, or no longer, there)."""
        path = self._path(glossary_id)
        try:
            with path.open(encoding="utf-8") as f:
                stat = os.fstat(f.fileno())
                info = records.read(f, entries)
        except FileNotFoundError:
            with self._lock:
                self._cache.pop(glossary_id, None)
            raise GlossaryNotFound(f"glossary {glossary_id} not found") from None
        except OSError as error:
            raise self._storage_error(error, "read") from None
        except (ValueError, KeyError, TypeError):
            log.warning("glossary file %s is not a glossary: skipped", path)
            raise GlossaryNotFound(f"glossary {glossary_id} not found (its file is unreadable)") from None
        if entries:
            self._remember(info, _identity(stat))
        return info

    def _cached(self, glossary_id: str) -> GlossaryInfo | None:
        """The glossary as read before, if its file is still the one read (not replaced, not deleted)."""
        with self._lock:
            cached = self._cache.get(glossary_id)
        if cached is None:
            return None
        try:
            stat = self._path(glossary_id).stat()
        except FileNotFoundError:
            return None
        return cached[1] if _identity(stat) == cached[0] else None

    def info(self, glossary_id: str, owner: str | None = None, entries: bool = True) -> GlossaryInfo:
        """A glossary by id, with its entries; another owner's is GlossaryNotFound, as if absent."""
        info = self._cached(glossary_id) or self._load(glossary_id, entries)
        if not info.visible_to(owner):
            raise GlossaryNotFound(f"glossary {glossary_id} not found")
        return info

    def get(self, glossary_id: str, owner: str | None = None) -> Glossary:
        """The glossary with this id, as the text path applies it (the GlossaryLookup Protocol)."""
        return self.info(glossary_id, owner).glossary

    def owned_by(self, owner: str | None) -> "OwnedGlossaries":  # one owner's as a GlossaryLookup (None: all)
        return OwnedGlossaries(self, owner)

    def list(self, owner: str | None = None) -> list[GlossaryInfo]:
        """Every glossary of the directory that `owner` sees, oldest first."""
        found = []
        for path in self._files():
            try:  # what DeepL shows of each: the first line of its file
                found.append(self._cached(path.stem) or self._load(path.stem, entries=False))
            except GlossaryNotFound:  # deleted meanwhile, or not a glossary
                continue
        found = [g for g in found if g.visible_to(owner)]
        return sorted(found, key=lambda g: (g.creation_time, g.glossary_id))


def _identity(stat: os.stat_result) -> tuple[int, ...]:
    """What tells one written version of a file from another: each write is a new file (a new
    inode while the old one is still there), its times and size."""
    return stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size


@dataclass(frozen=True)
class OwnedGlossaries:
    """The glossaries of one owner as a GlossaryLookup (what a call's glossary_id may name)."""

    store: GlossaryStore
    owner: str | None

    def get(self, glossary_id: str) -> Glossary:
        return self.store.get(glossary_id, self.owner)
