"""`traductor export`: checkpoint -> bundle, as one template (load, validate, optimize, save, prove).

load       the checkpoint directory (config.json, model.safetensors, tokenizer.model)
validate   config, finite weights, tokenizer and model agree
export     EncoderGraph and DecoderStepGraph to ONNX (opset 17), checked by onnx.checker
optimize   ONNX Runtime's portable graph optimizations, applied offline and saved
quantize   optional: int8 matrix multiplications (quantize.py), with the activations' ranges
           calibrated on the parity sources (calibrate.py); export to quantize: onnx_files.py
save       tokenizer, optional translation memory (--memory), config.json with dimensions, IO
           names, checksums
           A model whose weights pass EXTERNAL_DATA_ABOVE (protobuf holds no message over 2 GB:
           NLLB-600M's fp32 decoder is 2.4 GB) has each graph written as two files, the graph
           and its weights beside it (decoder.onnx + decoder.onnx.data, `data_file`); ONNX
           Runtime reads them from the graph's directory and config.json has both checksums.
prove      parity against PyTorch (parity.py); fp32 must be token-identical or the export fails
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import onnxruntime as ort
import torch

from traductor.engine import memory as tm
from traductor.engine.bundle import load_bundle, sha256
from traductor.engine.bundle_config import GRAPHS, BundleConfig, Languages
from traductor.engine.translator import OnnxTranslator
from traductor.errors import ExportError
from traductor.model import checkpoint
from traductor.model.controls import Registers
from traductor.model.generation import GenerationConfig
from traductor.model.tokenizer import FILENAME as TOKENIZER_FILE
from traductor.model.tokenizer import TokenizerConfig
from traductor.model.transformer import Transformer

from . import parity
from .onnx_files import EXTERNAL_DATA_ABOVE, OPSET, build_graphs, data_file

MAX_LOGIT_DIFF = 1e-4


def validate(model: Transformer) -> None:
    for name, p in model.state_dict().items():
        if not torch.isfinite(p).all():
            raise ExportError(f"weight {name} has NaN or infinite values")


def copy_memory(memory: Path, out: Path) -> tm.MemoryFile:
    """The translation memory checked (readable, well formed) and copied into the bundle."""
    entries = tm.read_memory(memory)
    shutil.copy(memory, out / tm.FILENAME)
    return tm.MemoryFile(tm.FILENAME, sha256(out / tm.FILENAME), len(entries))


def bundle_config(
    model: Transformer,
    out: Path,
    names: dict,
    quantize: str | None,
    name: str,
    languages: dict,
    memory: tm.MemoryFile | None = None,
    tokenizer: TokenizerConfig | None = None,
    generation: GenerationConfig | None = None,
    registers: Registers | None = None,
) -> BundleConfig:
    """The bundle's config.json (without parity, which is measured once the bundle can run)."""
    return BundleConfig(
        model=model.cfg,
        languages=Languages(languages["source"], languages["target"]),
        name=name,
        opset=OPSET,
        quantization=quantize or "none",
        io=names,
        onnxruntime=ort.__version__,
        sha256={f: sha256(out / f) for g in GRAPHS for f in (g, data_file(g)) if (out / f).is_file()},
        memory=memory,
        tokenizer=tokenizer,
        generation=generation,
        registers=registers or Registers(),
    )


def _model_name(checkpoint_dir: Path) -> str:
    """The name a bundle records: the checkpoint directory's ("en-es" for the shipped one)."""
    return checkpoint_dir.resolve().name


def export(
    checkpoint_dir: Path | None,
    out: Path,
    quantize: str | None = None,
    force: bool = False,
    parity_sentences: list[str] | None = None,
    progress=print,
    memory: Path | None = None,
    external_above: int = EXTERNAL_DATA_ABOVE,
) -> dict:
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise ExportError(f"{out} already exists; pass --force to overwrite it")
    if memory is not None and not Path(memory).is_file():
        raise ExportError(f"--memory: {memory} is not a file (memory.tsv from `traductor corpus`)")
    t0 = time.monotonic()
    progress("[1/6] load")
    model, tokenizer, ckpt_config = checkpoint.load(checkpoint_dir)
    source_dir = Path(checkpoint_dir or checkpoint.DEFAULT_MODEL_DIR)
    return export_model(
        model,
        Source(
            tokenizer,
            {TOKENIZER_FILE: source_dir / TOKENIZER_FILE},
            _model_name(source_dir),
            registers=checkpoint.registers(ckpt_config),
        ),
        out,
        quantize,
        parity_sentences,
        progress,
        memory,
        languages=checkpoint.languages(ckpt_config),
        started=t0,
        external_above=external_above,
    )


@dataclass
class Source:
    """What a bundle is made from besides the model: the tokenizer (for the parity proof), the
    files it reads (bundle name -> where they are now), the weights' name, an imported model's
    tokenizer section and decoding rules, and what a checkpoint says of its model's registers
    (controls.Registers)."""

    tokenizer: object
    files: dict[str, Path]
    name: str
    tokenizer_config: TokenizerConfig | None = None
    generation: GenerationConfig | None = None
    registers: Registers = field(default_factory=Registers)


def export_model(
    model: Transformer,
    source: Source,
    out: Path,
    quantize: str | None = None,
    parity_sentences: list[str] | None = None,
    progress=print,
    memory: Path | None = None,
    languages: dict | None = None,
    started: float | None = None,
    external_above: int = EXTERNAL_DATA_ABOVE,
) -> dict:
    """validate -> graphs -> optimize (quantize) -> save -> prove parity: the part of the recipe
    that `traductor export` and `traductor import` share. Returns the bundle's config.json.
    `external_above`: build_graphs'."""
    t0 = started if started is not None else time.monotonic()
    progress("[2/6] validate")
    validate(model)
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    sentences = parity_sentences or parity.BUILTIN_SENTENCES
    calibration = [source.tokenizer.encode(s)[0][: model.cfg.max_len] for s in sentences] if quantize else None
    names = build_graphs(model, staging, quantize, progress, calibration, external_above)
    progress("[5/6] save")
    for name, path in source.files.items():
        shutil.copy(path, staging / name)
    memory_file = copy_memory(Path(memory), staging) if memory is not None else None
    config = bundle_config(
        model,
        staging,
        names,
        quantize,
        source.name,
        languages or checkpoint.languages({}),
        memory_file,
        source.tokenizer_config,
        source.generation,
        source.registers,
    )
    config = config.to_dict()
    (staging / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    progress("[6/6] prove parity")
    translator = OnnxTranslator(load_bundle(staging))
    report = parity.check(model, source.tokenizer, translator, sentences, generation=source.generation)
    texts = report.pop("onnx_texts")
    config["parity"] = report
    (staging / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    if quantize is None and (
        report["onnx_identical"] < 1.0
        or not report["max_abs_logit_diff"] <= MAX_LOGIT_DIFF
        or not math.isfinite(report["max_abs_logit_diff"])
    ):
        raise ExportError(f"parity check failed, the bundle is left in {staging} for inspection: {report}")
    if out.exists():
        shutil.rmtree(out)
    staging.rename(out)
    report["seconds"] = round(time.monotonic() - t0, 1)
    report["example"] = texts[:3]
    return config
