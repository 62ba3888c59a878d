"""Where a decode step's time goes: the engine's real decode loop, timed, then profiled.

    python scripts/measure/profile_step.py --shape 512,6,8,2048,32000 --batch 1 [--quantize int8]
    python scripts/measure/profile_step.py --bundle A --bundle B --batch 1 --batch 8 --no-spin --rounds 2
    python scripts/measure/profile_step.py --bundle A --bundle B --batch 1 --pairs 40

Runs the scheduler over `batch` random sources, exactly NEW_TOKENS new tokens each, on the
random-weight bench model (as `traductor bench` builds it) or on exported bundles (`--bundle`,
several to compare: they alternate, the order rotated every round). For each: the median wall
time per decode step over --decodes timed decodes (encoder and Python included) and how it splits
between the decoder's runs, the encoder's and the rest, then one decode
with ONNX Runtime's profiler on the decoder session: per ONNX op type, its kernel time per step
and node count (the profiler slows small ops: read the shares, not the absolute figures).
`--no-spin` runs ONNX Runtime's threads without spinning, as `traductor serve` does.

`--pairs N` compares two bundles more finely on a noisy machine: both are loaded in one process
and their decodes alternate one by one (A B B A A B ...), N pairs per batch size; it prints each
one's median step time and the median of the per-pair ratios A/B (above 1: B is faster). The
machine's speed drifts over seconds, so a ratio of neighbouring decodes sees much less of that
drift than medians taken a minute apart.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import tempfile
import time
from pathlib import Path

import onnxruntime as ort

from traductor.bench import engine as bench
from traductor.engine.bundle import load_bundle
from traductor.engine.request import Request
from traductor.engine.runner import ModelRunner, session_options
from traductor.engine.scheduler import Scheduler
from traductor.options import DecodingOptions


def decoder(runner: ModelRunner, batch: int):
    """A function that decodes `batch` sources once and returns its wall seconds."""
    options = DecodingOptions(max_new_tokens=bench.NEW_TOKENS, min_new_tokens=bench.NEW_TOKENS)
    sources = bench.sources(runner.bundle.model.vocab_size, batch)

    s = Scheduler(runner, None, max_rows=batch, max_queue=batch)  # kept, as a server keeps it

    def decode() -> float:
        for i, src in enumerate(sources):
            s.submit(Request(str(i), src, [], options, lambda e: None, stream=False))
        t0 = time.perf_counter()
        while s.has_work():
            s.step()
        return time.perf_counter() - t0

    return decode


class Split:
    """Seconds spent in the runner's decoder and encoder runs (the rest of a step is Python)."""

    def __init__(self, runner: ModelRunner):
        self.seconds = {"decoder": 0.0, "encoder": 0.0}
        runner.step, runner.encode = self.timed("decoder", runner.step), self.timed("encoder", runner.encode)

    def timed(self, name: str, run):
        def wrapper(*args):
            t0 = time.perf_counter()
            try:
                return run(*args)
            finally:
                self.seconds[name] += time.perf_counter() - t0

        return wrapper


def warm_runner(path: Path, batch: int, threads: int, spin: bool):
    """The bundle at `path` in a runner, and its decode function, run once to warm up."""
    runner = ModelRunner(load_bundle(path, verify=False, tokenizer=False), threads, max_rows=batch, spin=spin)
    decode = decoder(runner, batch)
    decode()
    return runner, decode


