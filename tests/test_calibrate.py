"""The int8 export's calibration (traductor_export/calibrate.py) and the static quantization it
feeds (quantize.py): the ranges are those of the texts alone (padding and finished rows left
out), every scale in the int8 graphs is a constant, and a range maps onto uint8 with 0 exact."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from tiny_task import synthetic_pairs

from traductor.errors import ExportError
from traductor.model import checkpoint
from traductor_export import calibrate
from traductor_export.onnx_files import build_graphs, export_graphs, optimize
from traductor_export.quantize import UNFUSED_FOR_QUANTIZATION, activation_qparams, activations

GRAPHS = ("encoder.onnx", "decoder.onnx")


@pytest.fixture(scope="module")
def tiny_graphs(tiny_checkpoint, tmp_path_factory):
    """The tiny model's optimized fp32 graphs as int8 quantizes them, what they watch, its model."""
    model, tokenizer, _ = checkpoint.load(tiny_checkpoint)
    root = tmp_path_factory.mktemp("calibrate")
    names = export_graphs(model, root)
    paths = tuple(root / f"opt-{g}" for g in GRAPHS)
    for g, path in zip(GRAPHS, paths, strict=True):
        optimize(root / Path(g).stem / g, path, UNFUSED_FOR_QUANTIZATION)  # export_graphs: a directory per graph
    watched = tuple(activations(onnx.load(str(p)).graph) for p in paths)
    sources = [tokenizer.encode(s)[0] for s, _ in synthetic_pairs(12, seed=5)]
    return paths, watched, names, model, sources


def test_every_quantized_activation_is_watched(tiny_graphs):
    """Each weight product's input, once: per encoder layer Q/K/V's (one tensor), the attention's
    output, FFN 1's and FFN 2's, and the encoder's output feeding every cross K/V; per decoder layer
    the fused QKV's, the attention's output, cross Q's, the cross attention's output, FFN 1's and
    FFN 2's, and the last layer's output feeding the output projection."""
    _, (enc, dec), _, model, _ = tiny_graphs
    cfg = model.cfg
    assert len(enc) == 4 * cfg.n_encoder_layers + 1, enc
    assert len(dec) == 6 * cfg.n_decoder_layers + 1, dec


def test_ranges_are_the_texts_own_whatever_the_batch(tiny_graphs):
    """The ranges of 12 sources of different lengths calibrated together (one batch: the short
    ones padded, the rows that finish early carried along) equal those of each source calibrated
    alone, merged: padding positions and finished rows are left out."""
    paths, watched, names, model, sources = tiny_graphs
    assert len({len(s) for s in sources}) > 1
    together = calibrate.activation_ranges(paths, names, model.cfg, sources)
    alone = [calibrate.activation_ranges(paths, names, model.cfg, [s]) for s in sources]
    assert set(together) == set(watched[0]) | set(watched[1])
    for x, (low, high) in together.items():
        assert low == pytest.approx(min(r[x][0] for r in alone), rel=1e-5, abs=1e-6), x
        assert high == pytest.approx(max(r[x][1] for r in alone), rel=1e-5, abs=1e-6), x
        assert low < high, x


def test_no_sources_is_an_error_naming_it(tiny_graphs, tmp_path):
    paths, watched, names, model, _ = tiny_graphs
    with pytest.raises(ValueError, match="calibration saw no value"):
        calibrate.activation_ranges(paths, names, model.cfg, [])
    with pytest.raises(ExportError, match="needs calibration sources"):
        build_graphs(model, tmp_path, "int8", progress=lambda *_: None, calibration=[])


@pytest.mark.parametrize("low, high", [(-3.0, 5.0), (0.0, 7.5), (-2.0, -0.5), (0.25, 4.0), (0.0, 0.0)])
def test_a_range_maps_onto_uint8_with_zero_exact(low, high):
    scale, zero_point = activation_qparams(low, high)
    assert 0 <= zero_point <= 255 and scale > 0
    quantized = lambda x: np.clip(np.rint(x / scale) + zero_point, 0, 255)  # noqa: E731  (QuantizeLinear)
    dequantized = lambda x: (quantized(x) - zero_point) * scale  # noqa: E731
    assert dequantized(0.0) == 0.0
    for x in (low, high, (low + high) / 2):
        assert abs(dequantized(x) - x) <= scale / 2 + 1e-6 * max(1.0, abs(x))


def test_int8_graphs_take_no_scale_from_the_batch(tiny_bundles):
    """Nothing in the int8 graphs reduces over a row or the batch to find a scale: each quantized
    activation goes through one QuantizeLinear whose scale and zero point are stored constants,
    shared by the products that read it."""
    for g in GRAPHS:
        graph = onnx.load(str(tiny_bundles["int8"] / g)).graph
        ops = {n.op_type for n in graph.node}
        assert not ops & {"ReduceMax", "ReduceMin", "DynamicQuantizeLinear", "DynamicQuantizeMatMul"}, (g, ops)
        constants = {t.name for t in graph.initializer}
        quantizers = [n for n in graph.node if n.op_type == "QuantizeLinear"]
        assert quantizers and all(n.input[1] in constants and n.input[2] in constants for n in quantizers)
        assert len({n.input[0] for n in quantizers}) == len(quantizers), "an activation quantized twice"
        u8 = {n.output[0] for n in quantizers}
        assert all(n.input[0] in u8 for n in graph.node if n.op_type == "MatMulIntegerToFloat")
