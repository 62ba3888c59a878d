"""The key stores (service/keys): SQLite and a real Redis behave the same: keys kept hashed, a
name once, limits decided and counted atomically under concurrent calls (threads, and two
connections to one store as two servers or processes have)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from redis_harness import redis_server  # noqa: F401  (the fixture)

from traductor.errors import InvalidInput, KeyStoreDown, UnknownKey
from traductor.service.keys.model import WINDOW, Limits, digest, new_key, periods
from traductor.service.keys.stores import open_store

NOW = 1_780_000_000.0  # a fixed moment (2026-05-28 UTC): counters do not depend on the test's clock


@pytest.fixture(params=["sqlite", "redis"])
def stores(request, tmp_path):
    """Two connections to one fresh store."""
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        first = open_store(server.url)
        first._redis.flushdb()
        second = open_store(server.url)
    else:
        first, second = open_store(path=tmp_path / "keys.sqlite3"), open_store(path=tmp_path / "keys.sqlite3")
    yield first, second
    first.close()
    second.close()


def test_a_key_is_kept_by_its_digest_never_its_secret(stores, tmp_path):
    store, other = stores
    key, secret = new_key("alice", Limits(requests_per_minute=5), pairs=("en-es",), now=NOW)
    store.add(key)
    assert secret.startswith("trk_") and len(secret) > 40
    assert other.by_digest(digest(secret)) == key and other.get("alice") == key
    assert other.by_digest(digest(secret + "x")) is None
    if hasattr(store, "path"):
        assert secret.encode() not in store.path.read_bytes()
    with pytest.raises(InvalidInput, match="exists already"):
        other.add(new_key("alice", Limits())[0])
    with pytest.raises(UnknownKey):
        store.get("bob")


def test_set_and_revoke_are_seen_by_the_other_connection(stores):
    store, other = stores
    key, secret = new_key("alice", Limits(), now=NOW)
    store.add(key)
    store.save(replace(key, limits=Limits(chars_per_day=10), revoked=True))
    seen = other.by_digest(digest(secret))
    assert seen.revoked and seen.limits.chars_per_day == 10
    assert [k.name for k in other.list()] == ["alice"]
    with pytest.raises(UnknownKey):
        store.save(replace(key, name="bob"))


def test_the_request_limit_holds_under_concurrent_calls_on_two_connections(stores):
    store, other = stores
    limits = Limits(requests_per_minute=7)
    start = threading.Barrier(16)

    def call(i: int):
        start.wait()
        return (store if i % 2 else other).charge("alice", limits, 0, NOW)

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(call, range(16)))
    assert sum(a is None for a in answers) == 7
    refused = [a for a in answers if a is not None]
    assert {a.kind for a in refused} == {"rate"} and all(0 < a.retry_after <= WINDOW for a in refused)
    # a minute after the first calls, their places are free again
    assert store.charge("alice", limits, 0, NOW + WINDOW + 1) is None


def test_characters_per_day_and_month(stores):
    store, other = stores
    limits = Limits(chars_per_day=100, chars_per_month=150)
    assert store.charge("alice", limits, 60, NOW) is None
    refused = other.charge("alice", limits, 41, NOW)
    assert refused.kind == "day" and refused.limit == 100 and refused.used == 60
    assert refused.retry_after == pytest.approx(periods(NOW).day_left)
    assert other.charge("alice", limits, 40, NOW) is None
    tomorrow = NOW + 86400
    assert store.usage("alice", tomorrow).day == 0 and store.usage("alice", NOW).day == 100
    assert store.charge("alice", limits, 60, tomorrow).kind == "month"  # 100 + 60 > 150 this month
    assert store.charge("alice", limits, 50, tomorrow) is None
    assert other.usage("alice", tomorrow).month == 150


def test_a_store_that_does_not_answer_is_key_store_down():
    down = open_store("redis://127.0.0.1:1/0")  # nobody listens there
    with pytest.raises(KeyStoreDown) as e:
        down.ping()
    assert "Redis" in str(e.value)
    secret_url = open_store("redis://user:hunter2@127.0.0.1:1/0")
    assert "hunter2" not in secret_url.where
    with pytest.raises(KeyStoreDown) as e:
        secret_url.charge("alice", Limits(), 1, NOW)
    assert "hunter2" not in str(e.value)


def test_a_refusal_waits_at_most_one_window_when_a_later_clock_reached_the_store_first(stores):
    # Calls read the clock before they reach the store; a call that read it later can be counted
    # first (a concurrent call, another replica). The one refused then waits at most the window
    # (HTTP's Retry-After was 61 s in a CI run).
    store, other = stores
    limits = Limits(requests_per_minute=2)
    assert store.charge("alice", limits, 0, NOW + 3) is None
    assert other.charge("alice", limits, 0, NOW + 2.5) is None
    refused = store.charge("alice", limits, 0, NOW)
    assert refused.kind == "rate" and refused.retry_after == WINDOW
