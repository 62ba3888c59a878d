"""Where a decode step's time goes: ONNX Runtime's profiler over the engine's real decode loop.

    python scripts/profile_step.py --shape 512,6,8,2048,32000 --batch 1 [--quantize int8]

Builds the random-weight bench model (as `traductor bench` does), runs the scheduler with
profiling enabled in the decoder session, and prints, per ONNX op type, the share of the
decoder's kernel time, plus the share of the whole step spent outside ONNX Runtime (Python:
scheduling, cache writes, token choice).
"""

from __future__ import annotations

import argparse
import collections
import json
import tempfile
import time
from pathlib import Path

import onnxruntime as ort

from traductor import bench
from traductor.engine.bundle import load_bundle
from traductor.engine.request import Request
from traductor.engine.runner import ModelRunner
from traductor.engine.scheduler import Scheduler
from traductor.options import DecodingOptions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="512,6,8,2048,32000")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--quantize", choices=["int8"])
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args()
    shape = bench.parse_shape(args.shape)
    with tempfile.TemporaryDirectory() as tmp:
        path = bench.make_bundle(shape, args.quantize, Path(tmp) / "b")
        bundle = load_bundle(path, tokenizer=False)
        runner = ModelRunner(bundle, threads=args.threads, max_rows=args.batch)
        options = DecodingOptions(max_new_tokens=bench.NEW_TOKENS, min_new_tokens=bench.NEW_TOKENS)

        def decode() -> float:
            s = Scheduler(runner, None, max_rows=args.batch, max_queue=args.batch)
            for i, src in enumerate(bench.sources(shape[4], args.batch)):
                s.submit(Request(str(i), src, [], options, lambda e: None, stream=False))
            t0 = time.perf_counter()
            while s.has_work():
                s.step()
            return time.perf_counter() - t0

        decode()  # warm-up, unprofiled
        opts = ort.SessionOptions()
        opts.enable_profiling = True
        opts.profile_file_prefix = str(Path(tmp) / "decoder")
        opts.intra_op_num_threads = runner.decoder.get_session_options().intra_op_num_threads
        runner.decoder = ort.InferenceSession(str(path / "decoder.onnx"), opts, providers=["CPUExecutionProvider"])
        runner.binding = runner.decoder.io_binding()
        runner._bound.clear()
        decode()  # warm-up of the profiled session
        wall = decode()
        trace = json.loads(Path(runner.decoder.end_profiling()).read_text())
    by_op: collections.Counter = collections.Counter()
    runs = [e for e in trace if e.get("cat") == "Session" and e.get("name") == "model_run"]
    for e in trace:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"]
    # The last decode's runs: one per step (33 steps: 32 tokens + the step that sees them out).
    steps = bench.NEW_TOKENS
    run_us = sum(e["dur"] for e in runs[-steps:])
    kernel_total = sum(by_op.values())
    print(
        f"shape {args.shape}, batch {args.batch}, {args.quantize or 'fp32'}: {wall / steps * 1000:.2f} ms per step "
        f"({args.batch * steps / wall:.0f} tokens/s); decoder session {run_us / steps / 1000:.2f} ms per step, "
        f"outside the decoder session (encoder, Python) {max(wall * 1e6 - run_us, 0) / wall / 1e6:.0%}"
    )
    print("| op type | share of decoder kernel time |\n|---|---|")
    for op, us in by_op.most_common(12):
        print(f"| {op} | {us / kernel_total:.1%} |")


if __name__ == "__main__":
    main()
