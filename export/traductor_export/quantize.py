"""The quantized precisions of `traductor export --quantize`: an optimized fp32 graph in, a
quantized graph out. Which precisions exist, and how each one is made, is here and nowhere else.

int8   batch-invariant int8: every MatMul/Gemm with a stored weight becomes one ONNX Runtime
       `com.microsoft.MatMulNBits` with 8-bit weights (symmetric, one scale per block of
       INT8_BLOCK input values of each output column) and accuracy level 4: the kernel quantizes
       the activations to int8 per block *of each row* and multiplies in integers. A row's result
       therefore depends on that row alone, never on the other rows of the step or on the
       encoder's padding (the old per-tensor dynamic int8 took one activation scale for the whole
       batch; docs/determinism.md). The layer's bias rides in the same op; a MatMul's following
       `Add` of a constant bias is folded into it.

Tried and not kept (figures in docs/performance.md, "Batch-invariant int8 (issue 22)" and
"Quantization levers (issue 16)"): per-tensor dynamic int8 (DynamicQuantizeMatMul; batch-dependent),
per-channel weight scales, static (calibrated) int8, 4-bit MatMulNBits, bf16 (ONNX Runtime's CPU
provider has no bf16 MatMul or Gemm).

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
INT8_BLOCK = 32  # input values per weight scale and per activation scale (see docs/performance.md)
ACCURACY_LEVEL = 4  # MatMulNBits: int8 activations, quantized per block of each row
# Optimizations the offline pass must not apply before quantizing: Gemm + Relu -> FusedGemm
# (com.microsoft), which the quantizer does not recognise.
UNFUSED_FOR_QUANTIZATION = ("GemmActivationFusion",)
MS_DOMAIN = "com.microsoft"


def quantize(kind: str, src: Path, dst: Path) -> None:
    """Write `src` (an optimized fp32 graph) quantized as `kind` (one of QUANTIZATIONS) to `dst`."""
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; known: {', '.join(QUANTIZATIONS)}")
    model = onnx.load(str(src))
    replace_products(model.graph, INT8_BLOCK)
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


def replace_products(graph: onnx.GraphProto, block: int, accuracy_level: int = ACCURACY_LEVEL) -> int:
    """Rewrite every product with a stored weight as one MatMulNBits (8-bit, `block`), with its
    bias (the Gemm's, or the constant Add that alone consumes a MatMul's output); returns how many.
    `accuracy_level` other than 4 exists for scripts/int8_variants.py (what was tried)."""
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
        n, k = w.shape
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
        base = f"{node.name or out}_q8"
        q, scales = quantize_blocks(w.astype(np.float32), block)
        inits = [numpy_helper.from_array(q, f"{base}_B"), numpy_helper.from_array(scales, f"{base}_scales")]
        inputs = [node.input[0], inits[0].name, inits[1].name]
        if bias is not None:
            inits.append(numpy_helper.from_array(bias, f"{base}_bias"))
            inputs += ["", "", inits[2].name]  # no zero points (default 128), no g_idx
        graph.initializer.extend(inits)
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                inputs,
                [out],
                name=base,
                domain=MS_DOMAIN,
                K=k,
                N=n,
                bits=8,
                block_size=block,
                accuracy_level=accuracy_level,
            )
        )
        count += 1
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    for t in [t for t in graph.initializer if t.name not in used]:
        graph.initializer.remove(t)
    return count
