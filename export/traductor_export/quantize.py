"""The quantized precisions of `traductor export --quantize`: an optimized fp32 graph in, a
quantized graph out. Which precisions exist, and how each one is made, is here and nowhere else.

int8   batch-invariant static int8 (StaticInt8): every activation that feeds a weight product is
       quantized to 8 bits with one fixed scale and zero point, taken from its range in a
       calibration run (calibrate.py: the fp32 graphs translating the export's parity sources);
       weights to 7 bits with one scale per matrix. Each MatMul/Gemm with a stored weight
       becomes one ONNX `QuantizeLinear` (shared by the products that read the same activation)
       and one ONNX Runtime `com.microsoft.MatMulIntegerToFloat` with the bias inside: an exact
       integer product scaled by the activation's and the weights' scales. Every scale is a
       constant, so a row's result depends on that row alone, never on the other rows of the step
       or on the encoder's padding (the per-tensor dynamic int8 shipped before took its activation
       range from the whole batch; docs/determinism.md). A value outside the calibrated range is
       clipped to it. A MatMul's following `Add` of a constant bias is folded in. Every
       embedding lookup (a Gather from a stored fp32 matrix) reads an int8 copy with one scale
       per row instead (replace_lookups): a token's vector depends on that token alone, and the
       graph no longer carries the fp32 table (an NLLB-600M int8 bundle was larger than its fp32
       checkpoint: each graph held the 1 GB table).

Tried and not kept (figures in docs/performance.md, "Batch-invariant int8 (issue 22)" and
"Quantization levers (issue 16)"; the writers are in docs/experiments/int8_variants.py): one weight scale
per output column (slower at batch 1 on the default model, chrF +0.06), per-row dynamic
int8 (each row's own min..max: batch-invariant and as accurate, but 8 extra ops per activation,
3 per product, and a per-row scale ONNX Runtime applies in a pass of its own: slower than fp32 at
batch 8), per-tensor dynamic int8 (DynamicQuantizeMatMul; batch-dependent), 8-bit MatMulNBits at
accuracy level 4 (batch-invariant, slower than fp32 at batch 8 and 32 on this AVX2 machine
without VNNI), per-row symmetric activations (-0.8 chrF), static int8 in ONNX Runtime's QDQ form
(turned into QGemm/QLinearMatMul, slower), 4-bit MatMulNBits, bf16 (no CPU kernels).

Why 7-bit weights: AVX2 without VNNI multiplies u8 x s8 and adds pairs of products in 16 bits
with saturation; with |w| <= 63 a pair cannot saturate (2 * 255 * 63 < 32767), so the integer
product is exact.

The optimize pass before quantizing must leave Gemm and Relu apart (no FusedGemm), or the
feed-forward's first matrix would not be a plain Gemm here. This module knows nothing of torch,
checkpoints or bundles; the serving engine never imports it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

QUANTIZATIONS = ("int8",)
# Optimizations the offline pass must not apply before quantizing: Gemm + Relu -> FusedGemm
# (com.microsoft), which the quantizer does not recognise.
UNFUSED_FOR_QUANTIZATION = ("GemmActivationFusion",)
MS_DOMAIN = "com.microsoft"
WEIGHT_LEVELS = 63  # 7-bit weights: see the module's docstring


def quantize(
    kind: str,
    src: Path,
    dst: Path,
    ranges: dict[str, tuple[float, float]],
    vocab_size: int,
    data_file: str | None = None,
) -> None:
    """Write `src` (an optimized fp32 graph, its weights inline or beside it) quantized as `kind`
    (one of QUANTIZATIONS) to `dst`; `ranges` holds the calibrated range of each of its
    `activations()`; tables of `vocab_size` rows are the token embeddings. With `data_file`, the
    weights go to that file beside `dst` (which must not exist yet: the writer appends)."""
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; known: {', '.join(QUANTIZATIONS)}")
    model = onnx.load(str(src))
    replace_products(model.graph, StaticInt8(ranges))
    replace_lookups(model.graph, vocab_size)
    if not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    if data_file:
        onnx.save(model, str(dst), save_as_external_data=True, all_tensors_to_one_file=True, location=data_file)
        shutil.copymode(dst, dst.with_name(data_file))  # onnx creates it readable by its owner alone
    else:
        onnx.save(model, str(dst))


def activations(graph: onnx.GraphProto) -> list[str]:
    """The tensors that int8 quantizes: the activation input of every product with a stored weight."""
    weights = {t.name: t for t in graph.initializer}
    return sorted({node.input[0] for node in graph.node if _product(node, weights) is not None})


def _product(node: onnx.NodeProto, weights: dict) -> np.ndarray | None:
    """The (N, K) weight of a MatMul/Gemm that multiplies an activation by a stored matrix, or None."""
    if node.domain or node.op_type not in ("MatMul", "Gemm") or node.input[1] not in weights:
        return None
    w = numpy_helper.to_array(weights[node.input[1]])
    if w.ndim != 2:
        return None
    if node.op_type == "MatMul":
        return w.T
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or attrs.get("transA", 0):
        return None
    if (
        len(node.input) > 2
        and node.input[2]
        and _bias(node.input[2], weights, w.shape[0 if attrs.get("transB") else 1]) is None
    ):
        return None
    return w if attrs.get("transB", 0) else w.T


def _bias(name: str, weights: dict, n: int) -> np.ndarray | None:
    if name not in weights:
        return None
    b = numpy_helper.to_array(weights[name])
    return b.astype(np.float32) if b.shape == (n,) else None


def weight_int8(w: np.ndarray, levels: int = WEIGHT_LEVELS) -> tuple[np.ndarray, np.ndarray]:
    """w (N, K) fp32 -> (K, N) int8 weights symmetric within +-levels, and their one scale.
    One scale per matrix, not per column: ONNX Runtime then folds the product's scale into its
    kernel, where a column's scale costs a pass of its own (default model, batch 1, as served: a
    step took 1.23 and 1.57 ms with column scales against 0.98 and 1.21 in two rounds; test-split
    chrF 64.69 against 64.75 with the same activation ranges)."""
    scale = float(np.abs(w).max()) / levels or 1.0
    wq = np.clip(np.rint(w / scale), -levels, levels).astype(np.int8)
    return np.ascontiguousarray(wq.T), np.array(scale, np.float32)


def activation_qparams(low: float, high: float) -> tuple[float, int]:
    """A range -> (scale, uint8 zero point) covering it and 0 (so that 0 is exact)."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = max(high - low, 1e-12) / 255.0
    return scale, int(np.clip(np.rint(-low / scale), 0, 255))


