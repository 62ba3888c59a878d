"""Soak test: `traductor serve` under a steady mixed load for a bounded time.

    python scripts/soak.py --model build/bundle --minutes 10 --json-out soak.json

Starts the server as a subprocess (free ports, --threads 1), then drives it with the client
library from a few worker threads: unary calls, streams, streams cancelled after their first
token and calls with a deadline too short to meet. Every minute it samples the server's RSS
(/proc/PID/status) and the p99 latency of the calls that completed. At the end it prints a
table and a JSON report: unexpected errors (anything but the deliberate cancels and
deadlines), RSS after warm-up vs end, p99 of the first vs the last minute. Exit status 1 if
any unexpected error happened or the server died.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

from traductor_client import NO_RETRY, DeadlineExceeded, TranslatorClient, TranslatorError

TEXTS = [
    "File not found",
    "Permission denied",
    "Could not open %s for writing",
    "Save changes before closing?",
    "The connection was reset by the peer.",
    "Delete %d files?",
    "uno dos tres",
    "cuatro cinco seis siete",
    "An unexpected error occurred while reading the configuration file.",
    "Cancel",
]
KINDS = ("unary", "stream", "cancel", "deadline")
WEIGHTS = (0.45, 0.35, 0.1, 0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]


class Soak:
    def __init__(self, target: str, workers: int, seed: int, texts: list[str], max_new_tokens: int):
        self.target, self.workers, self.texts = target, workers, texts
        self.long = min(60, max_new_tokens)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.latencies: list[float] = []  # completed calls of the current minute (seconds)
        self.counts: Counter = Counter()  # (kind, outcome)
        self.unexpected: list[str] = []
        self.rng = random.Random(seed)

    def one(self, client: TranslatorClient, rng: random.Random) -> None:
        kind = rng.choices(KINDS, WEIGHTS)[0]
        text = rng.choice(self.texts)
        start = time.monotonic()
        try:
            if kind == "unary":
                client.translate(text)
            elif kind == "stream":
                list(client.stream_events(text))
            elif kind == "cancel":  # leave the loop after the first token: the client cancels the RPC
                for _ in client.stream_events(text, min_new_tokens=self.long // 2, max_new_tokens=self.long):
                    break
            else:  # a deadline no translation can meet
                client.translate(text, min_new_tokens=self.long, max_new_tokens=self.long, timeout=0.002)
            outcome = "ok"
        except DeadlineExceeded:
            outcome = "deadline"
        except TranslatorError as e:
            outcome = e.code_name
        elapsed = time.monotonic() - start
        expected = outcome == "ok" or (kind == "deadline" and outcome == "deadline")
        with self.lock:
            self.counts[(kind, outcome)] += 1
            if kind in ("unary", "stream") and outcome == "ok":
                self.latencies.append(elapsed)
            if not expected:
                self.unexpected.append(f"{kind}: {outcome}")

    def worker(self, index: int) -> None:
        rng = random.Random(self.rng.random() + index)
        with TranslatorClient(self.target, retry=NO_RETRY, timeout=30) as client:
            while not self.stop.is_set():
                try:
                    self.one(client, rng)
                except Exception as e:  # noqa: BLE001 - a soak run reports, it does not crash
                    with self.lock:
                        self.unexpected.append(f"exception: {e!r}")

    def take_latencies(self) -> list[float]:
        with self.lock:
            taken, self.latencies = self.latencies, []
        return taken


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="", help="bundle directory (default: the bundled default model)")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--warmup-minutes", type=float, default=1.0, help="RSS baseline is taken after this")
    ap.add_argument("--workers", type=int, default=4, help="concurrent client threads")
    ap.add_argument("--interval", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--threads", type=int, default=1, help="server ONNX Runtime threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json-out", default="")
    ap.add_argument("--server-log", default="soak-server.log", help="the server's stdout/stderr")
    args = ap.parse_args(argv)

    port, metrics_port = free_port(), free_port()
    cmd = [
        sys.executable,
        "-m",
        "traductor.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--metrics-port",
        str(metrics_port),
        "--threads",
        str(args.threads),
        "--log-level",
        "WARNING",
    ]
    if args.model:
        cmd += ["--model", args.model]
    log = open(args.server_log, "wb")
    server = subprocess.Popen(
        cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    )
    target = f"127.0.0.1:{port}"
    samples, started = [], time.monotonic()
    try:
        with TranslatorClient(target, retry=NO_RETRY, timeout=5) as probe:
            for _ in range(600):
                try:
                    if probe.health() == "SERVING":
                        break
                except TranslatorError:
                    pass
                if server.poll() is not None:
                    raise SystemExit(f"server exited with {server.returncode} before serving")
                time.sleep(0.2)
            else:
                raise SystemExit("server not SERVING after 120 s")
            # Only texts this model accepts (a small test bundle refuses long ones), and lengths
            # within its limits: every INVALID_ARGUMENT during the run is then unexpected.
            limit = probe.model_info().max_new_tokens
            texts = []
            for text in TEXTS:
                try:
                    probe.translate(text, timeout=30)
                    texts.append(text)
                except TranslatorError:
                    pass
        soak = Soak(target, args.workers, args.seed, texts, limit)
        threads = [threading.Thread(target=soak.worker, args=(i,), daemon=True) for i in range(args.workers)]
        begin = time.monotonic()
        for t in threads:
            t.start()
        end = begin + args.minutes * 60
        while time.monotonic() < end and server.poll() is None:
            time.sleep(max(0.0, min(args.interval, end - time.monotonic())))
            lat = soak.take_latencies()
            samples.append(
                {
                    "minute": round((time.monotonic() - begin) / 60, 2),
                    "rss_mib": round(rss_kib(server.pid) / 1024, 1),
                    "completed": len(lat),
                    "p99_ms": round(p99(lat) * 1000, 1) if lat else None,
                }
            )
            print(f"[soak] {samples[-1]}", file=sys.stderr, flush=True)
        soak.stop.set()
        for t in threads:
            t.join(60)
        died = server.poll() is not None
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            exit_code = server.wait(30)
        else:
            exit_code = server.returncode
        log.close()
    with open(args.server_log, errors="replace") as f:
        server_log = f.read()

    warm = [s for s in samples if s["minute"] >= args.warmup_minutes] or samples
    rss_start, rss_end = warm[0]["rss_mib"], samples[-1]["rss_mib"]
    p99s = [s["p99_ms"] for s in samples if s["p99_ms"] is not None]
    report = {
        "command": " ".join(sys.argv),
        "model": args.model or "default",
        "minutes": round((time.monotonic() - started) / 60, 2),
        "workers": args.workers,
        "requests": {f"{k}:{o}": n for (k, o), n in sorted(soak.counts.items())},
        "total_requests": sum(soak.counts.values()),
        "unexpected_errors": len(soak.unexpected),
        "unexpected_examples": sorted(Counter(soak.unexpected).items())[:10],
        "rss_mib_after_warmup": rss_start,
        "rss_mib_end": rss_end,
        "rss_growth_pct": round(100 * (rss_end - rss_start) / rss_start, 2),
        "p99_ms_first_minute": p99s[0] if p99s else None,
        "p99_ms_last_minute": p99s[-1] if p99s else None,
        "texts": len(texts),
        "server_log_tracebacks": server_log.count("Traceback"),
        "server_log_execute_batch_errors": server_log.count("ExecuteBatchError:"),
        "server_died": died,
        "server_exit_code": exit_code,
        "samples": samples,
    }
    print(f"{'minute':>7} {'rss MiB':>8} {'done':>6} {'p99 ms':>8}")
    for s in samples:
        p99_text = s["p99_ms"] if s["p99_ms"] is not None else "-"
        print(f"{s['minute']:>7} {s['rss_mib']:>8} {s['completed']:>6} {p99_text:>8}")
    print(f"requests {report['total_requests']} ({', '.join(f'{k}={v}' for k, v in report['requests'].items())})")
    print(
        f"unexpected errors {report['unexpected_errors']}; RSS {rss_start} -> {rss_end} MiB "
        f"({report['rss_growth_pct']:+.2f}%); "
        f"p99 {report['p99_ms_first_minute']} -> {report['p99_ms_last_minute']} ms; "
        f"server exit {exit_code}; tracebacks in server log {report['server_log_tracebacks']}"
    )
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(report, f, indent=2)
    return 1 if report["unexpected_errors"] or died or exit_code != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
