"""Which key store a server or the `keys` command uses: Redis when given a URL (`--keys-redis`),
else the SQLite file `keys.sqlite3` in the server's data directory (the glossary directory,
glossaries.default_dir: --glossary-dir, else <model repository>/glossaries, else
$XDG_DATA_HOME/traductor/glossaries). This module knows no server or command-line parsing."""

from __future__ import annotations

from pathlib import Path

from ..glossaries import default_dir
from ..metrics import Metrics
from ..settings import Settings
from .gate import Gate
from .model import KeyStore

FILE_NAME = "keys.sqlite3"


def keys_path(settings: Settings) -> Path:
    return default_dir(settings) / FILE_NAME


def open_store(redis_url: str = "", path: Path | str = "") -> KeyStore:
    """The Redis store of `redis_url`, else the SQLite store of `path` (made on first use)."""
    if redis_url:
        from .redis_store import RedisKeyStore

        return RedisKeyStore(redis_url)
    from .sqlite_store import SqliteKeyStore

    return SqliteKeyStore(path)


def store_for(settings: Settings) -> KeyStore | None:
    """The store a server checks keys against: None when it checks none (no --api-keys, no
    --keys-redis: only --token, or nothing at all)."""
    if settings.keys_redis:
        return open_store(settings.keys_redis)
    if settings.api_keys:
        return open_store(path=keys_path(settings))
    return None


def gate_for(settings: Settings, metrics: Metrics | None = None) -> Gate:
    """The key check of a server's settings: its store (store_for) and its --token."""
    return Gate(store_for(settings), settings.token, metrics)