class StaticInt8:
    """Writes a product as static int8: QuantizeLinear(x, scale, zero point), once per activation,
    then MatMulIntegerToFloat(x_u8, W_s8, scale, weight scale, zero point, -, bias)."""

    def __init__(self, ranges: dict[str, tuple[float, float]]) -> None:
        self.ranges = ranges
        self.quantized: dict[str, tuple[str, str, str]] = {}  # activation -> (uint8, scale, zero point)

    def _quantize(self, x: str) -> tuple[list, list]:
        if x not in self.ranges:
            raise ValueError(f"no calibrated range for {x!r}")
        scale, zero_point = activation_qparams(*self.ranges[x])
        q = f"{x}_q8"
        self.quantized[x] = (f"{q}_u8", f"{q}_scale", f"{q}_zero")
        inits = [
            numpy_helper.from_array(np.array(scale, np.float32), f"{q}_scale"),
            numpy_helper.from_array(np.array(zero_point, np.uint8), f"{q}_zero"),
        ]
        return [helper.make_node("QuantizeLinear", [x, f"{q}_scale", f"{q}_zero"], [f"{q}_u8"], name=f"{q}_u8")], inits

    def __call__(self, x: str, w: np.ndarray, bias: np.ndarray | None, out: str, base: str):
        nodes, inits = self._quantize(x) if x not in self.quantized else ([], [])
        u8, scale, zero_point = self.quantized[x]
        wq, w_scale = weight_int8(w)
        inits += [numpy_helper.from_array(wq, f"{base}_B"), numpy_helper.from_array(w_scale, f"{base}_scale")]
        inputs = [u8, f"{base}_B", scale, f"{base}_scale", zero_point, ""]  # weights' zero point: 0
        if bias is not None:
            inits.append(numpy_helper.from_array(bias, f"{base}_bias"))
            inputs.append(f"{base}_bias")
        nodes.append(helper.make_node("MatMulIntegerToFloat", inputs, [out], name=base, domain=MS_DOMAIN))
        return nodes, inits


