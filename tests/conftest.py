"""Shared fixtures: a tiny model trained in seconds on a synthetic task, and its ONNX bundle.

The synthetic task is a deterministic "translation" of digit words into letters with a
reversed order, so a tiny Transformer learns it to near-perfect accuracy in a few hundred steps:
    "uno dos tres"  ->  "D C B"   (cero=A, uno=B, ...; order reversed)
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

WORDS = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"]
LETTERS = "ABCDEFGHIJ"


def synthetic_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        k = rng.randint(1, 6)
        digits = [rng.randrange(10) for _ in range(k)]
        src = " ".join(WORDS[d] for d in digits)
        tgt = " ".join(LETTERS[d] for d in reversed(digits))
        if rng.random() < 0.2:  # placeholders ride along
            src, tgt = src + " %s", tgt + " %s"
        pairs.append((src, tgt))
    return pairs


def write_corpus(directory: Path, n_train: int = 3000) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, n, seed in (("train", n_train, 0), ("dev", 60, 1), ("test", 60, 2)):
        with open(directory / f"{name}.tsv", "w") as f:
            for s, t in synthetic_pairs(n, seed):
                f.write(f"{s}\t{t}\tsynthetic\n")
    return directory


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A tiny model trained on the synthetic task (about 15 s on one core)."""
    from traductor.training.train import TrainConfig, train

    root = tmp_path_factory.mktemp("tiny")
    corpus = write_corpus(root / "corpus")
    cfg = TrainConfig(vocab_size=300, d_model=32, n_heads=4, d_ff=64, n_encoder_layers=2, n_decoder_layers=2,
                      dropout=0.0, max_len=64, batch_tokens=800, warmup=60, lr_scale=0.4, max_steps=900,
                      max_minutes=5, eval_every=900, seed=3, precision="fp32", threads=1)
    train(corpus, root / "model", cfg, quiet=True)
    return root / "model"


@pytest.fixture(scope="session")
def tiny_bundle(tiny_checkpoint, tmp_path_factory) -> Path:
    from traductor_export.convert import export

    out = tmp_path_factory.mktemp("bundle") / "tiny"
    export(tiny_checkpoint, out, progress=lambda *_: None)
    return out
