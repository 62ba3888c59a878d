"""The DeepL API's documents kept as files, shared by every server that points at the same
directory: a document uploaded through one replica is checked and downloaded through any other,
and survives the restart of the one that translated it once it is done.

    <dir>/<document_id>.json    its record: the SHA-256 of its key (never the key), its owner (the
                                name of the API key that uploaded it: no other key sees it), file name,
                                characters billed, status (translating | done | error), error
                                message, and when it was made and finished (wall-clock seconds)
    <dir>/<document_id>.out     the translated file, written before the record says done
    <dir>/.lock                 held (flock) while the documents are counted and one is added

- Where (`document_dir`): `<glossary directory>/documents` (glossaries.default_dir: --glossary-dir,
  else `<model repository>/glossaries`, else the user's data folder): servers that share their
  glossaries (one volume in the compose and Kubernetes stacks) share their documents.
- Written atomically (shared_dir.write_atomically): a reader sees a whole record or none.
- One download: `take` renames the record to a name of its own before reading the result, so of
  two servers asked at once one gets the file and the other 404.
- Expiry: a document done or failed is deleted `ttl` seconds later (--file-ttl-seconds) if nobody
  downloaded it; `expire()` (run by any server on each upload) deletes those past it, and a record
  older than its ttl reads as absent meanwhile.
- A server that stops while translating: the server translating a document touches its record
  every `HEARTBEAT` seconds; a record still `translating` untouched for `STALE` seconds reads as
  an error ("the server translating it stopped"), so a client polling through another replica is
  told instead of waiting forever.
- At most `capacity` documents in the directory, counted under the lock (beyond: QueueFull, 429).

This module knows nothing about HTTP, file formats or translating (http/deepl_documents.py does).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import time
import uuid
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ..errors import NotFound, QueueFull
from .glossaries import GlossaryStorageError, default_dir
from .settings import Settings
from .shared_dir import locked, write_atomically

log = logging.getLogger("traductor.documents")

HEARTBEAT = 10.0  # seconds between the touches of a record being translated
STALE = 60.0  # a `translating` record untouched this long belongs to a server that stopped
_ID = re.compile(r"[0-9A-F]{32}")
STOPPED = "the server translating it stopped before it was done: upload the document again"


class DocumentNotFound(NotFound):
    """No such document: unknown id, a wrong key, already downloaded, or expired."""

    def __init__(self):
        super().__init__("Document not found: unknown document_id, a wrong document_key, or already downloaded")


@dataclass(frozen=True)
class Record:
    document_id: str
    key_sha256: str
    name: str
    characters: int
    status: str = "translating"  # translating | done | error
    error: str = ""
    created: float = 0.0  # time.time()
    finished: float = 0.0  # time.time() when done or failed; 0 while translating
    owner: str = ""  # the name of the key that uploaded it (service/keys); "": the administrator or an open server

    def as_json(self) -> dict:
        """DeepL's status object."""
        answer = {"document_id": self.document_id, "status": self.status}
        if self.status == "translating":
            answer["seconds_remaining"] = 1
        if self.status == "done":
            answer["billed_characters"] = self.characters
        if self.status == "error":
            answer["error_message"] = self.error
        return answer


def document_dir(settings: Settings) -> Path:
    return default_dir(settings) / "documents"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()


