"""What a key is, and the `KeyStore` Protocol where the SQLite and Redis stores meet.

A key has a name (what logs, metrics and the `keys` command show), the SHA-256 of its secret
(the secret itself is printed once, by `keys add`, and never stored), its limits and, optionally,
the models and language pairs it may use. The secret is 32 random bytes, URL-safe, prefixed
`trk_`; it has all its entropy in it, so one unsalted SHA-256 is enough to store it.

Limits (0: none):
- requests_per_minute: translating calls (text, stream, file, document, detect) accepted in any
  60 seconds (a sliding window: the accepted calls' times are kept a minute);
- chars_per_day / chars_per_month: characters sent to translate in the current UTC day / month.

`KeyStore.charge` decides and counts in one atomic step (a SQLite transaction, a Redis Lua
script), so that concurrent calls, on one server or on replicas sharing the store, never let
more through than the limits. This module knows nothing about HTTP, gRPC or where a store lives.
"""

from __future__ import annotations

import calendar
import hashlib
import re
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Protocol

from ...errors import InvalidInput

WINDOW = 60.0  # seconds of the requests-per-minute window
SECRET_PREFIX = "trk_"
RESERVED = ("admin", "anonymous")  # the names of the --token caller and of an open server's
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_PAIR = re.compile(r"[a-z]{2,3}-[a-z]{2,3}")  # languages alone: a pair covers every region and script


@dataclass(frozen=True)
class Limits:
    requests_per_minute: int = 0
    chars_per_day: int = 0
    chars_per_month: int = 0

    def __post_init__(self):
        for name in ("requests_per_minute", "chars_per_day", "chars_per_month"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise InvalidInput(f"{name.replace('_', '-')} must be a whole number, 0 or more (0: no limit)")


@dataclass(frozen=True)
class Key:
    name: str
    digest: str  # sha256 hex of the secret
    limits: Limits = Limits()
    pairs: tuple[str, ...] = ()  # "en-es": the language pairs it may translate; (): any
    models: tuple[str, ...] = ()  # the served models it may use; (): any
    created: float = 0.0  # time.time()
    revoked: bool = False

    def shown(self) -> dict:
        """What `keys list` prints (never the digest)."""
        limits = self.limits
        return {
            "name": self.name,
            "requests_per_minute": limits.requests_per_minute,
            "chars_per_day": limits.chars_per_day,
            "chars_per_month": limits.chars_per_month,
            "pairs": list(self.pairs),
            "models": list(self.models),
            "created": datetime.fromtimestamp(self.created, timezone.utc).isoformat(timespec="seconds"),
            "revoked": self.revoked,
        }


@dataclass(frozen=True)
class Refusal:
    """Why `charge` refused a call: `kind` rate, day or month; `retry_after` seconds until it
    would pass; the limit and what was used of it."""

    kind: str
    retry_after: float
    limit: int
    used: int


@dataclass(frozen=True)
class Usage:
    day: int = 0  # characters of the current UTC day
    month: int = 0  # of the current UTC month


@dataclass(frozen=True)
class Periods:
    """The counters' periods at a moment: their names and the seconds until each ends."""

    day: str
    month: str
    day_left: float
    month_left: float
    now: float = field(default=0.0)


def periods(now: float) -> Periods:
    moment = datetime.fromtimestamp(now, timezone.utc)
    day_end = calendar.timegm(moment.date().timetuple()) + 86400
    days = calendar.monthrange(moment.year, moment.month)[1]
    month_end = calendar.timegm(moment.replace(day=1).date().timetuple()) + days * 86400
    return Periods(moment.strftime("%Y-%m-%d"), moment.strftime("%Y-%m"), day_end - now, month_end - now, now)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidInput(f"invalid key name {str(name)[:80]!r}: letters, digits, '_', '.', '-', at most 64")
    if name.lower() in RESERVED:
        raise InvalidInput(f"{name!r} is reserved (the --token caller is 'admin', an open server's 'anonymous')")
    return name


def check_pairs(pairs: tuple[str, ...]) -> tuple[str, ...]:
    pairs = tuple(p.lower() for p in pairs)
    for pair in pairs:
        if not _PAIR.fullmatch(pair):
            raise InvalidInput(f"invalid language pair {pair[:40]!r}: source-target, as en-es")
    return tuple(pairs)


def new_key(name: str, limits: Limits, pairs=(), models=(), now: float | None = None) -> tuple[Key, str]:
    """A fresh key and its secret (shown once)."""
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    created = time.time() if now is None else now
    key = Key(check_name(name), digest(secret), limits, check_pairs(tuple(pairs)), tuple(models), created)
    return key, secret


class KeyStore(Protocol):
    """Where keys and their counters live (sqlite_store.SqliteKeyStore, redis_store.RedisKeyStore).
    Every method may raise KeyStoreDown when the store does not answer."""

    where: str  # what the store is, for messages (a path, or a Redis URL without its password)

    def add(self, key: Key) -> None:
        """Store a new key (InvalidInput when the name is taken)."""

    def get(self, name: str) -> Key:
        """The key of a name (UnknownKey when there is none)."""

    def by_digest(self, digest: str) -> Key | None:
        """The key whose secret has this SHA-256, revoked or not; None when none has."""

    def list(self) -> list[Key]:
        """Every key, by name."""

    def save(self, key: Key) -> None:
        """Replace the stored key of `key.name` (limits, pairs, models, revoked)."""

    def charge(self, name: str, limits: Limits, chars: int, now: float) -> Refusal | None:
        """Atomically: refuse (returning why) if one more call, or `chars` more characters, would
        pass a limit; else count the call and the characters."""

    def usage(self, name: str, now: float) -> Usage:
        """The characters counted for the key in the current day and month."""

    def ping(self) -> None:
        """Raise KeyStoreDown if the store does not answer."""

    def close(self) -> None:
        """Let go of the connection."""
