"""The key check's cost a call (docs/keys.md): what every keyed call adds before any
translation, `Gate.caller` (the key, read from the store at most every 0.5 s) and `Gate.charge`
(one atomic round trip to the store), measured on the event loop as the server runs them.

    .venv/bin/python scripts/measure/key_check.py [--calls 2000] [--redis redis://127.0.0.1:6379/0]

Stores: the SQLite file (a temporary directory) and, with --redis, that Redis (its database is
flushed first: give a spare one). Prints microseconds a call (median and p90 over the calls) for
the --token alone, a key without limits, and a key with a request and a character limit."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from traductor.service.keys.gate import Gate
from traductor.service.keys.model import Limits, new_key
from traductor.service.keys.stores import open_store


async def measure(gate: Gate, secret: str, calls: int) -> dict:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        caller = await gate.caller(secret)
        await gate.charge(caller, 40)
        times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    return {"median_us": round(statistics.median(times), 1), "p90_us": round(times[int(len(times) * 0.9)], 1)}


async def run(store, calls: int) -> dict:
    plain, plain_secret = new_key("plain", Limits())
    limited, limited_secret = new_key("limited", Limits(requests_per_minute=10**9, chars_per_day=10**12))
    store.add(plain)
    store.add(limited)
    gate = Gate(store, token="the-admin-token")
    return {
        "token": await measure(gate, "the-admin-token", calls),
        "key": await measure(gate, plain_secret, calls),
        "key_with_limits": await measure(gate, limited_secret, calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--redis", default="")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        store = open_store(path=Path(directory) / "keys.sqlite3")
        results["sqlite"] = asyncio.run(run(store, args.calls))
        store.close()
    if args.redis:
        store = open_store(args.redis)
        store._redis.flushdb()
        results["redis"] = asyncio.run(run(store, args.calls))
        store.close()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
