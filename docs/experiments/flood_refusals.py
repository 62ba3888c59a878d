"""How fast a flood is refused by one `traductor serve` with no balancer in front.

    python docs/experiments/flood_refusals.py [--calls 2000] [--processes 4] [--bursts 3] [--queue 32] [--model DIR]

Starts the server (free port, `--max-queued-requests QUEUE`, INFO log to a temporary file), sends
BURSTS bursts of CALLS Translate calls at once from PROCESSES client processes with no retries
(`soak_flood.run_burst`), and prints per burst the status codes, the retry hints and the
client-observed latency (p50/p99/max, ms) of the OK calls and of the refusals; at the end the
server-side time of the refusals: the `total_ms` of their RPC log lines, from the error
interceptor's entry to its exit, which leaves out the time a call waits in gRPC core before the
event loop takes it. (docs/reliability.md, "Overload".)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "soak"))
from soak import free_port  # noqa: E402
from soak_flood import percentiles, run_burst  # noqa: E402


def wait_serving(target: str) -> None:
    for _ in range(240):
        if subprocess.run(["traductor-client", "--target", target, "health"], capture_output=True).returncode == 0:
            return
        time.sleep(0.5)
    raise SystemExit(f"flood_refusals: the server at {target} did not become SERVING")


def server_refusal_seconds(log_path: Path) -> list[float]:
    seconds = []
    for line in log_path.read_text().splitlines():
        start = line.find('{"protocol"')
        if start >= 0:
            record = json.loads(line[start:])
            if record.get("code") == "RESOURCE_EXHAUSTED":
                seconds.append(record["total_ms"] / 1000)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--bursts", type=int, default=3)
    ap.add_argument("--queue", type=int, default=32, help="the server's --max-queued-requests")
    ap.add_argument("--model", default="", help="bundle directory (default: the bundled default model)")
    args = ap.parse_args()
    port = free_port()
    target = f"127.0.0.1:{port}"
    cmd = ["traductor", "serve", "--host", "127.0.0.1", "--port", str(port), "--metrics-port", "0"]
    cmd += ["--max-queued-requests", str(args.queue), "--log-level", "INFO"] + (
        ["--model", args.model] if args.model else []
    )
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "server.log"
        with open(log_path, "w") as log:
            server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_serving(target)
                for _ in range(args.bursts):
                    r = run_burst(target, args.calls, args.processes)
                    keep = ("codes", "retry_hints", "process_exits", "latency_ms")
                    print(json.dumps({k: r[k] for k in keep}), flush=True)
            finally:
                server.terminate()
                server.wait(60)
        refusals = server_refusal_seconds(log_path)
    summary = {"server_side_refusal_ms": percentiles(refusals), "refusals_logged": len(refusals)}
    print(json.dumps(summary | {"server_exit": server.returncode}))


if __name__ == "__main__":
    main()
