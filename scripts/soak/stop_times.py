"""Stop `traductor serve` under load many times: how long each SIGTERM takes to end the process.

    python scripts/soak/stop_times.py --stops 20 --json-out stops.json
    python scripts/soak/stop_times.py --stops 20 --model server/traductor/models/en-es --drain 3

Each round starts `traductor serve` (the packaged models unless --model/--model-repository; free
ports, --threads 1, the HTTP API on), waits for SERVING, and opens what a deployment keeps open
to a replica: a gRPC channel that made one call and stays idle (a balancer's), a raw HTTP/2
connection that never answers GOAWAY nor closes (a peer slower than gRPC's own clients), and an
HTTP/1.1 keep-alive connection to the HTTP API and one to /metrics (a scraper's). Then --workers
threads send a mix of gRPC Translate, TranslateStream and HTTP /translate calls (no retries) and,
--load-seconds later, the server gets SIGTERM while they run. The round measures the time from
SIGTERM to the exit of the process, and its exit status; one that has not exited after
--hang-seconds is a hang: its log (with the stall report, service/stall.py) is kept and it is
killed. At the end: percentiles of the stop times, the exit statuses, the calls' codes
(informational: calls that reach a stopping server get UNAVAILABLE), and the hangs. Exit status
1 when a stop did not exit 0 within the pre-stop window plus the grace period plus --slack.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

TEXTS = ["Open File", "The file could not be saved.", "Cancel", "Do you want to delete %s?", "Settings"]
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stops", type=int, default=20)
    ap.add_argument("--model", default="", help="one bundle directory (default: the packaged models)")
    ap.add_argument("--model-repository", default="")
    ap.add_argument("--prestop", type=float, default=0.0, help="--prestop-seconds of the server")
    ap.add_argument("--drain", type=float, default=3.0, help="--drain-seconds of the server (the grace period)")
    ap.add_argument("--workers", type=int, default=4, help="client threads of the load")
    ap.add_argument("--load-seconds", type=float, default=1.5, help="load before each SIGTERM (jittered +-50%%)")
    ap.add_argument("--slack", type=float, default=2.0, help="a stop may exceed prestop + drain by this much")
    ap.add_argument("--hang-seconds", type=float, default=30.0, help="a stop longer than this is killed")
    ap.add_argument("--no-idle", action="store_true", help="open no idle connections (the load only)")
    ap.add_argument("--logs", default="build/stop-times", help="folder for the servers' logs")
    ap.add_argument("--json-out", default="")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, args: argparse.Namespace, log: Path):
        self.port, self.http_port, self.metrics_port = free_port(), free_port(), free_port()
        cmd = [sys.executable, "-m", "traductor.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--http-port", str(self.http_port), "--metrics-port", str(self.metrics_port), "--threads", "1"]
        cmd += ["--prestop-seconds", str(args.prestop), "--drain-seconds", str(args.drain)]
        if args.model:
            cmd += ["--model", args.model]
        elif args.model_repository:
            cmd += ["--model-repository", args.model_repository]
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"}
            )
        self.target = f"127.0.0.1:{self.port}"

    def wait_serving(self, timeout: float = 900) -> None:
        with grpc.insecure_channel(self.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if self.proc.poll() is not None:
                    raise SystemExit(f"the server exited with {self.proc.returncode} before serving: {self.log}")
                try:
                    if health.Check(health_pb2.HealthCheckRequest(), timeout=2).status == 1:
                        return
                except grpc.RpcError:
                    pass
                time.sleep(0.2)
        raise SystemExit(f"not SERVING after {timeout:.0f} s: {self.log}")


class Idle:
    """The connections a deployment keeps open to a replica, opened once it serves and left idle."""

    def __init__(self, server: Server):
        self.channel = grpc.insecure_channel(server.target)
        pb_grpc.TranslatorStub(self.channel).Translate(pb.TranslateRequest(text="Open"), timeout=60)
        self.h2 = socket.create_connection(("127.0.0.1", server.port))
        self.h2.sendall(H2_PREFACE)
        self.http = []
        for port, path in ((server.http_port, "/languages"), (server.metrics_port, "/metrics")):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("GET", path)
            c.getresponse().read()
            self.http.append(c)

    def close(self) -> None:
        self.channel.close()
        self.h2.close()
        for c in self.http:
            c.close()


class Load:
    """--workers threads sending gRPC and HTTP calls until told to stop; codes counted."""

    def __init__(self, server: Server, workers: int, rng: random.Random):
        self.server, self.codes, self.lock = server, Counter(), threading.Lock()
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(rng.random(),), daemon=True) for _ in range(workers)]
        for t in self.threads:
            t.start()

    def count(self, code: str) -> None:
        with self.lock:
            self.codes[code] += 1

    def run(self, seed: float) -> None:
        rng = random.Random(seed)
        channel = grpc.insecure_channel(self.server.target)
        stub = pb_grpc.TranslatorStub(channel)
        web = http.client.HTTPConnection("127.0.0.1", self.server.http_port, timeout=30)
        while not self.done.is_set():
            text, kind = rng.choice(TEXTS), rng.choice(("unary", "stream", "http"))
            try:
                if kind == "unary":
                    stub.Translate(pb.TranslateRequest(text=text), timeout=30)
                elif kind == "stream":
                    for _ in stub.TranslateStream(pb.TranslateRequest(text=text), timeout=30):
                        pass
                else:
                    body = json.dumps({"q": text, "source": "en", "target": "es"})
                    web.request("POST", "/translate", body, {"Content-Type": "application/json"})
                    response = web.getresponse()
                    response.read()
                    self.count(f"http {response.status}")
                    continue
                self.count(f"grpc {kind} OK")
            except grpc.RpcError as e:
                self.count(f"grpc {kind} {e.code().name}")
                time.sleep(0.05)  # a stopped server refuses at once: no busy loop
            except (OSError, http.client.HTTPException):
                self.count("http connection error")
                web.close()
                time.sleep(0.05)
        channel.close()
        web.close()

    def stop(self) -> None:
        self.done.set()
        for t in self.threads:
            t.join(timeout=60)


def one_stop(args: argparse.Namespace, n: int, rng: random.Random, logs: Path) -> dict:
    server = Server(args, logs / f"serve-{n}.log")
    try:
        server.wait_serving()
    except SystemExit:
        server.proc.kill()
        raise
    idle = None if args.no_idle else Idle(server)
    load = Load(server, args.workers, rng)
    time.sleep(args.load_seconds * rng.uniform(0.5, 1.5))
    sent, sent_at = time.monotonic(), time.time()
    server.proc.send_signal(signal.SIGTERM)
    try:
        code = server.proc.wait(timeout=args.hang_seconds)
        took, exited_at = time.monotonic() - sent, time.time()
    except subprocess.TimeoutExpired:
        server.proc.kill()
        code, took, exited_at = server.proc.wait(), None, None
    load.stop()
    if idle is not None:
        idle.close()
    log = server.log.read_text(errors="replace")
    draining, stopped = logged_at(log, "draining:"), logged_at(log, "stopped")
    return {
        "stop": n,
        "exit": code,
        "seconds": None if took is None else round(took, 3),
        "hung": took is None,
        # where the time went: SIGTERM to the drain's first line, that line to "stopped", then the exit
        "to_drain": None if draining is None else round(draining - sent_at, 3),
        "drain_to_stopped": None if None in (draining, stopped) else round(stopped - draining, 3),
        "stopped_to_exit": None if None in (stopped, exited_at) else round(exited_at - stopped, 3),
        "stall_report": "not done after" in log,
        "codes": dict(load.codes),
        "log": str(server.log),
    }


def logged_at(log: str, prefix: str) -> float | None:
    """The time (epoch seconds) of the server's first `prefix` line (traductor.server), if any."""
    for line in log.splitlines():
        parts = line.split(" ", 4)
        if len(parts) == 5 and parts[3] == "traductor.server" and parts[4].startswith(prefix):
            stamp = time.strptime(f"{parts[0]} {parts[1][:8]}", "%Y-%m-%d %H:%M:%S")
            return time.mktime(stamp) + int(parts[1][9:12]) / 1000
    return None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    limit = args.prestop + args.drain + args.slack
    stops = []
    for n in range(1, args.stops + 1):
        stop = one_stop(args, n, rng, logs)
        stops.append(stop)
        took = "HUNG" if stop["hung"] else f"{stop['seconds']:.2f} s"
        print(f"stop {n}/{args.stops}: exit {stop['exit']} after {took}; calls {stop['codes']}", flush=True)
    times = [s["seconds"] for s in stops if s["seconds"] is not None]
    bad = [s for s in stops if s["exit"] != 0 or s["seconds"] is None or s["seconds"] > limit]
    codes = Counter()
    for s in stops:
        codes.update(s["codes"])
    summary = {
        "stops": len(stops),
        "prestop_seconds": args.prestop,
        "drain_seconds": args.drain,
        "idle_connections": not args.no_idle,
        "exit_codes": dict(Counter(str(s["exit"]) for s in stops)),
        "hung": sum(s["hung"] for s in stops),
        "seconds": {
            "p50": percentile(times, 0.5),
            "p90": percentile(times, 0.9),
            "max": max(times),
            "mean": round(statistics.mean(times), 3),
        }
        if times
        else {},
        "phases_p50": {
            k: percentile([s[k] for s in stops if s[k] is not None], 0.5)
            for k in ("to_drain", "drain_to_stopped", "stopped_to_exit")
            if any(s[k] is not None for s in stops)
        },
        "over_limit": [s["stop"] for s in bad],
        "limit_seconds": limit,
        "calls": dict(codes),
        "per_stop": stops,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "per_stop"}, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
