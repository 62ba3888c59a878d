"""`traductor export`: checkpoint -> bundle, as one template (load, validate, optimize, save, prove).

load       the checkpoint directory (config.json, model.safetensors, tokenizer.model)
validate   config, finite weights, tokenizer and model agree
export     EncoderGraph and DecoderStepGraph to ONNX (opset 17), checked by onnx.checker
optimize   ONNX Runtime's portable graph optimizations, applied offline and saved
quantize   optional: int8 matrix multiplications (quantize.py), with the activations' ranges
           calibrated on the parity sources (calibrate.py)
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
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import onnx
import onnxruntime as ort
import torch

from traductor.engine import memory as tm
from traductor.engine.bundle import load_bundle, sha256
from traductor.engine.bundle_config import GRAPHS, BundleConfig, Languages
from traductor.engine.translator import OnnxTranslator
from traductor.errors import ExportError
from traductor.model import checkpoint
from traductor.model.generation import GenerationConfig
from traductor.model.tokenizer import FILENAME as TOKENIZER_FILE
from traductor.model.tokenizer import TokenizerConfig
from traductor.model.transformer import Transformer

from . import calibrate, parity
from .graphs import DecoderStepGraph, EncoderGraph, io_names
from .quantize import UNFUSED_FOR_QUANTIZATION
from .quantize import quantize as quantize_graph

OPSET = 17
MAX_LOGIT_DIFF = 1e-4
# Weights (bytes) above which each graph keeps its weights in a file of its own: protobuf's
# limit is 2 GB per message, and the graphs hold more than the model's weights (the decoder's
# fused QKV copies).
EXTERNAL_DATA_ABOVE = 1 << 30


def data_file(graph: str) -> str:
    """The file beside a graph that holds its weights, when they are external: decoder.onnx.data."""
    return f"{graph}.data"


def weights_bytes(model: Transformer) -> int:
    return sum(t.numel() * t.element_size() for t in model.state_dict().values())


def validate(model: Transformer) -> None:
    for name, p in model.state_dict().items():
        if not torch.isfinite(p).all():
            raise ExportError(f"weight {name} has NaN or infinite values")


def export_graphs(model: Transformer, out: Path) -> dict:
    """Write encoder/encoder.onnx and decoder/decoder.onnx (unoptimized) and return the IO names.
    Each graph has a directory of its own: past 2 GB, torch writes a graph's weights as one file
    per tensor beside it, named after the tensor, and the two graphs share tensor names."""
    cfg, names = model.cfg, io_names(model.cfg.n_decoder_layers)
    B, n, T, h, dk = 2, 5, 3, cfg.n_heads, cfg.d_k
    src = torch.full((B, n), 5, dtype=torch.long)
    pad = torch.zeros((B, n), dtype=torch.bool)
    pad[1, -1] = True
    batch_src = {0: "batch", 1: "source_length"}
    # The wrappers are built in eval mode: torch.onnx.export restores the exported module's
    # training flag afterwards, and a new module is in training mode, which would switch the
    # model's dropout on for everything that runs after the export (the parity check included).
    torch.onnx.export(
        EncoderGraph(model).eval(),
        (src, pad),
        str(_exported(out, "encoder.onnx")),
        dynamo=False,
        opset_version=OPSET,
        input_names=names["encoder_inputs"],
        output_names=names["encoder_outputs"],
        dynamic_axes={
            "source_ids": batch_src,
            "source_padding": batch_src,
            **{k: {0: "batch", (1 if k == "encoder_output" else 2): "source_length"} for k in names["encoder_outputs"]},
        },
    )
    L = cfg.n_decoder_layers
    past = [torch.zeros(B, h, T, dk) for _ in range(2 * L)]
    cross = [torch.zeros(B, h, n, dk) for _ in range(2 * L)]
    args = (torch.full((B, 1), 5, dtype=torch.long), torch.tensor([1, 2]), pad, *past, *cross)
    axes = {"input_ids": {0: "batch"}, "positions": {0: "batch"}, "source_padding": batch_src, "logits": {0: "batch"}}
    axes.update({k: {0: "batch", 2: "past_length"} for k in names["decoder_inputs"] if k.startswith("past_")})
    axes.update({k: {0: "batch", 2: "source_length"} for k in names["decoder_inputs"] if k.startswith("cross_")})
    axes.update({k: {0: "batch"} for k in names["decoder_outputs"] if k.startswith("new_")})
    torch.onnx.export(
        DecoderStepGraph(model).eval(),
        args,
        str(_exported(out, "decoder.onnx")),
        dynamo=False,
        opset_version=OPSET,
        input_names=names["decoder_inputs"],
        output_names=names["decoder_outputs"],
        dynamic_axes=axes,
    )
    for g in GRAPHS:
        onnx.checker.check_model(str(_exported(out, g)), full_check=True)
    return names


def _exported(tmp: Path, graph: str) -> Path:
    """Where export_graphs writes `graph` in the temporary directory `tmp`: a directory of its own."""
    path = tmp / Path(graph).stem / graph
    path.parent.mkdir(exist_ok=True)
    return path


def optimize(src: Path, dst: Path, disabled: tuple[str, ...] = (), external: bool = False) -> None:
    """Apply ONNX Runtime's portable (extended) optimizations once, offline, and save the result;
    `disabled` names optimizers to leave out (those whose fused ops a quantizer would not see).
    `external`: every weight goes to one file beside `dst` (`data_file`), whatever files `src`
    read its own from (otherwise ONNX Runtime keeps an external weight's reference to `src`'s
    files, which are not beside `dst`)."""
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    opts.optimized_model_filepath = str(dst)
    if external:
        _remove(dst.with_name(data_file(dst.name)))
        opts.add_session_config_entry("session.optimized_model_external_initializers_file_name", data_file(dst.name))
        opts.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    ort.InferenceSession(str(src), opts, providers=["CPUExecutionProvider"], disabled_optimizers=list(disabled))


def _remove(path: Path) -> None:
    """Writers of external weights append to an existing file: start from none."""
    path.unlink(missing_ok=True)


def build_graphs(
    model: Transformer,
    out: Path,
    quantize: str | None = None,
    progress=print,
    calibration: list[list[int]] | None = None,
    external_above: int = EXTERNAL_DATA_ABOVE,
) -> dict:
    """Export, check, optimize (and quantize) both graphs into `out`; returns the IO names.
    Quantizing needs `calibration`: source token ids whose translation gives the activations'
    ranges. Models whose weights pass `external_above` bytes get graphs with external weights
    (`data_file`)."""
    external = weights_bytes(model) > external_above
    with tempfile.TemporaryDirectory(prefix="traductor-export-") as tmp:
        tmp = Path(tmp)
        progress("[3/6] export ONNX graphs")
        names = export_graphs(model, tmp)
        if not quantize:
            progress("[4/6] optimize")
            for g in GRAPHS:
                optimize(_exported(tmp, g), out / g, external=external)
            return names
        if not calibration:
            raise ExportError(f"--quantize {quantize} needs calibration sources")
        progress(f"[4/6] optimize, calibrate on {len(calibration)} sources, quantize {quantize}")
        optimized = tuple(tmp / f"opt-{g}" for g in GRAPHS)
        for g, path in zip(GRAPHS, optimized, strict=True):
            optimize(_exported(tmp, g), path, UNFUSED_FOR_QUANTIZATION, external=external)
        ranges = calibrate.activation_ranges(optimized, names, model.cfg, calibration)
        for g, path in zip(GRAPHS, optimized, strict=True):
            data = data_file(g) if external else None
            if data:
                _remove(out / data)
            quantize_graph(quantize, path, out / g, ranges, model.cfg.vocab_size, data)
    return names


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
        Source(tokenizer, {TOKENIZER_FILE: source_dir / TOKENIZER_FILE}, _model_name(source_dir)),
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
    files it reads (bundle name -> where they are now), the weights' name, and an imported model's
    tokenizer section and decoding rules."""

    tokenizer: object
    files: dict[str, Path]
    name: str
    tokenizer_config: TokenizerConfig | None = None
    generation: GenerationConfig | None = None


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
