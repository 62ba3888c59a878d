"""The bundle's two ONNX files from a model: exported (torch.onnx, opset OPSET), checked by
onnx.checker, optimized offline by ONNX Runtime, and optionally quantized to int8 with the
activations' ranges calibrated on sources (`build_graphs`; convert.py's export, optimize and
quantize steps). A model whose weights pass EXTERNAL_DATA_ABOVE bytes gets each graph's weights
in a file beside it (`data_file`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import onnx
import onnxruntime as ort
import torch

from traductor.engine.bundle_config import GRAPHS
from traductor.errors import ExportError
from traductor.model.transformer import Transformer

from . import calibrate
from .graphs import DecoderStepGraph, EncoderGraph, io_names
from .quantize import UNFUSED_FOR_QUANTIZATION
from .quantize import quantize as quantize_graph

OPSET = 17
# Weights (bytes) above which each graph keeps its weights in a file of its own: protobuf's
# limit is 2 GB per message, and the graphs hold more than the model's weights (the decoder's
# fused QKV copies).
EXTERNAL_DATA_ABOVE = 1 << 30


def data_file(graph: str) -> str:
    """The file beside a graph that holds its weights, when they are external: decoder.onnx.data."""
    return f"{graph}.data"


def weights_bytes(model: Transformer) -> int:
    return sum(t.numel() * t.element_size() for t in model.state_dict().values())


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
