"""Streams against unary calls, served: tokens/s and CPU per token of each process.

    python scripts/measure/stream_vs_unary.py [--concurrency 64] [--seconds 8] [--rounds 3]
        [--compare CHECKOUT] [--out FILE.json] [--no-stream-groups | --stream-delay-ms MS]

Serves the default model (`traductor serve`, memory off) and, at CONCURRENCY closed-loop callers
(`traductor-client loadtest`, exactly 32 new tokens per call, the bench's one-sentence texts),
runs unary `Translate` calls, then `TranslateStream`; for each: output tokens/s and the CPU per
output token of the front (the server process), its engine process and the load generator, from
/proc over the measured part. With `--compare CHECKOUT`, each round serves that checkout (its
server/ and client/ first on PYTHONPATH, the load generator too) and then this tree; figures are
medians over the rounds. This tree's streams ask for grouped tokens (StreamOptions), as its client
library does, held up to --stream-delay-ms; `tokens_per_message` is what the server's
traductor_stream_group_tokens counted (None: one token a message).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from per_call import Server, cpu_ns  # noqa: E402

from traductor_client.messages import STREAM_DELAY_MS  # noqa: E402

MODES = (("unary", "0"), ("stream", "1"))


def texts_file(directory: Path) -> Path:
    from traductor.bench.service import prepare_inputs
    from traductor.engine.bundle import default_bundle, load_bundle

    b = load_bundle(default_bundle())
    path, _ = prepare_inputs(None, b.file("tokenizer.model"), b.max_len, directory)
    return path


def group_sums(port: int) -> tuple[float, float] | None:
    """(messages, tokens) of the grouped streams so far (traductor_stream_group_tokens), or None
    for a server without the metric."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    sums = {}
    for line in text.splitlines():
        if line.startswith("traductor_stream_group_tokens_"):
            name, value = line.split("{")[0], float(line.rsplit(" ", 1)[1])
            sums[name] = sums.get(name, 0.0) + value
    if "traductor_stream_group_tokens_count" not in sums:
        return None
    return sums["traductor_stream_group_tokens_count"], sums["traductor_stream_group_tokens_sum"]


def run_mode(server: Server, pythonpath: str | None, texts: Path, fraction: str, args) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = f"{pythonpath}/server:{pythonpath}/client"
    out = Path(tempfile.mktemp(suffix=".json"))
    cmd = [sys.executable, "-c", "from traductor_client.cli import main; main()"]
    cmd += ["--target", f"127.0.0.1:{server.grpc_port}", "loadtest", "--concurrency", str(args.concurrency)]
    cmd += ["--duration", str(args.seconds), "--warmup", "2", "--stream-fraction", fraction]
    cmd += ["--min-new-tokens", "32", "--max-new-tokens", "32", "--no-progress", "--input", str(texts)]
    cmd += ["--json-out", str(out)]
    if pythonpath is None:  # this tree's load generator: streams as the flags say
        cmd += [f"--stream-delay-ms={args.stream_delay_ms}"] if args.stream_groups else ["--no-stream-groups"]
    load = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    time.sleep(2.5)  # past the warm-up
    pids = {**server.pids, "client": load.pid}
    groups0 = group_sums(server.metrics_port)
    before, t0 = {k: cpu_ns(p) for k, p in pids.items()}, time.monotonic()
    time.sleep(args.seconds - 1.0)
    after, t1 = {k: cpu_ns(p) for k, p in pids.items()}, time.monotonic()
    groups1 = group_sums(server.metrics_port)
    load.wait()
    level = json.loads(out.read_text())["levels"][0]
    out.unlink()
    tps = level["output_tokens_per_second"]
    tokens = tps * (t1 - t0)
    return {
        "tokens_per_s": tps,
        "p50_ms": 1000 * level["latency_seconds"]["p50"],
        "ttft_p50_ms": 1000 * level["ttft_seconds"]["p50"] if level.get("ttft_seconds", {}).get("count") else None,
        "errors": level.get("errors", 0),
        "cpu_us_per_token": {k: (after[k] - before[k]) / 1000 / tokens for k in pids},
        # tokens a message of the streams, where the server groups them (None: one a message)
        "tokens_per_message": (groups1[1] - groups0[1]) / (groups1[0] - groups0[0])
        if groups0 and groups1[0] > groups0[0]
        else None,
    }


def main() -> None:
    from traductor.engine.bundle import default_bundle

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="CHECKOUT")
    ap.add_argument("--out", type=Path)
    ap.add_argument(
        "--stream-groups",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="this tree's streams ask for grouped tokens (the client library's default)",
    )
    ap.add_argument(
        "--stream-delay-ms",
        type=int,
        default=STREAM_DELAY_MS,
        help="and let the server hold a message this long (default: the client library's, %(default)s)",
    )
    args = ap.parse_args()
    texts = texts_file(Path(tempfile.mkdtemp()))
    variants = {"this tree": None} if not args.compare else {"base": args.compare, "this tree": None}
    results: dict = {v: [] for v in variants}
    for r in range(args.rounds):
        for name, path in variants.items():
            server = Server(str(default_bundle()), path, max_input_tokens=128, metrics=True)
            try:
                results[name].append({mode: run_mode(server, path, texts, f, args) for mode, f in MODES})
            finally:
                server.stop()
            print(f"round {r + 1} {name}: {json.dumps(results[name][-1])}", flush=True)
    print(f"\n{args.concurrency} callers x 32 tokens, medians of {args.rounds} rounds")
    for name in variants:
        row = {}
        for mode, _ in MODES:
            tps = statistics.median(x[mode]["tokens_per_s"] for x in results[name])
            cpu = {k: statistics.median(x[mode]["cpu_us_per_token"][k] for x in results[name]) for k in server.pids}
            row[mode] = tps
            usage = ", ".join(f"{k} {v:.0f}" for k, v in cpu.items())
            p50 = statistics.median(x[mode]["p50_ms"] for x in results[name])
            ttft = [x[mode]["ttft_p50_ms"] for x in results[name] if x[mode]["ttft_p50_ms"] is not None]
            first = f", time to first token {statistics.median(ttft):.0f} ms" if ttft else ""
            print(f"{name:>10} {mode:>6}: {tps:,.0f} tokens/s; CPU us a token: {usage}; p50 {p50:.0f} ms{first}")
        ratios = [x["stream"]["tokens_per_s"] / x["unary"]["tokens_per_s"] for x in results[name]]
        each = ", ".join(f"{q:.0%}" for q in ratios)
        print(f"{name:>10} streams/unary: {statistics.median(ratios):.0%} (rounds: {each})")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
