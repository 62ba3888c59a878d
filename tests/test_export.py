"""`traductor export`: the bundle proves its parity, stands alone, refuses to overwrite, and bad
inputs (not a checkpoint, corrupt weights, a modified graph) are clear errors."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from safetensors.torch import load_file, save_file
from tiny_task import synthetic_pairs

from traductor.cli import main
from traductor.engine.bundle import BundleError, load_bundle, sha256
from traductor.engine.bundle_config import GRAPHS
from traductor.engine.translator import OnnxTranslator
from traductor.model.checkpoint import ModelDirError
from traductor_export.convert import ExportError, export

QUIET = {"progress": lambda *_: None}
TEXTS = [s for s, _ in synthetic_pairs(12, seed=31)] + ["dos %1$s", "Permission denied"]


def copy_checkpoint(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("train_state.pt", "*.png", "history.json"))
    return dst


def test_bundle_config_records_parity_and_checksums(tiny_bundle):
    """config.json: token-identical (cached and ONNX), logits within 1e-4, checksums of the graphs."""
    config = json.loads((tiny_bundle / "config.json").read_text())
    parity = config["parity"]
    assert parity["onnx_identical"] == 1.0 and parity["cached_identical"] == 1.0
    assert parity["max_abs_logit_diff"] <= 1e-4 and parity["sentences"] >= 30
    assert config["quantization"] == "none" and config["format"] == "traductor-bundle"
    assert config["sha256"] == {g: sha256(tiny_bundle / g) for g in GRAPHS}
    assert sorted(p.name for p in tiny_bundle.iterdir()) == [
        "config.json",
        "decoder.onnx",
        "encoder.onnx",
        "tokenizer.model",
    ]
    assert not tiny_bundle.with_name(tiny_bundle.name + ".partial").exists()


def test_bundle_loads_in_a_fresh_process_from_its_directory_alone(tiny_bundle, tmp_path):
    """Copied elsewhere, the bundle translates in a new interpreter exactly as it does here."""
    moved = shutil.copytree(tiny_bundle, tmp_path / "elsewhere" / "bundle")
    code = (
        "import json, sys; from traductor.engine.translator import OnnxTranslator; "
        "t = OnnxTranslator.load(sys.argv[1], threads=1); "
        "print(json.dumps(t.translate(json.loads(sys.argv[2]), beam_size=2)))"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(moved), json.dumps(TEXTS)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    here = OnnxTranslator.load(tiny_bundle, threads=1).translate(TEXTS, beam_size=2)
    assert json.loads(out.stdout) == here


def test_export_refuses_a_non_empty_directory_unless_forced(tiny_checkpoint, tmp_path, capsys):
    """An existing non-empty output is an ExportError / CLI status 2; --force replaces it."""
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    with pytest.raises(ExportError, match="already exists; pass --force"):
        export(tiny_checkpoint, out, **QUIET)
    assert main(["export", "--checkpoint", str(tiny_checkpoint), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err and "--force" in err
    assert (out / "keep.txt").read_text() == "precious"

    config = export(tiny_checkpoint, out, force=True, **QUIET)
    assert not (out / "keep.txt").exists()
    assert load_bundle(out).config.sha256 == config["sha256"]
    assert config["parity"]["onnx_identical"] == 1.0

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["export", "--checkpoint", str(tiny_checkpoint), "--out", str(empty)]) == 0  # empty: fine
    assert json.loads(capsys.readouterr().out.split("\n", 6)[-1])["quantization"] == "none"


def test_export_not_a_checkpoint(tmp_path, capsys):
    """A directory that is not a checkpoint: ModelDirError, CLI status 2 with one line."""
    (tmp_path / "notckpt").mkdir()
    (tmp_path / "notckpt" / "README").write_text("hello")
    with pytest.raises(ModelDirError, match="is not a traductor checkpoint"):
        export(tmp_path / "notckpt", tmp_path / "out", **QUIET)
    assert main(["export", "--checkpoint", str(tmp_path / "notckpt"), "--out", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a traductor checkpoint" in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out2").exists()


def test_export_corrupt_weights(tiny_checkpoint, tmp_path, capsys):
    """A truncated model.safetensors is named as corrupt, not a traceback."""
    ckpt = copy_checkpoint(tiny_checkpoint, tmp_path / "ckpt")
    weights = ckpt / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(ModelDirError, match="model.safetensors: corrupt or mismatched weights"):
        export(ckpt, tmp_path / "out", **QUIET)
    assert main(["export", "--checkpoint", str(ckpt), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "corrupt or mismatched weights" in err


def test_export_rejects_non_finite_weights(tiny_checkpoint, tmp_path):
    """A NaN in the weights stops the export at validation, naming the tensor."""
    ckpt = copy_checkpoint(tiny_checkpoint, tmp_path / "ckpt")
    state = load_file(ckpt / "model.safetensors")
    state["decoder_layers.0.ffn.w_1.weight"][0, 0] = float("nan")
    save_file(state, ckpt / "model.safetensors")
    with pytest.raises(ExportError, match="decoder_layers.0.ffn.w_1.weight has NaN"):
        export(ckpt, tmp_path / "out", **QUIET)


def test_modified_graph_fails_its_checksum(tiny_bundle, tmp_path, capsys, monkeypatch):
    """One flipped byte in decoder.onnx: BundleError naming the file and the checksum; CLI status 2."""
    bundle = shutil.copytree(tiny_bundle, tmp_path / "b")
    data = bytearray((bundle / "decoder.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bundle / "decoder.onnx").write_bytes(bytes(data))
    with pytest.raises(BundleError, match="decoder.onnx: checksum mismatch"):
        load_bundle(bundle)
    monkeypatch.setattr("sys.stdin", io.StringIO("uno\n"))
    assert main(["translate", "--model", str(bundle), "--threads", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checksum mismatch" in err and "decoder.onnx" in err


@pytest.mark.parametrize("flags", [[], ["--no-engine-process"]], ids=["engine-process", "engine-thread"])
def test_a_graph_onnx_runtime_cannot_load_is_one_line(tiny_bundle, tmp_path, capsys, flags):
    """decoder.onnx cut short, its checksum updated to match: `serve` fails with one line naming the
    file, status 2, whether the model loads in its engine process (the default) or in the server."""
    bundle = shutil.copytree(tiny_bundle, tmp_path / "b")
    (bundle / "decoder.onnx").write_bytes((bundle / "decoder.onnx").read_bytes()[:1000])
    config = json.loads((bundle / "config.json").read_text())
    config["sha256"]["decoder.onnx"] = sha256(bundle / "decoder.onnx")
    (bundle / "config.json").write_text(json.dumps(config))
    serve = ["serve", "--model", str(bundle), "--port", "0", "--metrics-port", "0", "--threads", "1", *flags]
    assert main(serve) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "decoder.onnx: ONNX Runtime cannot load this graph" in err, err


def test_bundle_missing_a_file(tiny_bundle, tmp_path):
    """A bundle without its tokenizer or a graph says which file is missing."""
    bundle = shutil.copytree(tiny_bundle, tmp_path / "b")
    (bundle / "encoder.onnx").unlink()
    with pytest.raises(BundleError, match="is missing encoder.onnx"):
        load_bundle(bundle)
    with pytest.raises(BundleError, match="no config.json"):
        load_bundle(tmp_path)


def test_int8_export(tiny_bundles, tiny_bundle):
    """quantize="int8": the config says so, the graphs hold the batch-invariant integer products
    (MatMulIntegerToFloat on activations quantized with constant scales, no DynamicQuantize*) and are
    smaller; tests/test_quantize.py checks every matrix and the translations."""
    out = tiny_bundles["int8"]
    assert json.loads((out / "config.json").read_text())["quantization"] == "int8"
    ops = {n.op_type for n in onnx.load(str(out / "decoder.onnx")).graph.node}
    assert "MatMulIntegerToFloat" in ops and not ops & {"DynamicQuantizeMatMul", "DynamicQuantizeLinear"}, ops
    assert (out / "decoder.onnx").stat().st_size < (tiny_bundle / "decoder.onnx").stat().st_size


def test_parity_holds_for_a_model_trained_with_dropout(tiny_checkpoint, tmp_path):
    """A checkpoint whose config has dropout > 0 exports token-identical: nothing (not even
    torch.onnx.export, which restores the exported module's training flag) may leave the model in
    training mode while the parity reference runs. Before the fix this gave onnx_identical ~0.3."""
    ckpt = tmp_path / "dropout-ckpt"
    shutil.copytree(tiny_checkpoint, ckpt)
    config = json.loads((ckpt / "config.json").read_text())
    config["model"]["dropout"] = 0.5
    (ckpt / "config.json").write_text(json.dumps(config))
    parity = export(ckpt, tmp_path / "bundle", progress=lambda *_: None)["parity"]
    assert parity["cached_identical"] == 1.0 and parity["onnx_identical"] == 1.0
    assert parity["max_abs_logit_diff"] <= 1e-4


def test_fp16_checkpoint_loads_as_fp32_and_translates_alike(tiny_checkpoint, tmp_path):
    """Weights stored in fp16 (as the shipped model is) load, run in fp32, and give the same greedy
    translations as the fp32 weights they were rounded from, on the synthetic task."""
    import torch

    from traductor.model import checkpoint
    from traductor.model.translator import TorchTranslator

    ckpt = copy_checkpoint(tiny_checkpoint, tmp_path / "fp16")
    state = load_file(ckpt / "model.safetensors")
    save_file({k: v.half() if v.is_floating_point() else v for k, v in state.items()}, ckpt / "model.safetensors")
    model, _, _ = checkpoint.load(ckpt)
    assert all(p.dtype == torch.float32 for p in model.parameters())
    texts = [s for s, _ in synthetic_pairs(20, seed=33)]
    half = TorchTranslator.load(ckpt).translate(texts)
    full = TorchTranslator.load(tiny_checkpoint).translate(texts)
    assert sum(a == b for a, b in zip(half, full)) >= 0.9 * len(texts)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda c: c["model"].pop("n_heads"), "model: missing model config keys: ['n_heads']"),
        (lambda c: c["model"].update(d_model="wide"), "model: d_model must be int"),
        (lambda c: c["io"].pop("decoder_inputs"), "io.decoder_inputs"),
        (lambda c: c["languages"].update(target=3), "languages.target"),
        (lambda c: c.pop("opset"), "opset"),
        (lambda c: c["sha256"].pop("encoder.onnx"), "sha256.encoder.onnx"),
        (lambda c: c.update(format="other"), "format"),
    ],
)
def test_bundle_config_errors_name_the_field(tiny_bundle, tmp_path, change, field):
    """A config.json with a missing or ill-typed field: a BundleError naming that field."""
    bundle = shutil.copytree(tiny_bundle, tmp_path / "b")
    config = json.loads((bundle / "config.json").read_text())
    change(config)
    (bundle / "config.json").write_text(json.dumps(config))
    with pytest.raises(BundleError) as info:
        load_bundle(bundle)
    assert f"config.json: {field}" in str(info.value)


def test_bundle_config_round_trips(tiny_bundle):
    """What the exporter wrote is what BundleConfig reads back and would write again."""
    from traductor.engine.bundle_config import BundleConfig

    written = json.loads((tiny_bundle / "config.json").read_text())
    assert BundleConfig.from_dict(written).to_dict() == written


def test_default_bundle_is_the_shipped_one_or_a_clear_error(tmp_path, monkeypatch):
    """default_bundle() never exports: TRADUCTOR_BUNDLE wins, else the package's bundle, else an error."""
    from traductor.engine import bundle as bundle_module

    monkeypatch.setenv("TRADUCTOR_BUNDLE", str(tmp_path / "elsewhere"))
    assert bundle_module.default_bundle() == tmp_path / "elsewhere"
    monkeypatch.delenv("TRADUCTOR_BUNDLE")
    monkeypatch.setattr(bundle_module, "DEFAULT_BUNDLE_DIR", tmp_path / "missing")
    with pytest.raises(BundleError, match="default model's bundle is missing"):
        bundle_module.default_bundle()
    (tmp_path / "missing").mkdir()
    (tmp_path / "missing" / "config.json").write_text("{}")
    assert bundle_module.default_bundle() == tmp_path / "missing"
