"""The shared key store: Redis, for replicas (`--keys-redis redis://host:6379/0`).

    traductor:{NAME}:key        hash: the key (digest, limits, pairs, models, created, revoked)
    traductor:{NAME}:hits       sorted set: the calls accepted in the last minute (score: time)
    traductor:{NAME}:d:DAY      characters of a UTC day (expires the day after)
    traductor:{NAME}:m:MONTH    characters of a UTC month (expires after it)
    traductor:digest:DIGEST     the name of the key whose secret has this SHA-256
    traductor:keys              set of the names

`charge` is one Lua script (CHARGE), which Redis runs atomically: replicas sharing the store
cannot together let more calls or characters through than a key's limits. The `{NAME}` hash tag
keeps one key's entries in one slot. A Redis error becomes KeyStoreDown (callers fail closed);
`where` shows the URL without its password. This module knows nothing about the servers.
"""

from __future__ import annotations

import json
import math
import uuid
from urllib.parse import urlsplit, urlunsplit

import redis

from ...errors import InvalidInput, KeyStoreDown, UnknownKey
from .model import WINDOW, Key, Limits, Refusal, Usage, periods

PREFIX = "traductor:"
TIMEOUT = 1.0  # seconds to connect to, or hear from, Redis before a call fails closed

# KEYS: hits, day, month; ARGV: now, window, rpm, per day, per month, chars, day ttl, month ttl, member
CHARGE = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local rpm, cpd, cpm, chars = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  local count = redis.call('ZCARD', KEYS[1])
  if count >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    -- at most one window: a hit stamped by a clock read after `now` (another call, another replica)
    return {'rate', tostring(math.min(window, tonumber(oldest[2]) + window - now)), rpm, count}
  end
end
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
if cpd > 0 and day + chars > cpd then return {'day', ARGV[7], cpd, day} end
local month = tonumber(redis.call('GET', KEYS[3]) or '0')
if cpm > 0 and month + chars > cpm then return {'month', ARGV[8], cpm, month} end
if rpm > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[9])
  redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
end
if chars > 0 then
  redis.call('INCRBY', KEYS[2], chars)
  redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[7])) + 86400)
  redis.call('INCRBY', KEYS[3], chars)
  redis.call('EXPIRE', KEYS[3], math.ceil(tonumber(ARGV[8])) + 86400)
end
return {'ok'}
"""


def shown_url(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _name_key(name: str, what: str) -> str:
    return f"{PREFIX}{{{name}}}:{what}"


class RedisKeyStore:
    def __init__(self, url: str, timeout: float = TIMEOUT):
        self.where = shown_url(url)
        try:
            self._redis = redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, decode_responses=True
            )
        except ValueError as error:
            raise InvalidInput(f"--keys-redis: not a Redis URL ({error}); as redis://host:6379/0") from None
        self._charge = self._redis.register_script(CHARGE)

    def _run(self, work):
        try:
            return work(self._redis)
        except redis.RedisError as error:
            raise KeyStoreDown(
                f"the key store (Redis at {self.where}) does not answer ({type(error).__name__})"
            ) from None

    def add(self, key: Key) -> None:
        fields = _fields(key)

        def work(r):
            if not r.hsetnx(_name_key(key.name, "key"), "digest", key.digest):
                raise InvalidInput(f"a key named {key.name!r} exists already (revoked keys keep their name)")
            pipe = r.pipeline()
            pipe.hset(_name_key(key.name, "key"), mapping=fields)
            pipe.set(f"{PREFIX}digest:{key.digest}", key.name)
            pipe.sadd(f"{PREFIX}keys", key.name)
            pipe.execute()

        self._run(work)

    def get(self, name: str) -> Key:
        found = self._run(lambda r: r.hgetall(_name_key(name, "key")))
        if not found:
            raise UnknownKey(f"no key named {name!r} in {self.where}")
        return _key(name, found)

    def by_digest(self, digest: str) -> Key | None:
        name = self._run(lambda r: r.get(f"{PREFIX}digest:{digest}"))
        if name is None:
            return None
        found = self._run(lambda r: r.hgetall(_name_key(name, "key")))
        return _key(name, found) if found else None

    def list(self) -> list[Key]:
        names = sorted(self._run(lambda r: r.smembers(f"{PREFIX}keys")))
        keys = []
        for name in names:
            found = self._run(lambda r, name=name: r.hgetall(_name_key(name, "key")))
            if found:
                keys.append(_key(name, found))
        return keys

    def save(self, key: Key) -> None:
        self.get(key.name)  # UnknownKey
        self._run(lambda r: r.hset(_name_key(key.name, "key"), mapping=_fields(key)))

    def charge(self, name: str, limits: Limits, chars: int, now: float) -> Refusal | None:
        p = periods(now)
        keys = [_name_key(name, "hits"), _name_key(name, f"d:{p.day}"), _name_key(name, f"m:{p.month}")]
        args = [
            repr(now),
            repr(WINDOW),
            limits.requests_per_minute,
            limits.chars_per_day,
            limits.chars_per_month,
            chars,
            repr(p.day_left),
            repr(p.month_left),
            f"{now!r}:{uuid.uuid4().hex}",
        ]
        answer = self._run(lambda r: self._charge(keys=keys, args=args, client=r))
        if answer[0] == "ok":
            return None
        kind, retry, limit, used = answer
        return Refusal(kind, max(0.0, float(retry)), int(limit), int(used))

    def usage(self, name: str, now: float) -> Usage:
        p = periods(now)
        day, month = self._run(lambda r: r.mget(_name_key(name, f"d:{p.day}"), _name_key(name, f"m:{p.month}")))
        return Usage(int(day or 0), int(month or 0))

    def ping(self) -> None:
        self._run(lambda r: r.ping())

    def close(self) -> None:
        self._redis.close()


def _fields(key: Key) -> dict:
    lim = key.limits
    return {
        "digest": key.digest,
        "requests_per_minute": lim.requests_per_minute,
        "chars_per_day": lim.chars_per_day,
        "chars_per_month": lim.chars_per_month,
        "pairs": json.dumps(key.pairs),
        "models": json.dumps(key.models),
        "created": repr(key.created),
        "revoked": int(key.revoked),
    }


def _key(name: str, f: dict) -> Key:
    limits = Limits(
        int(f.get("requests_per_minute", 0)), int(f.get("chars_per_day", 0)), int(f.get("chars_per_month", 0))
    )
    pairs, models = tuple(json.loads(f.get("pairs", "[]"))), tuple(json.loads(f.get("models", "[]")))
    created = float(f.get("created", 0)) if math.isfinite(float(f.get("created", 0))) else 0.0
    return Key(name, f.get("digest", ""), limits, pairs, models, created, f.get("revoked", "0") == "1")