class DocumentStore:
    """The documents of one directory; its methods do file work (call them off the event loop)."""

    def __init__(self, directory: Path | str, ttl: float, capacity: int = 64, clock=time.time):
        self.directory, self.ttl, self.capacity, self.clock = Path(directory), ttl, capacity, clock

    def _path(self, document_id: str, suffix: str = ".json") -> Path:
        if not isinstance(document_id, str) or not _ID.fullmatch(document_id):
            raise DocumentNotFound()
        return self.directory / f"{document_id}{suffix}"

    def _storage_error(self, error: OSError, doing: str) -> GlossaryStorageError:
        log.error("document store %s: %s failed", self.directory, doing, exc_info=error)
        return GlossaryStorageError(
            f"documents cannot be {doing} in {self.directory} ({error.strerror or error}); "
            f"point --glossary-dir at a writable directory (documents are kept in its documents/ folder)"
        )

    def _records(self) -> list[Path]:
        try:
            return [p for p in self.directory.iterdir() if p.suffix == ".json" and _ID.fullmatch(p.stem)]
        except FileNotFoundError:
            return []

    def _ended(self, path: Path, record: Record, now: float) -> float:
        """When the document was done or failed; for a `translating` record untouched for `STALE`
        seconds (its server stopped), its last touch plus `STALE`; 0 while it is being translated."""
        if record.finished:
            return record.finished
        try:
            touched = path.stat().st_mtime
        except FileNotFoundError:
            return 0.0
        return touched + STALE if now - touched > STALE else 0.0

    def _expired(self, path: Path, record: Record, now: float) -> bool:
        ended = self._ended(path, record, now)
        return bool(ended) and ended + self.ttl <= now

    def _delete(self, document_id: str) -> None:
        for suffix in (".json", ".out"):
            self._path(document_id, suffix).unlink(missing_ok=True)

    # ---- writing ------------------------------------------------------------------------------

    def add(self, name: str, characters: int, owner: str | None = "") -> tuple[Record, str]:
        """A new document of `owner` being translated: (its record, its key). QueueFull at capacity."""
        key = uuid.uuid4().hex.upper() + uuid.uuid4().hex.upper()
        record = Record(
            uuid.uuid4().hex.upper(), _digest(key), name, characters, created=self.clock(), owner=owner or ""
        )
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self.expire()
            with locked(self.directory):
                held = len(self._records())
                if held >= self.capacity:
                    raise QueueFull(f"{held} documents are being translated or waiting for download")
                self._write(record)
        except OSError as error:
            raise self._storage_error(error, "written") from None
        return record, key

    def _write(self, record: Record) -> None:
        data = json.dumps(asdict(record), ensure_ascii=False).encode()
        write_atomically(self._path(record.document_id), data)

    def finish(self, record: Record, result: bytes | None, error: str = "") -> Record:
        """The document done (`result`: the translated file) or failed (`error`)."""
        status = "done" if result is not None else "error"
        done = replace(record, status=status, error=error, finished=self.clock())
        try:
            if result is not None:
                write_atomically(self._path(record.document_id, ".out"), result)
            self._write(done)
        except OSError as error:
            raise self._storage_error(error, "written") from None
        return done

    def touch(self, document_id: str) -> None:
        """The heartbeat of a document being translated (see the module docstring)."""
        try:
            os.utime(self._path(document_id))
        except FileNotFoundError:
            pass  # expired or taken meanwhile: nothing to keep alive

    def expire(self) -> None:
        """Delete the documents done, failed or stopped `ttl` seconds ago or more."""
        now = self.clock()
        for path in self._records():
            try:
                record = self._read(path)
            except DocumentNotFound:
                continue
            if self._expired(path, record, now):
                self._delete(record.document_id)

    # ---- reading ------------------------------------------------------------------------------

    def _read(self, path: Path) -> Record:
        try:
            return Record(**json.loads(path.read_bytes()))
        except FileNotFoundError:
            raise DocumentNotFound() from None
        except (ValueError, TypeError):
            log.warning("document record %s is not a record: skipped", path)
            raise DocumentNotFound() from None
        except OSError as error:
            raise self._storage_error(error, "read") from None

    def status(self, document_id: str, key: object, owner: str | None = None) -> Record:
        """The document's record, if `key` is its key and `owner` (a key's name; None: any) uploaded
        it (DocumentNotFound otherwise); a stopped translation reads as an error."""
        path = self._path(document_id)
        record = self._read(path)
        if not isinstance(key, str) or not hmac.compare_digest(_digest(key), record.key_sha256):
            raise DocumentNotFound()
        if owner is not None and record.owner != owner:
            raise DocumentNotFound()
        now = self.clock()
        if self._expired(path, record, now):
            raise DocumentNotFound()
        if record.status == "translating" and self._ended(path, record, now):
            return replace(record, status="error", error=STOPPED)
        return record

    def take(self, record: Record) -> bytes | None:
        """The translated file of a done document, deleting it (one download); None if it
        failed (deleted too). DocumentNotFound when another server took it first."""
        claimed = self.directory / f".taken-{uuid.uuid4().hex}-{record.document_id}.json"
        try:
            os.rename(self._path(record.document_id), claimed)
        except FileNotFoundError:
            raise DocumentNotFound() from None
        out = self._path(record.document_id, ".out")
        try:
            return out.read_bytes() if record.status == "done" else None
        except FileNotFoundError:
            raise DocumentNotFound() from None
        finally:
            out.unlink(missing_ok=True)
            claimed.unlink(missing_ok=True)
