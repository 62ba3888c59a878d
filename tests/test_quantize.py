"""Quantized exports (traductor_export/quantize.py): every weight matrix is quantized, the feed-
forward's first one included, as one MatMulIntegerToFloat fed by activations quantized with
calibrated constant scales (batch-invariant: tests/test_determinism.py, tests/test_calibrate.py);
the config names the precision; the bundle loads
and translates close to fp32; the CLI and the bench offer the precisions the export makes."""

from __future__ import annotations

import json

import numpy as np
import onnx
from tiny_task import synthetic_pairs

from traductor.bench.engine import PRECISIONS
from traductor.engine.translator import OnnxTranslator
from traductor_export.quantize import QUANTIZATIONS

FLOAT_PRODUCTS = {"Gemm", "FusedGemm", "MatMul", "FusedMatMul"}  # matrix products that run in fp32
PRODUCTS = FLOAT_PRODUCTS | {"MatMulInteger", "MatMulNBits", "MatMulIntegerToFloat"}


def weight_products(path) -> dict[str, int]:
    """Op type -> count of the matrix products of a graph whose second input is a stored weight."""
    graph = onnx.load(str(path)).graph
    weights = {t.name for t in graph.initializer}
    counts: dict[str, int] = {}
    for node in graph.node:
        if node.op_type in PRODUCTS and node.input[1] in weights:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
            if node.op_type == "MatMulIntegerToFloat":  # 7-bit weights: exact integer products on AVX2
                w = onnx.numpy_helper.to_array(next(t for t in graph.initializer if t.name == node.input[1]))
                assert w.dtype == np.int8 and np.abs(w).max() <= 63, node.name
    return counts


def test_int8_export_quantizes_every_weight_matrix_and_translates(tiny_bundles, tiny_bundle):
    """Both graphs: no matrix product with a stored fp32 weight is left (issue 16: the optimizer
    once fused the feed-forward's first matrix with its ReLU into a FusedGemm that the quantizer
    skipped), each is one MatMulIntegerToFloat of statically quantized int8 activations (issue 22:
    not the per-tensor DynamicQuantizeMatMul, whose scale came from the whole batch); the config
    names the precision; the bundle translates close to the fp32
    one on the synthetic task."""
    out = tiny_bundles["int8"]
    config = json.loads((out / "config.json").read_text())
    assert config["quantization"] == "int8"
    model = config["model"]
    enc, dec = model["n_encoder_layers"], model["n_decoder_layers"]
    # encoder: Q, K, V, out, FFN 1, FFN 2 per layer + each decoder layer's cross K and V;
    # decoder: fused QKV, out, cross Q, cross out, FFN 1, FFN 2 per layer + the output projection
    expected = {"encoder.onnx": 6 * enc + 2 * dec, "decoder.onnx": 6 * dec + 1}
    for graph, count in expected.items():
        products = weight_products(out / graph)
        assert not FLOAT_PRODUCTS & set(products), (graph, products)
        assert products == {"MatMulIntegerToFloat": count}, (graph, products)
    pairs = synthetic_pairs(60, seed=32)
    got = OnnxTranslator.load(out, threads=1).translate([s for s, _ in pairs])
    fp32 = OnnxTranslator.load(tiny_bundle, threads=1).translate([s for s, _ in pairs])
    assert sum(a == b for a, b in zip(got, fp32)) >= 0.7 * len(pairs)
    assert sum(g == t for g, (_, t) in zip(got, pairs)) >= 0.5 * len(pairs)


def test_int8_embeddings_are_int8_rows_with_their_scales(tiny_bundles, tiny_bundle):
    """Each graph's token lookup reads an int8 table with one scale per row, and no fp32 (vocab,
    d_model) table is left in the int8 graphs (each carried one: an NLLB-600M int8 bundle was
    larger than its checkpoint); the lookup gives each row within half a step of fp32."""
    config = json.loads((tiny_bundles["int8"] / "config.json").read_text())["model"]
    table_shape = [config["vocab_size"], config["d_model"]]
    for graph in ("encoder.onnx", "decoder.onnx"):
        fp32 = {t.name: t for t in onnx.load(str(tiny_bundle / graph)).graph.initializer}
        int8 = onnx.load(str(tiny_bundles["int8"] / graph)).graph
        tables = {t.name: onnx.numpy_helper.to_array(t) for t in int8.initializer if list(t.dims) == table_shape}
        assert [a.dtype for a in tables.values()] == [np.int8], (graph, list(tables))
        [(name, rows)] = tables.items()
        scale = onnx.numpy_helper.to_array(next(t for t in int8.initializer if t.name == name[:-3] + "_row_scale"))
        original = onnx.numpy_helper.to_array(fp32[name[:-3]])
        assert scale.shape == (table_shape[0], 1) and np.abs(rows * scale - original).max() <= scale.max() / 2 + 1e-7
        lookups = [n for n in int8.node if n.op_type == "Gather" and n.input[0] == name]
        assert len(lookups) == 1


def test_the_cli_and_the_bench_offer_the_quantizations_export_makes():
    from traductor.cli import build_parser

    export_parser = build_parser()._subparsers._group_actions[0].choices["export"]
    quantize = next(a for a in export_parser._actions if a.dest == "quantize")
    assert tuple(quantize.choices) == QUANTIZATIONS
    assert PRECISIONS == ("fp32", *QUANTIZATIONS)
