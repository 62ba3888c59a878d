"""The glossary store: glossaries kept as files, one per glossary, shared by every process that
points at the same directory (replicas on one volume, a restarted server).

    <dir>/<uuid4>.json      one glossary: a line of what DeepL shows of it (id, name, languages,
                            creation time, entry count), then a line of its entries (a listing
                            reads only the first line)
    <dir>/.lock             held (flock) while a glossary is counted and written
    <dir>/documents/        DeepL API documents (documents.py): servers that share their
                            glossaries share their documents

- Written atomically (shared_dir.write_atomically: a temporary file in the directory, fsync,
  `os.replace`): a reader sees a whole glossary or none, a crash leaves at most a `.tmp-*` file.
- Concurrent creates and deletes lose nothing, in threads or processes: a glossary's file is named
  by a fresh uuid4 (DeepL's ids have that form), a delete is one `unlink`, and the count checked
  against `--max-glossaries` is taken under the lock, so two servers cannot both take the last place.
- Glossaries never change once written (as DeepL's v2 ones), so `get` keeps those it read in
  memory and only checks that the file is still there (a replica may have deleted it).
- Limits, named with their flags: `--max-glossaries`, `--max-glossary-entries`, `--max-glossary-bytes`.

Where (`default_dir`): `--glossary-dir`; else `<model repository>/glossaries` (no config.json:
no model); else `$XDG_DATA_HOME/traductor/glossaries`. It is made at the first create.

`GlossaryStore.get(glossary_id) -> Glossary` is the lookup of the gRPC servicer and the HTTP APIs.
A glossary made with a key belongs to its name (`owner`; service/keys): `owner=` (or `owned_by`) shows
a key only its own, others read as absent; None (the --token, an open server) sees all.
This module knows nothing about HTTP, gRPC or how a glossary is applied to a translation.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from traductor_client import glossary as glossary_files

from ..errors import InvalidInput, TraductorError
from ..glossary import Glossary, GlossaryNotFound
from .settings import Settings
from .shared_dir import locked, write_atomically

log = logging.getLogger("traductor.glossaries")

FORMATS = ("tsv", "csv")
MAX_NAME_CHARS = 1024
CACHED = 256  # glossaries `get` keeps in memory
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


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


@dataclass(frozen=True)
class GlossaryInfo:
    """A stored glossary: what DeepL's API shows of it, and its entries."""

    glossary_id: str
    name: str
    source_lang: str  # the language subtag, lower case, as DeepL's glossaries have it ("en")
    target_lang: str
    creation_time: str  # ISO 8601, UTC, milliseconds ("2026-11-25T15:01:02.345Z")
    entry_count: int
    entries: tuple[tuple[str, str], ...] = ()  # () when only the first line was read (a listing)
    owner: str = ""  # the name of the key that made it (service/keys); "": the administrator or an open server

    def visible_to(self, owner: str | None) -> bool:  # None: the administrator, an open server's callers
        return owner is None or self.owner == owner

    @property
    def glossary(self) -> Glossary:
        return Glossary(self.source_lang, self.target_lang, self.entries)

    def as_json(self) -> dict:
        """DeepL's glossary object (entries not included: GET .../entries has them)."""
        return {
            "glossary_id": self.glossary_id,
            "name": self.name,
            "ready": True,
            "source_lang": self.source_lang,
            "target_lang": self.target_lang,
            "creation_time": self.creation_time,
            "entry_count": self.entry_count,
        }

    def tsv(self) -> str:
        return "".join(f"{source}\t{target}\n" for source, target in self.entries)


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
        self._cache: OrderedDict[str, GlossaryInfo] = OrderedDict()
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

    def create(
        self, name: str, source_lang: str, target_lang: str, entries_text: str, fmt: str = "tsv", owner: str | None = ""
    ):
        """Check and store a new glossary of `owner` (a key's name); returns its GlossaryInfo. The
        languages are stored as given (the caller checks them against the served pairs)."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("Missing or empty glossary name")
        if len(name) > MAX_NAME_CHARS or _CONTROL.search(name):
            raise InvalidInput(f"Invalid glossary name: at most {MAX_NAME_CHARS} characters, no control characters")
        try:
            size, _ = len(entries_text.encode()), name.encode()
        except UnicodeEncodeError:  # "\ud800": a lone surrogate is no text
            raise InvalidInput("Invalid glossary: a name or term holds a lone surrogate, not text") from None
        if size > self.limits.bytes:
            raise GlossaryTooLarge(
                f"glossary entries of {size} bytes: over this server's limit of {self.limits.bytes} "
                f"(--max-glossary-bytes)"
            )
        entries = read_entries(entries_text, fmt, source_lang, target_lang).entries
        if len(entries) > self.limits.entries:
            raise GlossaryTooLarge(
                f"glossary of {len(entries)} entries: over this server's limit of {self.limits.entries} "
                f"(--max-glossary-entries)"
            )
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        info = GlossaryInfo(str(uuid.uuid4()), name, source_lang, target_lang, now, len(entries), entries, owner or "")
        lines = ({**info.as_json(), "owner": info.owner}, [list(e) for e in entries])
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with locked(self.directory):
                count = len(self._files())
                if count >= self.limits.glossaries:
                    raise TooManyGlossaries(
                        f"this server holds {count} glossaries, its limit (--max-glossaries {self.limits.glossaries}):"
                        f" delete one first"
                    )
                write_atomically(self._path(info.glossary_id), data)
        except OSError as error:
            raise self._storage_error(error, "written") from None
        self._remember(info)
        return info

    def delete(self, glossary_id: str, owner: str | None = None) -> None:  # another owner's: GlossaryNotFound
        path = self._path(glossary_id)
        self.info(glossary_id, owner, entries=False)
        with self._lock:
            self._cache.pop(glossary_id, None)
        try:
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

    def _remember(self, info: GlossaryInfo) -> None:
        with self._lock:
            self._cache[info.glossary_id] = info
            self._cache.move_to_end(info.glossary_id)
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)

    def _read(self, path: Path, entries: bool = True) -> GlossaryInfo:
        with path.open(encoding="utf-8") as f:
            head = json.loads(f.readline())
            found = tuple((str(s), str(t)) for s, t in json.loads(f.readline())) if entries else ()
        keys = ("glossary_id", "name", "source_lang", "target_lang", "creation_time")
        return GlossaryInfo(*(str(head[k]) for k in keys), int(head["entry_count"]), found, str(head.get("owner", "")))

    def _load(self, glossary_id: str, entries: bool = True) -> GlossaryInfo:
        """A glossary as its file says now (GlossaryNotFound when it is not, or no longer, there)."""
        path = self._path(glossary_id)
        try:
            return self._read(path, entries)
        except FileNotFoundError:
            with self._lock:
                self._cache.pop(glossary_id, None)
            raise GlossaryNotFound(f"glossary {glossary_id} not found") from None
        except OSError as error:
            raise self._storage_error(error, "read") from None
        except (ValueError, KeyError, TypeError):
            log.warning("glossary file %s is not a glossary: skipped", path)
            raise GlossaryNotFound(f"glossary {glossary_id} not found (its file is unreadable)") from None

    def _cached(self, glossary_id: str) -> GlossaryInfo | None:
        """The glossary as read before, if its file is still there (a replica may have deleted it)."""
        with self._lock:
            cached = self._cache.get(glossary_id)
        return cached if cached is not None and self._path(glossary_id).exists() else None

    def info(self, glossary_id: str, owner: str | None = None, entries: bool = True) -> GlossaryInfo:
        """A glossary by id, with its entries; another owner's is GlossaryNotFound, as if absent."""
        info = self._cached(glossary_id)
        if info is None:
            info = self._load(glossary_id, entries)
            if entries:
                self._remember(info)
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


@dataclass(frozen=True)
class OwnedGlossaries:
    """The glossaries of one owner as a GlossaryLookup (what a call's glossary_id may name)."""

    store: GlossaryStore
    owner: str | None

    def get(self, glossary_id: str) -> Glossary:
        return self.store.get(glossary_id, self.owner)
