"""The quantized precisions of `traductor export --quantize`: an optimized fp32 graph in, a
quantized graph out. Which precisions exist, and how each one is made, is here and nowhere else.

int8   dynamic int8 (onnxruntime.quantization.quantize_dynamic): int8 weights of every MatMul/Gemm
       with a constant weight, one scale per matrix, activations quantized per step; ONNX Runtime
       fuses each into one DynamicQuantizeMatMul (VNNI kernels). The optimize pass before it must
       leave Gemm and Relu apart (no FusedGemm), or the quantizer would skip the feed-forward's
       first matrix. Per-tensor, not per-channel, weight scales: faster in the bench at batch 8 and
       32 and the same chrF on the default model.

Tried and not kept (figures in docs/performance.md, "Quantization levers (issue 16)"): per-channel
weight scales, static (calibrated) int8, 4-bit and 8-bit weight-only MatMulNBits, bf16 (ONNX
Runtime's CPU provider has no bf16 MatMul or Gemm).

This module knows nothing of torch, checkpoints or bundles; the serving engine never imports it.
"""

from __future__ import annotations

from pathlib import Path

import onnx

QUANTIZATIONS = ("int8",)
# Optimizations the offline pass must not apply before quantizing: Gemm + Relu -> FusedGemm
# (com.microsoft), which the quantizer does not recognise.
UNFUSED_FOR_QUANTIZATION = ("GemmActivationFusion",)


def quantize(kind: str, src: Path, dst: Path) -> None:
    """Write `src` (an optimized fp32 graph) quantized as `kind` (one of QUANTIZATIONS) to `dst`."""
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; known: {', '.join(QUANTIZATIONS)}")
    quantize_int8(src, dst)


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
