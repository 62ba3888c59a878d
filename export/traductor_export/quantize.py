"""The quantized precisions of `traductor export --quantize`: an optimized fp32 graph in, a
quantized graph out. Which precisions exist, and how each one is made, is here and nowhere else.

int8   dynamic int8 (onnxruntime.quantization.quantize_dynamic): int8 weights of every MatMul/Gemm
       with a constant weight, one scale per matrix, activations quantized per step; ONNX Runtime
       fuses each into one DynamicQuantizeMatMul (VNNI kernels). The optimize pass before it must
       leave Gemm and Relu apart (no FusedGemm), or the quantizer would skip the feed-forward's
       first matrix. Per-tensor, not per-channel, weight scales: faster in the bench at batch 8 and
       32 and the same chrF on the default model (docs/performance.md, "Quantization levers").
int4   4-bit weight-only (MatMulNBits, blocks of 32 along the input dimension, accuracy level 4:
       activations are quantized to int8 inside the kernel); each Gemm with a constant weight is
       first rewritten as MatMul + Add, since the quantizer only takes MatMul.

This module knows nothing of torch, checkpoints or bundles; the serving engine never imports it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

QUANTIZATIONS = ("int8", "int4")
INT4_BLOCK = 32
INT4_ACCURACY_LEVEL = 4  # MatMulNBits computes with int8 activations (VNNI)
# Optimizations the offline pass must not apply before quantizing: Gemm + Relu -> FusedGemm
# (com.microsoft), which no quantizer recognises.
UNFUSED_FOR_QUANTIZATION = ("GemmActivationFusion",)


def quantize(kind: str, src: Path, dst: Path) -> None:
    """Write `src` (an optimized fp32 graph) quantized as `kind` (one of QUANTIZATIONS) to `dst`."""
    if kind == "int8":
        quantize_int8(src, dst)
    elif kind == "int4":
        quantize_int4(src, dst)
    else:
        raise ValueError(f"unknown quantization {kind!r}; known: {', '.join(QUANTIZATIONS)}")


def quantize_int8(src: Path, dst: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # The optimized graph holds com.microsoft ops whose output types shape inference cannot
    # name: tell the quantizer that such tensors are float.
    quantize_dynamic(
        str(src),
        str(dst),
        weight_type=QuantType.QInt8,
        per_channel=False,
        op_types_to_quantize=["MatMul", "Gemm"],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def quantize_int4(src: Path, dst: Path) -> None:
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    model = onnx.load(str(src))
    gemm_to_matmul(model.graph)
    quantizer = MatMulNBitsQuantizer(
        model, bits=4, block_size=INT4_BLOCK, is_symmetric=True, accuracy_level=INT4_ACCURACY_LEVEL
    )
    quantizer.process()
    onnx.save(quantizer.model.model, str(dst))


def gemm_to_matmul(graph: onnx.GraphProto) -> int:
    """Rewrite every Gemm(A, W[, C]) with a constant W, alpha = beta = 1 and A not transposed as
    MatMul(A, W as (in, out)) followed by Add(C); returns how many were rewritten."""
    weights = {t.name: t for t in graph.initializer}
    nodes, rewritten = [], 0
    for node in graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        plain = attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0 and not attrs.get("transA", 0)
        if node.op_type != "Gemm" or node.domain or not plain or node.input[1] not in weights:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(weights[node.input[1]])
        name = f"{node.input[1]}_in_out" if attrs.get("transB", 0) else node.input[1]
        if name not in weights:
            weights[name] = numpy_helper.from_array(np.ascontiguousarray(w.T), name)
            graph.initializer.append(weights[name])
        has_bias = len(node.input) > 2 and node.input[2]
        product = f"{node.output[0]}_matmul" if has_bias else node.output[0]
        make = onnx.helper.make_node
        nodes.append(make("MatMul", [node.input[0], name], [product], name=f"{node.name}_matmul"))
        if has_bias:
            nodes.append(make("Add", [product, node.input[2]], [node.output[0]], name=f"{node.name}_add"))
        rewritten += 1
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    unused = [t for t in graph.initializer if t.name not in used]
    for t in unused:
        graph.initializer.remove(t)
    return rewritten
