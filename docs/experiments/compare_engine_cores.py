"""Streams and unary calls with the model on an engine thread or in an engine process, alternated.

    python docs/experiments/compare_engine_cores.py [--bundle DIR] [--levels 1,8,64] [--seconds 8] [--rounds 3]

Each round serves the bundle (default: the shipped default model, memory off) once per variant,
in turn: engine thread (`serve --no-engine-process`) or engine process (the default), with 2 or 1 ONNX Runtime
threads, and runs `traductor bench`'s service load at every level (unary calls, then streams, 32
new tokens per call; traductor/bench/service.py). The machine's speed drifts by tens of percent between
minutes, so variants are compared round by round and the medians over rounds are printed.
Prints one line per measurement as it goes, then the table of medians (and --json-out FILE).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from traductor.bench.service import prepare_inputs, run_service
from traductor.engine.bundle import default_bundle, load_bundle

VARIANTS = {  # name: (engine process?, ONNX Runtime threads): engine thread or process, 2 or 1 threads
    "thread-2": (False, 2),
    "thread-1": (False, 1),
    "process-2": (True, 2),
    "process-1": (True, 1),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", type=Path, default=None)
    p.add_argument("--levels", default="1,8,64")
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--variants", default=",".join(VARIANTS), help="some of: " + ", ".join(VARIANTS) + " (comma-separated)"
    )
    p.add_argument("--json-out", type=Path)
    args = p.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants or not set(variants) <= set(VARIANTS):
        p.error(f"--variants takes some of {', '.join(VARIANTS)}")
    bundle = load_bundle(args.bundle or default_bundle())
    levels = [int(x) for x in args.levels.split(",")]
    rows = []  # (round, variant, level, mode, tokens/s, p50 ms)
    with tempfile.TemporaryDirectory() as tmp:
        texts, _ = prepare_inputs(None, bundle.file("tokenizer.model"), bundle.max_len, Path(tmp))
        for r in range(1, args.rounds + 1):
            for name in variants:
                process, threads = VARIANTS[name]
                report = run_service(bundle.path, levels, args.seconds, threads, texts, lambda _: None, process)
                for level in report["levels"]:
                    for mode in ("unary", "stream"):
                        tps, p50 = level[mode]["output_tokens_per_second"], level[mode]["latency_seconds"]["p50"]
                        rows.append((r, name, level["level"], mode, tps, p50))
                        print(f"round {r} | {name} | {level['level']} | {mode} | {tps:.0f} tok/s | p50 {p50:.4f} s")
                        sys.stdout.flush()
    print(table(rows, levels, variants))
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=1) + "\n")


def table(rows, levels, variants) -> str:
    """Median over rounds of tokens/s, unary and streams, and of each round's stream/unary ratio."""
    out = ["| variant | concurrency | tok/s unary | tok/s stream | stream/unary (median of rounds) |"]
    out.append("|---|---|---|---|---|")
    for name in variants:
        for level in levels:
            got = {(r, mode): tps for r, n, lv, mode, tps, _ in rows if n == name and lv == level}
            rounds = sorted({r for r, _ in got})
            unary = [got[r, "unary"] for r in rounds]
            stream = [got[r, "stream"] for r in rounds]
            ratio = statistics.median(s / u for s, u in zip(stream, unary, strict=True))
            cells = [name, level, f"{statistics.median(unary):,.0f}", f"{statistics.median(stream):,.0f}"]
            out.append("| " + " | ".join(map(str, cells + [f"{ratio:.0%}"])) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
