"""The bundles `traductor bench` times, made by the exporter: random weights (seed 0) of a shape,
or the weights of a saved transformers model (the anchors' random Marian, benchmarks/make_marian.py),
exported to graphs and a config.json without a tokenizer (the bench feeds token ids).

Reached by the bench through the `traductor.exporter` entry point (`bench_bundle`), so that the
serving package never imports the exporter. Owns only the building; the work that is timed, its
sources and the report are traductor.bench's, which this module does not know beyond the sources
it calibrates int8 on.
"""

from __future__ import annotations

import json
from pathlib import Path

from traductor.bench.engine import anchor_sources, sources
from traductor.errors import CommandError
from traductor.languages import LEGACY_PAIR


def make_bundle(shape, quantize: str | None, out: Path, hf_dir: Path | None = None) -> Path:
    """Random weights (seed 0), or those of a saved transformers model (`hf_dir`: the anchors'
    Marian) -> bundle (graphs + config; no tokenizer: the bench feeds ids)."""
    import torch

    from traductor.model.config import ModelConfig
    from traductor.model.transformer import Transformer

    from .convert import bundle_config
    from .importers import transformer_from_pretrained
    from .onnx_files import build_graphs

    d, layers, heads, d_ff, vocab = shape
    torch.manual_seed(0)
    if hf_dir is not None:
        model = transformer_from_pretrained(hf_dir)
        if model.cfg.vocab_size != vocab or model.cfg.d_model != d or model.cfg.n_heads != heads:
            raise CommandError(f"{hf_dir} is not a model of the shape {shape}")
    else:
        model = Transformer(
            ModelConfig(
                vocab_size=vocab,
                d_model=d,
                n_heads=heads,
                d_ff=d_ff,
                n_encoder_layers=layers,
                n_decoder_layers=layers,
                dropout=0.0,
                max_len=128,
            )
        ).eval()
    out.mkdir(parents=True, exist_ok=True)
    # int8's activation ranges: calibrated on sources like the timed ones, but not those
    calibration = anchor_sources(model.cfg, 64) if hf_dir is not None else sources(vocab, 64, seed=1)
    names = build_graphs(model, out, quantize, progress=lambda *_: None, calibration=calibration)
    config = bundle_config(model, out, names, quantize, "random", dict(LEGACY_PAIR))
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    return out
