"""Soak test: the production mix against `traductor serve` or a compose stack, for a bounded time.

    python scripts/soak/soak.py --minutes 10 --json-out soak.json                       # a local server
    python scripts/soak/soak.py --target 127.0.0.1:50051 --project traductor-soak \\
        --minutes 30 --flood-every 4 --restart-every 4 --json-out soak.json          # compose

Without --target it starts `traductor serve` as a subprocess (free ports, --threads 1) and its
clients do not retry. With --target it drives an endpoint that is already running (the compose
balancer) with the client library's default retry policy, as a real caller would; with
--project it also samples the RSS of that project's translator replica 1 (never restarted) and,
with --restart-every, restarts replicas 2..N in rotation under load (scripts/soak/soak_compose.py).

The load: worker threads send the mix of scripts/soak/soak_mix.py (unary, streams, batches, long
texts, cancellations after the first token, 2 ms deadlines); with --flood-every, a separate
process (scripts/soak/soak_flood.py) sends a burst of --flood-calls Translate calls at once, with no
retry. Every interval it samples the server's RSS and the p99 latency of the completed calls.
At the end a table and a JSON report (scripts/soak/soak_report.py): calls per kind and status code,
unexpected codes, the bursts' codes and refusal latencies, the restarts, RSS after warm-up vs
the end, p99 of the first vs the last interval, tracebacks and ERROR lines in the server logs.
Exit status 1 on any unexpected code, a dead server, a non-zero server exit or a failed restart.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import soak_compose
import soak_flood
import soak_report
from soak_mix import LONG_TEXTS, SHORT_TEXTS, Mix

from traductor_client import NO_RETRY, RetryPolicy, TranslatorClient, TranslatorError


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="", help="bundle directory of the local server (default: the default model)")
    ap.add_argument("--target", default="", help="HOST:PORT of a running endpoint instead of a local server")
    ap.add_argument("--project", default="", help="compose project of --target (RSS of replica 1, restarts, logs)")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--warmup-minutes", type=float, default=1.0, help="RSS baseline is taken after this")
    ap.add_argument("--workers", type=int, default=4, help="concurrent client threads of the mix")
    ap.add_argument("--interval", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads of the local server")
    ap.add_argument("--flood-every", type=float, default=0.0, help="minutes between flood bursts (0: none)")
    ap.add_argument("--flood-calls", type=int, default=2000, help="calls sent at once in each burst")
    ap.add_argument("--flood-procs", type=int, default=4, help="client processes sharing each burst's calls")
    ap.add_argument("--restart-every", type=float, default=0.0, help="minutes between replica restarts (0: none)")
    ap.add_argument("--stop-grace", type=int, default=9, help="podman stop -t (docker-compose.yml's grace period)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json-out", default="")
    ap.add_argument("--server-log", default="soak-server.log", help="the local server's stdout/stderr")
    ap.add_argument("--logs-dir", default="", help="compose: save every container's log here at the end")
    args = ap.parse_args(argv)
    if args.restart_every and not args.project:
        ap.error("--restart-every needs --project (the compose project whose replicas to restart)")
    return args


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmRSS")


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "traductor.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--metrics-port", str(free_port()), "--threads", str(args.threads), "--log-level", "WARNING"]
    if args.model:
        cmd += ["--model", args.model]
    log = open(args.server_log, "wb")
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    log.close()
    return server, f"127.0.0.1:{port}"


def wait_serving(target: str, server: subprocess.Popen | None) -> tuple[int, list[str], list[str]]:
    """Wait for SERVING; the model's max_new_tokens and the texts it accepts (a small test bundle
    refuses long ones: every INVALID_ARGUMENT during the run is then unexpected)."""
    with TranslatorClient(target, retry=NO_RETRY, timeout=5) as probe:
        for _ in range(600):
            try:
                if probe.health() == "SERVING":
                    break
            except TranslatorError:
                pass
            if server is not None and server.poll() is not None:
                raise SystemExit(f"server exited with {server.returncode} before serving")
            time.sleep(0.2)
        else:
            raise SystemExit("not SERVING after 120 s")
        limit = probe.model_info().max_new_tokens
        accepted = [[], []]
        for kept, texts in zip(accepted, (SHORT_TEXTS, LONG_TEXTS)):
            for text in texts:
                try:
                    probe.translate(text, timeout=60)
                    kept.append(text)
                except TranslatorError:
                    pass
    return limit, accepted[0], accepted[1]


class Events:
    """Flood bursts and replica restarts, fired at their minute; both run beside the mix."""

    def __init__(self, args: argparse.Namespace, target: str):
        self.args, self.target = args, target
        self.due = []  # (seconds after the start, kind)
        if args.flood_every:
            self.due += [(60 * m, "flood") for m in frange(args.flood_every / 2, args.minutes, args.flood_every)]
        if args.restart_every:
            self.due += [(60 * m, "restart") for m in frange(args.restart_every, args.minutes, args.restart_every)]
        self.due.sort()
        self.floods: list[threading.Thread] = []
        self.bursts: list[dict] = []
        self.restarts: list[dict] = []
        self.restarter: threading.Thread | None = None
        self.rotation = 0

    def fire(self, elapsed: float) -> list[str]:
        fired = []
        while self.due and self.due[0][0] <= elapsed:
            kind = self.due.pop(0)[1]
            fired.append(kind)
            if kind == "flood":
                flood = threading.Thread(target=self.flood, daemon=True)
                flood.start()
                self.floods.append(flood)
            elif self.restarter is None or not self.restarter.is_alive():
                self.restarter = threading.Thread(target=self.restart_next, daemon=True)
                self.restarter.start()
            else:
                fired[-1] = "restart skipped (the previous one is not done)"
        return fired

    def flood(self) -> None:
        result = soak_flood.run_burst(self.target, self.args.flood_calls, self.args.flood_procs)
        self.bursts.append(result)
        summary = {k: result[k] for k in ("codes", "latency_ms", "process_exits")}
        print(f"[soak] burst {summary}", file=sys.stderr, flush=True)

    def restart_next(self) -> None:
        others = soak_compose.replicas(self.args.project)[1:]  # never replica 1
        if not others:
            self.restarts.append({"error": "no replica but replica 1 to restart"})
            return
        container = others[self.rotation % len(others)]
        self.rotation += 1
        self.restarts.append(soak_compose.restart(container, self.args.stop_grace))
        print(f"[soak] restart {self.restarts[-1]}", file=sys.stderr, flush=True)

    def finish(self) -> tuple[list[dict], list[dict]]:
        if self.restarter is not None:
            self.restarter.join(400)
        for flood in self.floods:
            flood.join(400)
        return sorted(self.bursts, key=lambda b: b["began"] or 0), self.restarts


def frange(start: float, stop: float, step: float) -> list[float]:
    values, k = [], 0
    while start + k * step < stop:
        values.append(start + k * step)
        k += 1
    return values


def run_load(args: argparse.Namespace, target: str, rss, server=None) -> tuple[Mix, list[dict], list, list]:
    """The mix, the events and a sample every interval; until --minutes have passed or the server died."""
    limit, short, long = wait_serving(target, server)
    retry = RetryPolicy() if args.target else NO_RETRY
    mix = Mix(target, args.workers, args.seed, retry, limit)
    mix.short, mix.long = short, long
    if not long:
        print("[soak] the model refuses every long text: the mix sends none", file=sys.stderr, flush=True)
    alive = (lambda: True) if server is None else (lambda: server.poll() is None)
    events = Events(args, target)
    samples, fired = [], []
    begin = time.monotonic()
    next_sample = begin + args.interval
    mix.start()
    while time.monotonic() < begin + args.minutes * 60 and alive():
        time.sleep(0.25)
        fired += events.fire(time.monotonic() - begin)
        if time.monotonic() >= next_sample:
            next_sample += args.interval
            samples.append(soak_report.sample(time.monotonic() - begin, rss(), mix.take_latencies(), fired))
            fired = []
            print(f"[soak] {samples[-1]}", file=sys.stderr, flush=True)
    if time.monotonic() - (next_sample - args.interval) > args.interval / 2:  # the last part of an interval
        samples.append(soak_report.sample(time.monotonic() - begin, rss(), mix.take_latencies(), fired))
    mix.finish()
    bursts, restarts = events.finish()
    return mix, samples, bursts, restarts


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    extra: dict = {}
    if args.target:
        replica1 = soak_compose.replicas(args.project)[0] if args.project else ""
        rss = (lambda: soak_compose.rss_mib(replica1)) if replica1 else (lambda: None)
        mix, samples, bursts, restarts = run_load(args, args.target, rss)
        extra["rss_of"] = replica1 or None
        if args.logs_dir and args.project:
            extra["replica_logs"] = soak_compose.save_logs(args.project, args.logs_dir)
    else:
        server, target = start_server(args)
        try:
            mix, samples, bursts, restarts = run_load(args, target, lambda: rss_mib(server.pid), server)
            extra["server_died"] = server.poll() is not None
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
            extra["server_exit_code"] = server.wait(30)
        with open(args.server_log, errors="replace") as f:
            log = f.read()
        extra["server_log"] = {"tracebacks": log.count("Traceback"), "error_lines": log.count(" ERROR ")}
    report = soak_report.build(args, mix, samples, bursts, restarts, extra, (time.monotonic() - started) / 60)
    soak_report.show(report)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(report, f, indent=2)
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
