"""The export's own fusion (traductor_export/fuse.py): residual Add + LayerNormalization becomes
SkipLayerNormalization where, and only where, the sum has no other reader; the fused graph
computes what the unfused one did; the shipped kinds of bundle carry it."""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from traductor_export.fuse import fuse_skip_layer_norm

D = 8


def block(pre_norm_reader: bool = False, bias: bool = False) -> onnx.ModelProto:
    """y = LN(x + x W (+ b)); with `pre_norm_reader`, the sum is also a graph output (a second reader)."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((D, D)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.standard_normal(D).astype(np.float32), "b"),
        numpy_helper.from_array(rng.standard_normal(D).astype(np.float32) + 1, "gamma"),
        numpy_helper.from_array(rng.standard_normal(D).astype(np.float32), "beta"),
    ]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"])]
    sublayer = "p"
    if bias:
        nodes.append(helper.make_node("Add", ["p", "b"], ["pb"]))
        sublayer = "pb"
    nodes += [
        helper.make_node("Add", ["x", sublayer], ["sum"]),
        helper.make_node("LayerNormalization", ["sum", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if pre_norm_reader:
        outputs.append(helper.make_tensor_value_info("sum", TensorProto.FLOAT, None))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "n", D])
    graph = helper.make_graph(nodes, "block", [x], outputs, inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def run(model: onnx.ModelProto, x: np.ndarray) -> list[np.ndarray]:
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return s.run(None, {"x": x})


def ops(model: onnx.ModelProto) -> collections.Counter:
    return collections.Counter(n.op_type for n in model.graph.node)


@pytest.mark.parametrize("bias", [False, True])
def test_residual_add_and_layer_norm_become_one_op_with_the_same_result(bias):
    model = block(bias=bias)
    x = np.random.default_rng(1).standard_normal((3, 5, D)).astype(np.float32)
    (before,) = run(model, x)
    assert fuse_skip_layer_norm(model.graph) == 1
    assert ops(model) == {"MatMul": 1, "SkipLayerNormalization": 1}  # the bias Add went in too
    (after,) = run(model, x)
    np.testing.assert_allclose(after, before, atol=1e-5)


def test_a_sum_read_elsewhere_is_left_alone():
    """Pre-norm: the residual sum also feeds the next sublayer, so the Add must stay."""
    model = block(pre_norm_reader=True)
    assert fuse_skip_layer_norm(model.graph) == 0
    assert ops(model) == {"MatMul": 1, "Add": 1, "LayerNormalization": 1}


def test_exported_bundles_carry_the_fusion(tiny_bundles):
    """Post-norm fp32 and int8 bundles: every LayerNormalization is fused, one per sublayer."""
    for precision, path in tiny_bundles.items():
        for graph in ("encoder.onnx", "decoder.onnx"):
            counts = ops(onnx.load(str(path / graph)))
            assert counts["LayerNormalization"] == 0, (precision, graph)
            assert counts["SkipLayerNormalization"] > 0, (precision, graph)
