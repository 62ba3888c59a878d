"""Shared fixtures: a tiny model trained in seconds on the synthetic task of tiny_task.py, and
its ONNX bundle."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiny_task import synthetic_pairs, write_corpus  # noqa: F401  (re-exported for fixtures)


@pytest.fixture(scope="session", autouse=True)
def _user_data_folder(tmp_path_factory):
    """Servers the tests start keep glossaries and DeepL documents in a temporary user data folder
    (their default without --glossary-dir is $XDG_DATA_HOME/traductor), never the user's own."""
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A tiny model trained on the synthetic task (about 15 s on one core)."""
    from traductor.training.train import TrainConfig, train

    root = tmp_path_factory.mktemp("tiny")
    corpus = write_corpus(root / "corpus")
    cfg = TrainConfig.from_flat(
        dict(
            vocab_size=300,
            d_model=40,  # d_model 32 for 900 steps sat at the 60% bar; this learns it to ~97%
            n_heads=4,
            d_ff=80,
            n_encoder_layers=2,
            n_decoder_layers=2,
            dropout=0.0,
            max_len=64,
            batch_tokens=800,
            warmup=60,
            lr_scale=0.5,
            max_steps=1200,
            max_minutes=5,
            eval_every=1200,
            seed=3,
            precision="fp32",
            threads=1,
        )
    )
    train(corpus, root / "model", cfg, quiet=True)
    return root / "model"


@pytest.fixture(scope="session")
def tiny_bundle(tiny_checkpoint, tmp_path_factory) -> Path:
    from traductor_export.convert import export

    out = tmp_path_factory.mktemp("bundle") / "tiny"
    export(tiny_checkpoint, out, progress=lambda *_: None)
    return out


@pytest.fixture(scope="session")
def tiny_bundles(tiny_checkpoint, tiny_bundle, tmp_path_factory) -> dict[str, Path]:
    """The tiny model at every precision the exporter offers: {"fp32": tiny_bundle, "int8": ...}."""
    from traductor_export.convert import export
    from traductor_export.quantize import QUANTIZATIONS

    bundles = {"fp32": tiny_bundle}
    for kind in QUANTIZATIONS:
        bundles[kind] = tmp_path_factory.mktemp("bundle") / f"tiny-{kind}"
        export(tiny_checkpoint, bundles[kind], quantize=kind, progress=lambda *_: None)
    return bundles
