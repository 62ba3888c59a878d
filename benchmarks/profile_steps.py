"""Where a bundle's decode step spends its time: ONNX Runtime's profiler over a few greedy steps.

    python benchmarks/profile_steps.py BUNDLE --batch 8 [--steps 16] [--threads 2]

Runs the bundle's encoder on `batch` random sources of 24 tokens, then `steps` decoder steps
with a cache of the step's length (as the engine does: zero-copy views, logits bound to a buffer),
with ORT's profiling on, and prints each part's share of the decoder's kernel time: the output
projection (the node that writes `logits`), the other weight products, attention (MatMul and
Softmax between activations), quantizing activations, normalization, and the rest; then the
wall time per step and the time numpy's argmax over the logits takes. For finding hot spots
only: the figures of docs/performance.md come from `traductor bench`.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

from traductor.engine.bundle import load_bundle
from traductor.engine.runner import session_options

SOURCE_LENGTH = 24


def part(node: dict, logits_node: str) -> str:
    name, op = node["args"]["node_name"] if "node_name" in node["args"] else node["name"], node["args"]["op_name"]
    if name == logits_node:
        return "output projection"
    if op in ("MatMulIntegerToFloat", "Gemm", "FusedGemm", "MatMulNBits", "QGemm", "FusedMatMul") or (
        op == "MatMul" and "weight" in name
    ):
        return "weight products"
    if op in ("MatMul", "Softmax"):
        return "attention (activations)"
    if op in ("QuantizeLinear", "DynamicQuantizeLinear"):
        return "quantize activations"
    if "LayerNorm" in op:
        return "layer norm"
    return "other: " + op


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    bundle = load_bundle(args.bundle, verify=False, tokenizer=False)
    cfg, io = bundle.model, bundle.config.io
    opts = session_options(args.threads)
    encoder = ort.InferenceSession(str(bundle.file("encoder.onnx")), opts, providers=["CPUExecutionProvider"])
    opts.enable_profiling = True
    opts.profile_file_prefix = "/tmp/profile_steps"
    decoder = ort.InferenceSession(str(bundle.file("decoder.onnx")), opts, providers=["CPUExecutionProvider"])
    logits_node = _writer(bundle.file("decoder.onnx"), "logits")

    rng = np.random.default_rng(0)
    B, L = args.batch, cfg.n_decoder_layers
    ids = rng.integers(4, cfg.vocab_size, (B, SOURCE_LENGTH)).astype(np.int64)
    padding = np.zeros((B, SOURCE_LENGTH), bool)
    cross = encoder.run(io["encoder_outputs"][1:], {"source_ids": ids, "source_padding": padding})
    past = np.zeros((2 * L, B, cfg.n_heads, args.steps + 1, cfg.d_model // cfg.n_heads), np.float32)
    feeds = {"source_padding": padding, **dict(zip(io["decoder_inputs"][3 + 2 * L :], cross, strict=True))}
    tokens = np.full((B, 1), cfg.bos_id, np.int64)
    walls, argmax = [], []
    for t in range(args.steps):
        feeds["input_ids"], feeds["positions"] = tokens, np.full(B, t, np.int64)
        for i, name in enumerate(io["decoder_inputs"][3 : 3 + 2 * L]):
            feeds[name] = past[i, :, :, : t + 1]
        t0 = time.perf_counter()
        out = decoder.run(None, feeds)
        t1 = time.perf_counter()
        tokens = out[0].argmax(-1)[:, None]
        walls.append(t1 - t0)
        argmax.append(time.perf_counter() - t1)
    profile = json.loads(Path(decoder.end_profiling()).read_text())
    shares: dict[str, float] = collections.Counter()
    runs = sorted(e["ts"] + e["dur"] for e in profile if e.get("name") == "model_run")
    for event in profile:  # the first step (first touch of the weights' pages) is left out
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time") and event["ts"] > runs[0]:
            event["args"]["node_name"] = event["name"][: -len("_kernel_time")]
            shares[part(event, logits_node)] += event["dur"]
    total = sum(shares.values())
    print(f"{args.bundle} batch {B}, {args.steps} steps, {args.threads} threads")
    for name, us in sorted(shares.items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {100 * us / total:5.1f}%  {us / (args.steps - 1) / 1000:7.2f} ms/step")
    print(f"  step wall (median) {1000 * np.median(walls[1:]):.2f} ms, argmax {1000 * np.median(argmax[1:]):.2f} ms")


def _writer(graph: Path, output: str) -> str:
    """The name of the node of `graph` that writes `output`."""
    import onnx

    model = onnx.load(str(graph), load_external_data=False)
    return next(n.name for n in model.graph.node if output in n.output)


if __name__ == "__main__":
    main()
