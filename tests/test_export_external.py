"""Graphs with external weights: a model past protobuf's 2 GB (NLLB-600M's fp32 decoder) has each
graph written beside a file of its weights. The path is forced here on the tiny model
(`external_above=0`): the bundle proves parity, translates exactly as the inline bundle does at
every precision, stands alone when copied, and a missing or modified weights file is a clear error."""

from __future__ import annotations

import json
import shutil

import onnx
import pytest
from tiny_task import synthetic_pairs

from traductor.engine.bundle import BundleError, load_bundle, sha256
from traductor.engine.translator import OnnxTranslator
from traductor_export.convert import data_file, export

GRAPHS = ("encoder.onnx", "decoder.onnx")
TEXTS = [s for s, _ in synthetic_pairs(10, seed=47)]


@pytest.fixture(scope="module")
def external_bundles(tiny_checkpoint, tmp_path_factory) -> dict[str, object]:
    """The tiny model exported with external weights at fp32 and int8."""
    root = tmp_path_factory.mktemp("external")
    bundles = {}
    for precision, quantize in (("fp32", None), ("int8", "int8")):
        bundles[precision] = root / precision
        export(tiny_checkpoint, bundles[precision], quantize=quantize, progress=lambda *_: None, external_above=0)
    return bundles


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_external_weights_sit_beside_their_graphs_with_checksums(external_bundles, precision):
    bundle = external_bundles[precision]
    config = json.loads((bundle / "config.json").read_text())
    files = [*GRAPHS, *(data_file(g) for g in GRAPHS)]
    assert sorted(config["sha256"]) == sorted(files)
    assert config["sha256"] == {f: sha256(bundle / f) for f in files}
    for g in GRAPHS:
        graph = onnx.load(str(bundle / g), load_external_data=False)
        external = [t for t in graph.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
        assert external and {e.value for t in external for e in t.external_data if e.key == "location"} == {
            data_file(g)
        }
        assert (bundle / data_file(g)).stat().st_size > (bundle / g).stat().st_size
        assert (bundle / data_file(g)).stat().st_mode == (bundle / g).stat().st_mode  # a server reads both
    if precision == "fp32":
        assert config["parity"]["onnx_identical"] == 1.0 and config["parity"]["max_abs_logit_diff"] <= 1e-4


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_external_bundle_translates_as_the_inline_one(external_bundles, tiny_bundles, precision, tmp_path):
    """Copied elsewhere (the exporter's temporary files gone), it gives the inline bundle's tokens."""
    moved = shutil.copytree(external_bundles[precision], tmp_path / "moved")
    external = OnnxTranslator(load_bundle(moved), threads=1)
    inline = OnnxTranslator(load_bundle(tiny_bundles[precision]), threads=1)
    assert external.translate(TEXTS) == inline.translate(TEXTS)
    assert external.translate(TEXTS[:3], beam_size=2) == inline.translate(TEXTS[:3], beam_size=2)


def test_missing_or_modified_weights_are_clear_errors(external_bundles, tmp_path):
    bundle = shutil.copytree(external_bundles["fp32"], tmp_path / "b")
    weights = bundle / data_file("decoder.onnx")
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\0")
    with pytest.raises(BundleError, match="decoder.onnx.data: checksum mismatch"):
        load_bundle(bundle)
    weights.unlink()
    with pytest.raises(BundleError, match="is missing decoder.onnx.data"):
        load_bundle(bundle)
