"""Fusions that ONNX Runtime's own optimizer leaves undone in our graphs, written into the saved
graph: the last step of `optimize` (after quantizing, for a quantized graph).

skip_layer_norm   each residual `Add` whose only reader is a `LayerNormalization` becomes one
                  `com.microsoft.SkipLayerNormalization`; a constant bias added to the sublayer's
                  output just before (an encoder MatMul's) becomes that op's bias input

ONNX Runtime fuses this pattern itself only in three-dimensional graphs it recognises; the
decoder step is two-dimensional, (B, d), and the encoder's pattern carries the bias Add between
the product and the residual. One op instead of two or three per sublayer: fewer kernels per step
(docs/performance.md, "SkipLayerNormalization"). Each row is normalised on its own, as before, so
the result still depends on that row only.

Which Adds are residual is not guessed from names: in these graphs a LayerNormalization reads
either x + F(x) (post-norm: every sublayer) or the last residual sum of a pre-norm stack, and
both operands have the same shape. A pre-norm layer's sum is also read by the next residual Add,
so it has two readers and is left alone. The parity proof that follows the export runs the fused
graphs. This module knows nothing of torch, checkpoints or bundles.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import helper

MS_DOMAIN = "com.microsoft"


def skip_layer_norm(path: Path) -> int:
    """Rewrite the graph at `path` in place; returns how many Add + LayerNormalization pairs were fused."""
    model = onnx.load(str(path))
    fused = fuse_skip_layer_norm(model.graph)
    if fused and not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    onnx.save(model, str(path))
    return fused


def fuse_skip_layer_norm(graph: onnx.GraphProto) -> int:
    producer = {out: node for node in graph.node for out in node.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    for out in graph.output:
        readers[out.name] = readers.get(out.name, 0) + 1
    constants = {init.name: init for init in graph.initializer}

    replaced: dict[int, onnx.NodeProto | None] = {}  # id(node) -> its replacement (None: removed)
    for norm in graph.node:
        if norm.op_type != "LayerNormalization" or norm.domain not in ("", "ai.onnx") or len(norm.output) != 1:
            continue
        add = producer.get(norm.input[0])
        if add is None or add.op_type != "Add" or readers[add.output[0]] != 1 or len(norm.input) < 3:
            continue
        if _attribute(norm, "axis", -1) != -1:
            continue
        x, sublayer = add.input
        inputs = [x, sublayer, norm.input[1], norm.input[2]]
        bias_add = producer.get(sublayer)
        width = constants[norm.input[1]].dims if norm.input[1] in constants else None  # (d,)
        bias = _constant_bias(bias_add, constants, width) if bias_add is not None and readers[sublayer] == 1 else None
        if bias is not None:  # x + (P + b): P is the product, b its bias
            inputs = [x, bias_add.input[1 - list(bias_add.input).index(bias)], norm.input[1], norm.input[2], bias]
            replaced[id(bias_add)] = None
        replaced[id(add)] = None
        replaced[id(norm)] = helper.make_node(
            "SkipLayerNormalization",
            inputs,
            [norm.output[0]],
            name=f"{norm.name or norm.output[0]}/skip",
            domain=MS_DOMAIN,
            epsilon=_attribute(norm, "epsilon", 1e-5),
        )
    if not replaced:
        return 0
    nodes = [replaced.get(id(n), n) for n in graph.node]
    del graph.node[:]
    graph.node.extend(n for n in nodes if n is not None)
    return sum(1 for n in replaced.values() if n is not None)


def _constant_bias(node: onnx.NodeProto, constants: dict, width) -> str | None:
    """The name of the constant of shape `width` (d,) that `node` adds, if it is such an Add."""
    if node.op_type != "Add" or width is None:
        return None
    for name in node.input:
        if name in constants and list(constants[name].dims) == list(width):
            return name
    return None


def _attribute(node: onnx.NodeProto, name: str, default):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default
