"""The embedded key store: one SQLite file (`keys.sqlite3` in the server's data directory, the
glossary directory; made at the first use), for one server or the processes of one machine.

    keys    one row a key: name, the secret's SHA-256, limits, pairs, models, created, revoked
    hits    (name, time) of each call accepted in the last minute, for keys with a request limit
    chars   (name, period, count): characters of a day ("d:2026-05-01") or a month ("m:2026-05")

`charge` runs in one `BEGIN IMMEDIATE` transaction (the file's write lock), so two processes on
the same file cannot both take the last request or character. WAL journal, synchronous=NORMAL:
a charge costs no fsync. One connection, shared by the threads that call it under a lock.
This module knows nothing about the servers that call it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from pathlib import Path

from ...errors import InvalidInput, KeyStoreDown, UnknownKey
from .model import WINDOW, Key, Limits, Refusal, Usage, periods

SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    name TEXT PRIMARY KEY, digest TEXT UNIQUE NOT NULL, requests_per_minute INTEGER NOT NULL,
    chars_per_day INTEGER NOT NULL, chars_per_month INTEGER NOT NULL, pairs TEXT NOT NULL,
    models TEXT NOT NULL, created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS hits (name TEXT NOT NULL, at REAL NOT NULL, id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hits_by_name ON hits (name, at);
CREATE TABLE IF NOT EXISTS chars (name TEXT NOT NULL, period TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (name, period));
"""
COLUMNS = "name, digest, requests_per_minute, chars_per_day, chars_per_month, pairs, models, created, revoked"


def _key(row) -> Key:
    name, dig, rpm, cpd, cpm, pairs, models, created, revoked = row
    return Key(
        name, dig, Limits(rpm, cpd, cpm), tuple(json.loads(pairs)), tuple(json.loads(models)), created, bool(revoked)
    )


class SqliteKeyStore:
    def __init__(self, path: Path | str, timeout: float = 5.0):
        self.path = Path(path)
        self.where = str(self.path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise KeyStoreDown(f"the key file {self.path} cannot be opened ({error})") from None

    def _run(self, work):
        with self._lock:
            try:
                return work(self._db)
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as error:
                raise KeyStoreDown(f"the key file {self.path} does not answer ({error})") from None

    def _transaction(self, work):
        def run(db):
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        return self._run(run)

    def add(self, key: Key) -> None:
        row = (key.name, key.digest, *_limits(key.limits), json.dumps(key.pairs), json.dumps(key.models))
        try:
            self._run(
                lambda db: db.execute(
                    f"INSERT INTO keys ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", (*row, key.created, int(key.revoked))
                )
            )
        except sqlite3.IntegrityError:
            raise InvalidInput(f"a key named {key.name!r} exists already (revoked keys keep their name)") from None

    def get(self, name: str) -> Key:
        row = self._run(lambda db: db.execute(f"SELECT {COLUMNS} FROM keys WHERE name = ?", (name,)).fetchone())
        if row is None:
            raise UnknownKey(f"no key named {name!r} in {self.where}")
        return _key(row)

    def by_digest(self, digest: str) -> Key | None:
        row = self._run(lambda db: db.execute(f"SELECT {COLUMNS} FROM keys WHERE digest = ?", (digest,)).fetchone())
        return None if row is None else _key(row)

    def list(self) -> list[Key]:
        rows = self._run(lambda db: db.execute(f"SELECT {COLUMNS} FROM keys ORDER BY name").fetchall())
        return [_key(r) for r in rows]

    def save(self, key: Key) -> None:
        values = (*_limits(key.limits), json.dumps(key.pairs), json.dumps(key.models), int(key.revoked), key.name)
        sql = (
            "UPDATE keys SET requests_per_minute=?, chars_per_day=?, chars_per_month=?, pairs=?, models=?, revoked=?"
            " WHERE name=?"
        )
        if self._run(lambda db: db.execute(sql, values).rowcount) == 0:
            raise UnknownKey(f"no key named {key.name!r} in {self.where}")

    def charge(self, name: str, limits: Limits, chars: int, now: float) -> Refusal | None:
        p = periods(now)
        day, month = f"d:{p.day}", f"m:{p.month}"

        def work(db) -> Refusal | None:
            rpm = limits.requests_per_minute
            if rpm:
                db.execute("DELETE FROM hits WHERE name = ? AND at <= ?", (name, now - WINDOW))
                count, oldest = db.execute("SELECT count(*), min(at) FROM hits WHERE name = ?", (name,)).fetchone()
                if count >= rpm:
                    # at most one window: the oldest hit may carry a clock read after `now` (a
                    # concurrent call that reached the store first, or another server)
                    return Refusal("rate", min(WINDOW, oldest + WINDOW - now), rpm, count)
            used = dict(
                db.execute(
                    "SELECT period, count FROM chars WHERE name = ? AND period IN (?, ?)", (name, day, month)
                ).fetchall()
            )
            for kind, limit, period, left in (
                ("day", limits.chars_per_day, day, p.day_left),
                ("month", limits.chars_per_month, month, p.month_left),
            ):
                if limit and used.get(period, 0) + chars > limit:
                    return Refusal(kind, left, limit, used.get(period, 0))
            if rpm:
                db.execute("INSERT INTO hits (name, at, id) VALUES (?, ?, ?)", (name, now, uuid.uuid4().hex))
            if chars:
                for period in (day, month):
                    db.execute(
                        "INSERT INTO chars (name, period, count) VALUES (?, ?, ?) "
                        "ON CONFLICT (name, period) DO UPDATE SET count = count + excluded.count",
                        (name, period, chars),
                    )
                db.execute("DELETE FROM chars WHERE name = ? AND period NOT IN (?, ?)", (name, day, month))
            return None

        return self._transaction(work)

    def usage(self, name: str, now: float) -> Usage:
        p = periods(now)
        rows = self._run(lambda db: db.execute("SELECT period, count FROM chars WHERE name = ?", (name,)).fetchall())
        used = dict(rows)
        return Usage(used.get(f"d:{p.day}", 0), used.get(f"m:{p.month}", 0))

    def ping(self) -> None:
        self._run(lambda db: db.execute("SELECT 1").fetchone())

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _limits(limits: Limits) -> tuple[int, int, int]:
    return limits.requests_per_minute, limits.chars_per_day, limits.chars_per_month
