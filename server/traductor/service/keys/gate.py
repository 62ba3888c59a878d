"""The key check every interface calls (gRPC, LibreTranslate, DeepL, files, documents, the page):

    caller = await gate.caller(secret)     who calls: Unauthenticated (none, wrong, revoked),
                                           KeyStoreDown (the store does not answer: fail closed)
    gate.check(caller, model, src, tgt)    PermissionDenied outside the key's models and pairs
    await gate.charge(caller, chars)       RateLimited / QuotaExceeded, else the call and its
                                           characters are counted (atomically, in the store)
    await gate.usage(caller)               the key's characters of the day and the month

Callers: a stored key (by name); `admin`, whoever sends the --token (no limits, every glossary
and document); `anonymous`, everyone on a server that asks for no key (today's open server).
`Caller.owner` is what glossaries and documents are kept under: the key's name, or None for the
two that see everything.

A key read from the store is kept `CACHE_SECONDS` (so a revoked key is refused by every server
within a second); counting goes to the store on every call. Store calls run in a worker thread
(the event loop never waits on a disk or a socket). Metrics by key name, never the secret; no
secret is logged or put in a message. This module knows no protocol: each interface reads the
secret its own way and maps the errors to its own statuses.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from dataclasses import dataclass

from ... import languages
from ...errors import KeyStoreDown, PermissionDenied, QuotaExceeded, RateLimited, Unauthenticated
from ..metrics import Metrics
from .model import Key, KeyStore, Usage, digest

log = logging.getLogger("traductor.keys")
CACHE_SECONDS = 0.5
CACHED = 10_000  # keys kept read at most (a flood of random secrets cannot grow it: misses are not kept)
INVALID = "Invalid API key"
PERIOD_WORDS = {"day": "characters of the day (UTC)", "month": "characters of the month (UTC)"}


@dataclass(frozen=True)
class Caller:
    name: str  # the key's name; "admin" (--token); "anonymous" (a server that asks for no key)
    key: Key | None = None  # None for admin and anonymous

    @property
    def owner(self) -> str | None:
        """Whose glossaries and documents the caller sees: None, all of them."""
        return None if self.key is None else self.name

    def check(self, model, source: str = "", target: str = "") -> None:
        """PermissionDenied unless the key may use `model` (a served Model) for source -> target
        (codes in any form; empty: the model's first pair's)."""
        key = self.key
        if key is None or not (key.models or key.pairs):
            return
        for hop in getattr(model, "hops", (model,)):  # a pair through English uses two models (service/pivot.py)
            if key.models and hop.name not in key.models:
                allowed = ", ".join(key.models)
                raise PermissionDenied(f"this key may not use model {hop.name} (it may use: {allowed})")
        if key.pairs:
            first = model.languages[0]
            pair = f"{_base(source or first.source)}-{_base(target or first.target)}"
            if pair not in key.pairs:
                raise PermissionDenied(f"this key may not translate {pair} (it may translate: {', '.join(key.pairs)})")


ADMIN, ANONYMOUS = Caller("admin"), Caller("anonymous")


def _base(code: str) -> str:
    try:
        return languages.tag(code).split("-")[0].lower()
    except Exception:  # noqa: BLE001 - an unknown code: compared as written (it then matches no pair)
        return code.split("-")[0].lower()


class Gate:
    def __init__(self, store: KeyStore | None, token: str = "", metrics: Metrics | None = None, clock=time.time):
        self.store, self.token, self.metrics, self.clock = store, token, metrics, clock
        self._cache: dict[str, tuple[float, Key]] = {}
        self.up = True  # the store answered its last call (a server without a store: always)
        self._set_up(True)

    @property
    def required(self) -> bool:
        """Calls need a key (the --token's, or one of the store's)."""
        return bool(self.token) or self.store is not None

    def _set_up(self, up: bool) -> None:
        if up != self.up:
            log.warning(
                "key store %s: %s", self.store.where, "answers again" if up else "does not answer; calls refused"
            )
        self.up = up
        if self.metrics is not None and self.store is not None:
            self.metrics.key_store_up.set(1 if up else 0)

    async def _store(self, work, name: str = ""):
        try:
            result = await asyncio.to_thread(work, self.store)
        except KeyStoreDown:
            self._set_up(False)
            self._refuse(name, "store_down")
            raise
        self._set_up(True)
        return result

    def _refuse(self, name: str, reason: str) -> None:
        if self.metrics is not None:
            self.metrics.key_refusals.labels(name, reason).inc()

    async def caller(self, secret: object) -> Caller:
        if not self.required:
            return ANONYMOUS
        if not isinstance(secret, str) or not secret:
            self._refuse("", "missing")
            raise Unauthenticated(INVALID)
        given = secret.encode("utf-8", "surrogateescape")
        if self.token and hmac.compare_digest(given, self.token.encode()):
            return ADMIN
        if self.store is None:
            self._refuse("", "unknown")
            raise Unauthenticated(INVALID)
        key = await self._key(digest(secret))
        if key is None:
            self._refuse("", "unknown")
            raise Unauthenticated(INVALID)
        if key.revoked:
            self._refuse(key.name, "revoked")
            raise Unauthenticated(f"{INVALID}: key {key.name} is revoked")
        return Caller(key.name, key)

    async def _key(self, dig: str) -> Key | None:
        now = time.monotonic()
        cached = self._cache.get(dig)
        if cached is not None and cached[0] > now:
            return cached[1]
        key = await self._store(lambda store: store.by_digest(dig))
        if key is not None:
            if len(self._cache) >= CACHED:
                self._cache.clear()
            self._cache[dig] = (now + CACHE_SECONDS, key)
        return key

    def check(self, caller: Caller, model, source: str = "", target: str = "") -> None:
        """Caller.check, counted as a refusal (reason "pair") when it refuses."""
        try:
            caller.check(model, source, target)
        except PermissionDenied:
            self._refuse(caller.name, "pair")
            raise

    async def charge(self, caller: Caller, chars: int) -> None:
        """Count one call of `chars` characters for the caller's key, or refuse it."""
        if caller.key is None:
            self._count(caller.name, chars)
            return
        limits, now = caller.key.limits, self.clock()
        refusal = await self._store(lambda store: store.charge(caller.name, limits, chars, now), caller.name)
        if refusal is None:
            self._count(caller.name, chars)
            return
        self._refuse(caller.name, refusal.kind)
        retry = max(1.0, refusal.retry_after)
        if refusal.kind == "rate":
            raise RateLimited(
                f"key {caller.name}: {refusal.limit} requests a minute used; retry in {retry:.0f} s", retry
            )
        raise QuotaExceeded(
            f"key {caller.name}: quota of {refusal.limit} {PERIOD_WORDS[refusal.kind]} reached "
            f"({refusal.used} used, {chars} asked); it starts again in {retry:.0f} s",
            retry,
        )

    def _count(self, name: str, chars: int) -> None:
        if self.metrics is not None:
            self.metrics.key_requests.labels(name).inc()
            if chars:
                self.metrics.key_characters.labels(name).inc(chars)

    async def usage(self, caller: Caller) -> Usage:
        if caller.key is None:
            return Usage()
        return await self._store(lambda store: store.usage(caller.name, self.clock()))

    async def watch(self, on_change, every: float = 1.0) -> None:
        """Ping the store every `every` seconds; `on_change()` when it goes down or comes back
        (the server's health says so). Runs until cancelled; nothing to do without a store."""
        if self.store is None:
            return
        reported = True  # what health says (the server starts with the store SERVING)
        while True:
            try:
                await self._store(lambda store: store.ping())
            except KeyStoreDown:
                pass  # recorded by _store (self.up, the metric, one log line); health below
            if self.up != reported:  # a call may have found it first: compare with what health says
                reported = self.up
                await on_change()
            await asyncio.sleep(every)