def measure(path: Path, batch: int, threads: int, spin: bool, decodes: int) -> str:
    runner, decode = warm_runner(path, batch, threads, spin)
    split = Split(runner)
    times = [decode() for _ in range(decodes)]
    step_ms = statistics.median(times) / bench.NEW_TOKENS * 1000
    per_step = {k: v / (decodes * bench.NEW_TOKENS) * 1000 for k, v in split.seconds.items()}
    rest = sum(times) / (decodes * bench.NEW_TOKENS) * 1000 - sum(per_step.values())
    with tempfile.TemporaryDirectory() as tmp:
        opts = session_options(threads, spin)
        opts.enable_profiling = True
        opts.profile_file_prefix = str(Path(tmp) / "decoder")
        runner.decoder = ort.InferenceSession(str(path / "decoder.onnx"), opts, providers=["CPUExecutionProvider"])
        runner.binding = runner.decoder.io_binding()
        runner._bound.clear()
        decode()
        trace = json.loads(Path(runner.decoder.end_profiling()).read_text())
    runs = sum(1 for e in trace if e.get("cat") == "Session" and e.get("name") == "model_run")
    kernel_us: collections.Counter = collections.Counter()
    nodes: collections.Counter = collections.Counter()
    for e in trace:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            kernel_us[e["args"]["op_name"]] += e["dur"]
            nodes[e["args"]["op_name"]] += 1
    total = sum(kernel_us.values())
    lines = [
        f"{path.name}, batch {batch}: {step_ms:.3f} ms per step (median of {decodes} decodes), "
        f"{sum(nodes.values()) / runs:.0f} decoder nodes per step; mean ms per step: decoder run "
        f"{per_step['decoder']:.2f}, encoder {per_step['encoder']:.2f}, the rest (Python) {rest:.2f}",
        "| op type | share of decoder kernel time | nodes per step |",
        "|---|---|---|",
    ]
    lines += [f"| {op} | {us / total:.1%} | {nodes[op] / runs:.0f} |" for op, us in kernel_us.most_common(10)]
    return "\n".join(lines)


def paired(paths: list[Path], batch: int, threads: int, spin: bool, pairs: int) -> str:
    """Decodes of two bundles alternated one by one; the median of the per-pair time ratios."""
    decodes = [warm_runner(path, batch, threads, spin)[1] for path in paths]
    times: list[list[float]] = [[], []]
    for i in range(pairs):
        for j in (0, 1) if i % 2 == 0 else (1, 0):
            times[j].append(decodes[j]())
    ratios = [a / b for a, b in zip(*times, strict=True)]
    step_ms = [statistics.median(t) / bench.NEW_TOKENS * 1000 for t in times]
    q = statistics.quantiles(ratios, n=4)
    return (
        f"batch {batch}, {pairs} pairs: {paths[0].name} {step_ms[0]:.3f} ms per step, {paths[1].name} "
        f"{step_ms[1]:.3f} ms; median ratio {paths[0].name}/{paths[1].name} {statistics.median(ratios):.3f} "
        f"(quartiles {q[0]:.3f} to {q[2]:.3f})"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="512,6,8,2048,32000", help="the random model's shape (without --bundle)")
    p.add_argument("--quantize", choices=["int8"], help="the random model's precision (without --bundle)")
    p.add_argument("--bundle", type=Path, action="append", help="an exported bundle (repeat to compare)")
    p.add_argument("--batch", type=int, action="append", help="rows decoded together (repeat; default 1)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-spin", action="store_true", help="ONNX Runtime threads do not spin (as served)")
    p.add_argument("--decodes", type=int, default=15, help="timed decodes per measurement")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--pairs", type=int, help="alternate the decodes of two --bundle one by one, N pairs")
    args = p.parse_args()
    if args.pairs:
        if not args.bundle or len(args.bundle) != 2:
            p.error("--pairs compares exactly two --bundle")
        for batch in args.batch or [1]:
            print(paired(args.bundle, batch, args.threads, not args.no_spin, args.pairs), flush=True)
        return
    with tempfile.TemporaryDirectory() as tmp:
        bundles = args.bundle or [bench.make_bundle(bench.parse_shape(args.shape), args.quantize, Path(tmp) / "b")]
        for r in range(args.rounds):
            for path in bundles[r % len(bundles) :] + bundles[: r % len(bundles)]:
                for batch in args.batch or [1]:
                    print(f"round {r + 1}: " + measure(path, batch, args.threads, not args.no_spin, args.decodes))


if __name__ == "__main__":
    main()
