"""Quantized exports (traductor_export/quantize.py): every weight matrix is quantized, the config
names the precision, the bundle loads and translates close to fp32; the Gemm -> MatMul + Add
rewrite that int4 needs computes the same thing; the CLI and the bench offer the same precisions."""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from tiny_task import synthetic_pairs

from traductor.bench_engine import PRECISIONS
from traductor.engine.translator import OnnxTranslator
from traductor_export.convert import export
from traductor_export.quantize import QUANTIZATIONS, gemm_to_matmul

QUIET = {"progress": lambda *_: None}
FLOAT_PRODUCTS = {"Gemm", "FusedGemm"}  # matrix products that would still run in fp32


def weight_products(path) -> dict[str, int]:
    """Op type -> count of the nodes of a graph whose second input is a stored weight."""
    graph = onnx.load(str(path)).graph
    weights = {t.name for t in graph.initializer}
    counts: dict[str, int] = {}
    for node in graph.node:
        if len(node.input) > 1 and node.input[1] in weights:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts


@pytest.mark.parametrize("kind,op", [("int8", "MatMulInteger"), ("int4", "MatMulNBits")])
def test_quantized_export_covers_every_weight_matrix_and_translates(kind, op, tiny_checkpoint, tiny_bundle, tmp_path):
    """Both graphs: no matrix product with a stored fp32 weight is left (the feed-forward's first
    matrix, which the optimizer fuses with its ReLU, included); the config names the precision;
    the bundle translates close to the fp32 one on the synthetic task."""
    out = tmp_path / kind
    config = export(tiny_checkpoint, out, quantize=kind, **QUIET)
    assert config["quantization"] == kind == json.loads((out / "config.json").read_text())["quantization"]
    for graph in ("encoder.onnx", "decoder.onnx"):
        products = weight_products(out / graph)
        assert not FLOAT_PRODUCTS & set(products), (graph, products)
        assert "MatMul" not in products, (graph, products)
        # 2 encoder layers x 6 matrices; decoder: 2 layers x 7 (fused QKV, out, cross Q, cross out,
        # FFN 2) + the output projection; the cross K/V of the decoder live in the encoder graph.
        assert products.get(op, 0) >= 12, (graph, products)
    pairs = synthetic_pairs(60, seed=32)
    got = OnnxTranslator.load(out, threads=1).translate([s for s, _ in pairs])
    fp32 = OnnxTranslator.load(tiny_bundle, threads=1).translate([s for s, _ in pairs])
    assert sum(a == b for a, b in zip(got, fp32)) >= 0.7 * len(pairs)
    assert sum(g == t for g, (_, t) in zip(got, pairs)) >= 0.5 * len(pairs)


def _gemm_model(trans_b: int, bias: bool) -> onnx.ModelProto:
    rng = np.random.default_rng(trans_b + 2 * bias)
    w = rng.standard_normal((6, 4) if trans_b else (4, 6)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w")]
    inputs = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(6).astype(np.float32), "b"))
        inputs.append("b")
    node = helper.make_node("Gemm", inputs, ["y"], name="g", transB=trans_b)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 6])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


@pytest.mark.parametrize("trans_b,bias", [(1, True), (0, True), (1, False)])
def test_gemm_to_matmul_computes_the_same(trans_b, bias):
    """Gemm(x, W, b) and the rewritten MatMul(x, W') + Add(b) give the same values; the weight
    that only the Gemm read is gone."""
    model = _gemm_model(trans_b, bias)
    x = np.random.default_rng(9).standard_normal((3, 4)).astype(np.float32)
    before = _run(model, x)
    assert gemm_to_matmul(model.graph) == 1
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == (["MatMul", "Add"] if bias else ["MatMul"])
    assert len(model.graph.initializer) == (2 if bias else 1)
    np.testing.assert_allclose(_run(model, x), before, rtol=1e-5, atol=1e-5)


def test_the_cli_and_the_bench_offer_the_quantizations_export_makes():
    from traductor.cli import build_parser

    export_parser = build_parser()._subparsers._group_actions[0].choices["export"]
    quantize = next(a for a in export_parser._actions if a.dest == "quantize")
    assert tuple(quantize.choices) == QUANTIZATIONS
    assert PRECISIONS == ("fp32", *QUANTIZATIONS)
