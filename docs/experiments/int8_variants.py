"""The int8 variants tried for batch invariance (issue 22), measured side by side in one run.

Every variant quantizes the same graphs: the anchors' random Marian at the opus-mt shape
(benchmarks/make_marian.py, as `traductor bench --anchors` uses), exported and optimized once.
For each variant, in one process:

- speed: the bench's own `run_engine` (output tokens/s at batch 1, 8 and 32, exactly 32 new tokens
  per source, median of --runs) over --rounds rounds, the variants' order rotated every round;
- batch invariance: the 32 batch-32 sources decoded alone, in batches of 8 and all 32 together:
  how many sentences' tokens differ from the same sentence decoded alone;
- agreement: sentences (and tokens) equal to fp32's.

    python docs/experiments/int8_variants.py --anchors-dir benchmarks --rounds 3 --out docs/perf/int8-variants.json

Run it on quiet cores (`flock -x` on the project's CPU lock). It prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

from traductor.bench.engine import NEW_TOKENS, anchor_sources, parse_shape, run_engine
from traductor.bench.measure import anchor_model
from traductor.engine.bundle import load_bundle
from traductor.engine.bundle_config import GRAPHS
from traductor.engine.runner import ModelRunner
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import drive
from traductor.options import DecodingOptions
from traductor_export.calibrate import activation_ranges
from traductor_export.convert import bundle_config, export_graphs, optimize
from traductor_export.importers import transformer_from_pretrained
from traductor_export.quantize import (
    MS_DOMAIN,
    UNFUSED_FOR_QUANTIZATION,
    StaticInt8,
    replace_products,
)

SHAPE = (512, 6, 8, 2048, 32000)  # opus-mt: d_model, layers, heads, d_ff, vocabulary
BATCHES = [1, 8, 32]


def quantize_blocks(w: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """w (N, K) fp32, one row per output column -> MatMulNBits' B (N, blocks, block) uint8 and
    scales (N, blocks): symmetric int8 per block, stored with the default zero point 128. K is
    padded with zeros to whole blocks."""
    n, k = w.shape
    blocks = -(-k // block)
    padded = np.zeros((n, blocks * block), dtype=np.float32)
    padded[:, :k] = w
    padded = padded.reshape(n, blocks, block)
    scales = np.abs(padded).max(axis=-1) / 127.0
    scales[scales == 0] = 1.0
    q = np.clip(np.rint(padded / scales[..., None]), -127, 127).astype(np.int16) + 128
    return q.astype(np.uint8), scales.astype(np.float32)


class RowwiseInt8:
    """Writes a product as per-row int8. Each activation row is quantized with its own range:
    scale = (max - min) / 255 and u = round((x - min) / scale) in 0..255 (QuantizeLinear: round half
    to even, saturate), so x ~ scale * u + min. Weights are 7-bit symmetric with one scale per
    output column (|w| <= 63: AVX2's 8-bit multiply-add of two products, u8 x s8 summed in 16 bits,
    cannot saturate). One com.microsoft.MatMulIntegerToFloat multiplies in integers (exact, whatever
    the batch) and scales each output by its row's and its column's scales; the row minimum's share,
    min_row * (column sums of the weights), and the bias are added after it.
    An activation consumed by several products (Q, K and V; every cross-attention K and V from the
    encoder's output) is quantized once."""

    def __init__(self, weight_levels: int = 63) -> None:
        self.weight_levels = weight_levels
        self.quantized: dict[str, tuple[str, str, str]] = {}  # activation -> (uint8 rows, scales, minima)

    def _quantize_rows(self, x: str):
        q = f"{x}_rowq"
        inits = [
            numpy_helper.from_array(np.array(1 / 255, np.float32), f"{q}_inv255"),
            numpy_helper.from_array(np.array(1e-30, np.float32), f"{q}_eps"),
            numpy_helper.from_array(np.array(1.0, np.float32), f"{q}_one"),
            numpy_helper.from_array(np.array(0, np.uint8), f"{q}_zero"),
        ]
        nodes = [
            helper.make_node("ReduceMax", [x], [f"{q}_max"], name=f"{q}_max", axes=[-1], keepdims=1),
            helper.make_node("ReduceMin", [x], [f"{q}_min"], name=f"{q}_min", axes=[-1], keepdims=1),
            helper.make_node("Sub", [f"{q}_max", f"{q}_min"], [f"{q}_range"], name=f"{q}_range"),
            helper.make_node("Mul", [f"{q}_range", f"{q}_inv255"], [f"{q}_s"], name=f"{q}_s"),
            helper.make_node("Max", [f"{q}_s", f"{q}_eps"], [f"{q}_scale"], name=f"{q}_scale"),
            helper.make_node("Sub", [x, f"{q}_min"], [f"{q}_shifted"], name=f"{q}_shifted"),
            helper.make_node("Div", [f"{q}_shifted", f"{q}_scale"], [f"{q}_x"], name=f"{q}_x"),
            helper.make_node("QuantizeLinear", [f"{q}_x", f"{q}_one", f"{q}_zero"], [f"{q}_u8"], name=f"{q}_u8"),
        ]
        self.quantized[x] = (f"{q}_u8", f"{q}_scale", f"{q}_min", f"{q}_zero")
        return nodes, inits

    def __call__(self, x: str, w: np.ndarray, bias: np.ndarray | None, out: str, base: str):
        nodes, inits = self._quantize_rows(x) if x not in self.quantized else ([], [])
        rows, row_scales, row_minima, zero = self.quantized[x]
        levels = self.weight_levels
        col_scales = np.abs(w).max(axis=1) / levels  # w: (N, K)
        col_scales[col_scales == 0] = 1.0
        wq = np.clip(np.rint(w / col_scales[:, None]), -levels, levels)
        # what the row minimum adds to each output: min_row * sum_k w[n, k], w as quantized
        col_sums = (wq.sum(axis=1) * col_scales).astype(np.float32)
        inits += [
            numpy_helper.from_array(np.ascontiguousarray(wq.astype(np.int8).T), f"{base}_B"),  # (K, N)
            numpy_helper.from_array(col_scales.astype(np.float32), f"{base}_scales"),
            numpy_helper.from_array(col_sums, f"{base}_colsum"),
        ]
        product = f"{base}_int"
        nodes += [
            helper.make_node(
                "MatMulIntegerToFloat",
                [rows, f"{base}_B", row_scales, f"{base}_scales", zero],
                [product],
                name=base,
                domain=MS_DOMAIN,
            ),
            helper.make_node("Mul", [row_minima, f"{base}_colsum"], [f"{base}_minshare"], name=f"{base}_minshare"),
        ]
        if bias is None:
            nodes.append(helper.make_node("Add", [product, f"{base}_minshare"], [out], name=f"{base}_out"))
        else:
            inits.append(numpy_helper.from_array(bias, f"{base}_bias"))
            nodes += [
                helper.make_node("Add", [f"{base}_minshare", f"{base}_bias"], [f"{base}_off"], name=f"{base}_off"),
                helper.make_node("Add", [product, f"{base}_off"], [out], name=f"{base}_out"),
            ]
        return nodes, inits


def nbits_writer(block: int, accuracy_level: int):
    """Writes a product as one MatMulNBits: 8-bit weights per block of `block`, and with accuracy
    level 4 int8 activations per block of each row (what docs/experiments/int8_variants.py compares)."""

    def write(x: str, w: np.ndarray, bias: np.ndarray | None, out: str, base: str):
        n, k = w.shape
        q, scales = quantize_blocks(w, block)
        inits = [numpy_helper.from_array(q, f"{base}_B"), numpy_helper.from_array(scales, f"{base}_scales")]
        inputs = [x, inits[0].name, inits[1].name]
        if bias is not None:
            inits.append(numpy_helper.from_array(bias, f"{base}_bias"))
            inputs += ["", "", inits[2].name]  # no zero points (default 128), no g_idx
        attrs = dict(K=k, N=n, bits=8, block_size=block, accuracy_level=accuracy_level)
        return [helper.make_node("MatMulNBits", inputs, [out], name=base, domain=MS_DOMAIN, **attrs)], inits

    return write


def dynamic_per_tensor(src: Path, dst: Path, ranges: dict) -> None:
    """The int8 shipped until issue 22: ONNX Runtime's quantize_dynamic, one weight scale per
    matrix, activations quantized with one scale for the whole tensor (DynamicQuantizeMatMul)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=False,
        op_types_to_quantize=["MatMul", "Gemm"],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def nbits(block: int, accuracy_level: int):
    """8-bit MatMulNBits with `block` input values per scale; accuracy level 4 quantizes the
    activations per block of each row (int8 products), level 1 computes in fp32 (weights only)."""

    def make(src: Path, dst: Path, ranges: dict) -> None:
        rewrite(src, dst, nbits_writer(block, accuracy_level))

    return make


def rowwise(src: Path, dst: Path, ranges: dict) -> None:
    """Per-row int8 activations (each row's own min..max), 7-bit per-column weights, MatMulIntegerToFloat."""
    rewrite(src, dst, RowwiseInt8())


def static(src: Path, dst: Path, ranges: dict) -> None:
    """Static int8 (the export's): calibrated per-tensor activation ranges, QuantizeLinear + MatMulIntegerToFloat."""
    rewrite(src, dst, StaticInt8(ranges))


def rewrite(src: Path, dst: Path, writer) -> None:
    model = onnx.load(str(src))
    replace_products(model.graph, writer)
    model.opset_import.append(onnx.helper.make_opsetid(MS_DOMAIN, 1))
    onnx.save(model, str(dst))


VARIANTS = {
    "fp32": None,
    "dynamic int8, per tensor (DynamicQuantizeMatMul; shipped before)": dynamic_per_tensor,
    "MatMulNBits 8-bit, block 32, accuracy 4": nbits(32, 4),
    "MatMulNBits 8-bit, block 128, accuracy 4": nbits(128, 4),
    "per-row int8 activations (row min..max), 7-bit weights per column, MatMulIntegerToFloat": rowwise,
    "static int8 (calibrated per-tensor ranges), 7-bit weights per matrix, MatMulIntegerToFloat (now shipped)": static,
}


def build(model, root: Path) -> dict[str, Path]:
    """One bundle directory per variant, all from the same exported graphs."""
    raw, unfused = root / "raw", root / "unfused"
    raw.mkdir()
    unfused.mkdir()
    names = export_graphs(model, raw)
    for g in GRAPHS:
        optimize(raw / g, unfused / g, UNFUSED_FOR_QUANTIZATION)
    graphs = tuple(unfused / g for g in GRAPHS)
    ranges = activation_ranges(graphs, names, model.cfg, anchor_sources(model.cfg, 64))
    bundles = {}
    for i, (variant, make) in enumerate(VARIANTS.items()):
        out = root / f"v{i}"
        out.mkdir()
        for g in GRAPHS:
            if make is None:
                optimize(raw / g, out / g)
            else:
                make(unfused / g, out / g, ranges)
        precision = None if make is None else "int8"
        config = bundle_config(model, out, names, precision, "random", {"source": "en", "target": "es"})
        (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
        bundles[variant] = out
    return bundles


def decode(runner: ModelRunner, sources: list[list[int]], batch: int) -> list[tuple[int, ...]]:
    """Greedy tokens of each source, decoded in consecutive groups of `batch`."""
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    tokens = []
    for start in range(0, len(sources), batch):
        group = sources[start : start + batch]
        scheduler = Scheduler(runner, None, max_rows=batch, max_queue=batch)
        tokens += [tuple(e.token_ids) for e in drive(scheduler, [(s, [], options) for s in group])]
    return tokens


def invariance(bundle_dir: Path, threads: int) -> dict:
    bundle = load_bundle(bundle_dir, verify=False, tokenizer=False)
    runner = ModelRunner(bundle, threads=threads, max_rows=32)
    sources = anchor_sources(bundle.model, 32)
    alone = decode(runner, sources, 1)
    changed = {str(b): sum(a != t for a, t in zip(alone, decode(runner, sources, b))) for b in (8, 32)}
    return {"alone": alone, "changed_vs_alone": changed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchors-dir", type=Path, default=Path("benchmarks"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--shape", type=parse_shape, default=SHAPE, help="d_model,layers,heads,d_ff,vocab")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    model = transformer_from_pretrained(anchor_model(args.anchors_dir, args.shape, print))
    with tempfile.TemporaryDirectory(prefix="int8-variants-") as tmp:
        bundles = build(model, Path(tmp))
        names = list(bundles)
        checks = {v: invariance(bundles[v], args.threads) for v in names}
        speed: dict[str, list[dict]] = {v: [] for v in names}
        for r in range(args.rounds):
            for v in names[r % len(names) :] + names[: r % len(names)]:
                speed[v].append(run_engine(bundles[v], BATCHES, args.runs, args.threads))
                print(f"round {r + 1}: {v}: {speed[v][-1]}", flush=True)

    fp32 = checks["fp32"]["alone"]
    rows = {}
    for v in names:
        alone = checks[v]["alone"]
        rows[v] = {
            "tokens_per_s": {str(b): statistics.median(s[str(b)] for s in speed[v]) for b in BATCHES},
            "rounds": speed[v],
            "sentences_changed_vs_alone": checks[v]["changed_vs_alone"],
            "sentences_equal_fp32": sum(a == f for a, f in zip(alone, fp32)),
            "tokens_equal_fp32": sum(x == y for a, f in zip(alone, fp32) for x, y in zip(a, f)),
        }
    print(
        "| variant | batch 1 | batch 8 | batch 32 | changed in batch 8 / 32 (of 32) | sentences = fp32 "
        "| tokens = fp32 |"
    )
    print("|---|---|---|---|---|---|---|")
    for v, row in rows.items():
        tps, ch = row["tokens_per_s"], row["sentences_changed_vs_alone"]
        print(
            f"| {v} | {tps['1']:,.0f} | {tps['8']:,.0f} | {tps['32']:,.0f} | {ch['8']} / {ch['32']} | "
            f"{row['sentences_equal_fp32']}/32 | {row['tokens_equal_fp32'] / (32 * NEW_TOKENS):.1%} |"
        )
    if args.out:
        report = {"shape": args.shape, "threads": args.threads, "rounds": args.rounds, "variants": rows}
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
