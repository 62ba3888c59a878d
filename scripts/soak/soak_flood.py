"""A flood burst for scripts/soak/soak.py: ``run_burst`` starts PROCESSES copies of this script,

    python scripts/soak/soak_flood.py TARGET CALLS [--channels N]

each of which opens N connections (each its own HTTP/2 connection: a balancer such as nginx
allows only about 128 concurrent streams on one), prints "ready", waits for a line on stdin (so
that every process starts together), then sends CALLS Translate calls at once (the client
library's sample messages), spread over its connections, with no retry (raw stubs: every refusal
is seen as it is), waits for all of them and prints one JSON line. ``run_burst`` adds them up:
when the burst began and ended (wall clock), the calls per status code, how many refusals
carried the retry hint, and the client-observed latency (p50/p99/max, milliseconds) of the OK
calls and of the RESOURCE_EXHAUSTED refusals, from the moment each call was sent to its
completion callback. What it does not know: which replica refused a call.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections import Counter

import grpc

from traductor_client.loadtest.inputs import load_texts
from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc

TIMEOUT = 120.0  # bounds a call that would hang; a healthy burst is answered within seconds


def percentiles(values: list[float]) -> dict | None:
    if not values:
        return None
    values = sorted(values)

    def at(q: float) -> float:
        return round(values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000, 1)

    return {"p50": at(0.5), "p99": at(0.99), "max": round(values[-1] * 1000, 1)}


def open_channels(target: str, count: int) -> list[grpc.Channel]:
    # a local subchannel pool per channel: otherwise channels to one target share a connection
    channels = [grpc.insecure_channel(target, [("grpc.use_local_subchannel_pool", 1)]) for _ in range(count)]
    for channel in channels:
        grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
    return channels


def burst(target: str, calls: int, channels: int) -> dict:
    conns = open_channels(target, channels)
    print("ready", flush=True)
    sys.stdin.readline()
    stubs = [translator_pb2_grpc.TranslatorStub(c) for c in conns]
    lock, done = threading.Lock(), threading.Event()
    codes, hints, details = Counter(), Counter(), Counter()
    latency = {"OK": [], "RESOURCE_EXHAUSTED": [], "other": []}

    def finished(start: float, future: grpc.Future) -> None:
        elapsed = time.monotonic() - start
        error = future.exception()
        code = "OK" if error is None else error.code().name
        hint = None if error is None else dict(error.trailing_metadata() or ()).get("grpc-retry-pushback-ms")
        with lock:
            codes[code] += 1
            if code not in latency:
                details[f"{code}: {error.details()}"[:160]] += 1
            latency[code if code in latency else "other"].append(elapsed)
            if hint is not None:
                hints[hint] += 1
            if sum(codes.values()) == calls:
                done.set()

    texts = load_texts()  # the client's sample messages, 1 to 12 words
    began = time.time()
    futures = []
    for i in range(calls):
        request = pb.TranslateRequest(text=texts[(i * 7) % len(texts)])
        start = time.monotonic()
        future = stubs[i % len(stubs)].Translate.future(request, timeout=TIMEOUT)
        future.add_done_callback(lambda f, s=start: finished(s, f))
        futures.append(future)
    sent = time.time()
    done.wait(TIMEOUT + 30)
    ended = time.time()
    for c in conns:
        c.close()
    return {
        "began": round(began, 3),
        "sent": round(sent, 3),
        "ended": round(ended, 3),
        "calls": calls,
        "channels": channels,
        "codes": dict(codes),
        "retry_hints": dict(hints),
        "other_details": dict(details.most_common(5)),
        "latency_s": {k: [round(x, 4) for x in v] for k, v in latency.items() if v},
    }


def run_burst(target: str, calls: int, processes: int) -> dict:
    """CALLS calls at once from PROCESSES processes; their results added up."""
    cmd = [sys.executable, os.path.abspath(__file__), target, str(calls // processes)]
    procs = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    for proc in procs:
        proc.stdout.readline()  # "ready" (or the end of the output of a process that failed)
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    parts, exits = [], []
    for proc in procs:
        out, _ = proc.communicate(timeout=TIMEOUT + 120)
        exits.append(proc.returncode)
        if out.strip():
            parts.append(json.loads(out.strip().splitlines()[-1]))
    codes, hints, details, latency = Counter(), Counter(), Counter(), {}
    for part in parts:
        codes.update(part["codes"])
        details.update(part["other_details"])
        hints.update(part["retry_hints"])
        for kind, values in part["latency_s"].items():
            latency.setdefault(kind, []).extend(values)
    return {
        "began": min((p["began"] for p in parts), default=None),
        "sent": max((p["sent"] for p in parts), default=None),
        "ended": max((p["ended"] for p in parts), default=None),
        "calls": calls // processes * processes,
        "processes": processes,
        "process_exits": exits,
        "codes": dict(codes),
        "retry_hints": dict(hints),
        "other_details": dict(details.most_common(5)),
        "latency_ms": {k: percentiles(v) for k, v in latency.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("calls", type=int)
    ap.add_argument("--channels", type=int, default=0, help="connections (default: one per 100 calls)")
    args = ap.parse_args()
    channels = args.channels or max(1, math.ceil(args.calls / 100))
    print(json.dumps(burst(args.target, args.calls, channels)), flush=True)


if __name__ == "__main__":
    main()
