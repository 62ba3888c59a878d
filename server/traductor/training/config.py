"""The trainer's settings (`traductor train` flags), importable without torch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TrainConfig:
    vocab_size: int = 6000
    d_model: int = 256
    n_heads: int = 4
    d_ff: int = 1024
    n_encoder_layers: int = 3
    n_decoder_layers: int = 3
    dropout: float = 0.1
    max_len: int = 256
    batch_tokens: int = 4000
    warmup: int = 800
    lr_scale: float = 1.0
    label_smoothing: float = 0.1
    max_steps: int = 100_000
    max_minutes: float = 48.0
    eval_every: int = 300
    seed: int = 1
    threads: int = 0  # 0: torch's default (all cores)
    precision: str = "bf16"  # "bf16": autocast matrix products to bfloat16 (weights stay fp32); "fp32"
