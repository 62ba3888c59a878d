"""The quantized precisions of `traductor export --quantize`: an optimized fp32 graph in, a
quantized graph out. Which precisions exist, and how each one is made, is here and nowhere else.

int8   batch-invariant int8, per row (RowwiseInt8): each activation row is quantized to 8 bits
       over its own range (min..max), weights to 7 bits with one scale per output column, and every
       MatMul/Gemm with a stored weight becomes one ONNX Runtime `com.microsoft.MatMulIntegerToFloat`
       that multiplies in integers (exact, whatever the batch) and scales each output by its row's
       and its column's scales; the row minimum's share and the bias are added after it. A row's
       result therefore depends on that row alone, never on the other rows of the step or on the
       encoder's padding (the per-tensor dynamic int8 shipped before took one activation range for
       the whole batch; docs/determinism.md). A MatMul's following `Add` of a constant bias is
       folded in.

Tried and not kept (figures in docs/performance.md, "Batch-invariant int8 (issue 22)" and
"Quantization levers (issue 16)"): per-tensor dynamic int8 (DynamicQuantizeMatMul; batch-dependent),
8-bit MatMulNBits at accuracy level 4 (batch-invariant too, but slower than fp32 at batch 8 and 32 on
this AVX2 machine without VNNI), per-row symmetric activations (-0.8 chrF), per-channel weight
scales, static (calibrated) int8, 4-bit MatMulNBits, bf16 (ONNX Runtime's CPU provider has no bf16
MatMul or Gemm).

The optimize pass before quantizing must leave Gemm and Relu apart (no FusedGemm), or the
feed-forward's first matrix would not be a plain Gemm here. This module knows nothing of torch,
checkpoints or bundles; the serving engine never imports it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

QUANTIZATIONS = ("int8",)
ACCURACY_LEVEL = 4  # MatMulNBits (tried): int8 activations, quantized per block of each row
# Optimizations the offline pass must not apply before quantizing: Gemm + Relu -> FusedGemm
# (com.microsoft), which the quantizer does not recognise.
UNFUSED_FOR_QUANTIZATION = ("GemmActivationFusion",)
MS_DOMAIN = "com.microsoft"


def quantize(kind: str, src: Path, dst: Path) -> None:
    """Write `src` (an optimized fp32 graph) quantized as `kind` (one of QUANTIZATIONS) to `dst`."""
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; known: {', '.join(QUANTIZATIONS)}")
    model = onnx.load(str(src))
    replace_products(model.graph, RowwiseInt8())
    if not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    onnx.save(model, str(dst))


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


def nbits_writer(block: int, accuracy_level: int = ACCURACY_LEVEL):
    """Writes a product as one MatMulNBits: 8-bit weights per block of `block`, and with accuracy
    level 4 int8 activations per block of each row (what scripts/int8_variants.py compares)."""

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
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    for t in [t for t in graph.initializer if t.name not in used]:
        graph.initializer.remove(t)
    return count