def replace_products(graph: onnx.GraphProto, write) -> int:
    """Rewrite every product with a stored weight, with its bias (the Gemm's, or the constant Add
    that alone consumes a MatMul's output), by `write(activation, weight (N, K), bias, output,
    name) -> (nodes, initializers)`; returns how many."""
    weights = {t.name: t for t in graph.initializer}
    original = list(graph.node)
    consumers: dict[str, list[int]] = {}
    for i, node in enumerate(original):
        for name in node.input:
            consumers.setdefault(name, []).append(i)
    outputs = {o.name for o in graph.output}
    dropped: set[int] = set()
    nodes, count = [], 0
    for i, node in enumerate(original):
        if i in dropped:
            continue
        w = _product(node, weights)
        if w is None:
            nodes.append(node)
            continue
        n = w.shape[0]
        out, bias = node.output[0], None
        if node.op_type == "Gemm" and len(node.input) > 2 and node.input[2]:
            bias = _bias(node.input[2], weights, n)
        elif node.op_type == "MatMul" and out not in outputs and len(consumers.get(out, [])) == 1:
            add = original[consumers[out][0]]
            other = [i for i in add.input if i != out]
            if add.op_type == "Add" and not add.domain and len(other) == 1:
                bias = _bias(other[0], weights, n)
                if bias is not None:
                    dropped.add(consumers[out][0])
                    out = add.output[0]
        new_nodes, inits = write(node.input[0], w.astype(np.float32), bias, out, f"{node.name or out}_q8")
        graph.initializer.extend(inits)
        nodes += new_nodes
        count += 1
    _replace_nodes(graph, nodes)
    return count


def replace_lookups(graph: onnx.GraphProto, vocab_size: int) -> int:
    """Rewrite every Gather of rows from a stored fp32 matrix of `vocab_size` rows (a token
    embedding; not the positions' table, which the quality of every position needs) as a Gather from its
    int8 copy, cast and times the row's scale (symmetric, 127 levels, one scale per row); the
    fp32 matrix goes when nothing else reads it. Returns how many."""
    weights = {t.name: t for t in graph.initializer}
    nodes, count, replaced = [], 0, {}
    for node in graph.node:
        table = weights.get(node.input[0]) if node.op_type == "Gather" and not node.domain else None
        axis = {a.name: helper.get_attribute_value(a) for a in node.attribute}.get("axis", 0)
        shape = list(table.dims) if table is not None else []
        if len(shape) != 2 or shape[0] != vocab_size or table.data_type != onnx.TensorProto.FLOAT or axis != 0:
            nodes.append(node)
            continue
        name = node.input[0]
        if name not in replaced:
            w = numpy_helper.to_array(table)
            scale = (np.abs(w).max(axis=1, keepdims=True) / 127).astype(np.float32)
            scale[scale == 0] = 1.0
            wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
            graph.initializer.extend(
                [numpy_helper.from_array(wq, f"{name}_i8"), numpy_helper.from_array(scale, f"{name}_row_scale")]
            )
            replaced[name] = (f"{name}_i8", f"{name}_row_scale")
        rows, row_scale = replaced[name]
        base, index, out = node.name or node.output[0], node.input[1], node.output[0]
        nodes += [
            helper.make_node("Gather", [rows, index], [f"{base}_i8"], name=f"{base}_i8"),
            helper.make_node("Cast", [f"{base}_i8"], [f"{base}_f"], name=f"{base}_cast", to=onnx.TensorProto.FLOAT),
            helper.make_node("Gather", [row_scale, index], [f"{base}_scale"], name=f"{base}_scale"),
            helper.make_node("Mul", [f"{base}_f", f"{base}_scale"], [out], name=f"{base}_dequantized"),
        ]
        count += 1
    _replace_nodes(graph, nodes)
    return count


def _replace_nodes(graph: onnx.GraphProto, nodes: list) -> None:
    """The graph's nodes become `nodes`; the weights no node reads any more are dropped."""
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    for t in [t for t in graph.initializer if t.name not in used]:
        graph.initializer.remove(t)
