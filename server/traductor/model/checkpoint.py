"""A checkpoint is a directory: the config that rebuilds the model, its weights, its tokenizer.

config.json         {"format": "traductor-checkpoint", "model": ModelConfig, "languages": ..., ...}
model.safetensors   the weights (safetensors: tensors only, never pickled code)
tokenizer.model     the SentencePiece model (with the placeholder tokens)
"""

from __future__ import annotations

import json
from pathlib import Path

from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from ..errors import ModelDirError
from ..languages import LEGACY_PAIR
from ..packaged import CHECKPOINTS_DIR, DEFAULT_MODEL
from . import controls
from .config import ModelConfig
from .tokenizer import FILENAME as TOKENIZER_FILE
from .tokenizer import Tokenizer
from .transformer import Transformer

FORMAT = "traductor-checkpoint"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
DEFAULT_MODEL_DIR = CHECKPOINTS_DIR / DEFAULT_MODEL


def save(
    model: Transformer,
    out_dir: Path,
    tokenizer_file: Path | None = None,
    extra: dict | None = None,
    languages: dict | None = None,
) -> None:
    """Write the checkpoint; `languages` ({"source": .., "target": ..}) defaults to LEGACY_PAIR."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # The output projection shares W_E: safetensors stores each tensor once.
    save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, out_dir / WEIGHTS_FILE)
    config = {"format": FORMAT, "model": model.cfg.to_dict(), "languages": dict(languages or LEGACY_PAIR)}
    config.update(extra or {})
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    if tokenizer_file is not None and Path(tokenizer_file).resolve() != (out_dir / TOKENIZER_FILE).resolve():
        (out_dir / TOKENIZER_FILE).write_bytes(Path(tokenizer_file).read_bytes())


def read_config(model_dir: Path) -> dict:
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise ModelDirError(f"{model_dir} is not a directory")
    path = model_dir / CONFIG_FILE
    if not path.is_file():
        raise ModelDirError(f"{model_dir} is not a traductor checkpoint: it has no {CONFIG_FILE}")
    try:
        config = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ModelDirError(f"{path} is not valid JSON: {e}") from e
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise ModelDirError(f"{path} does not describe a traductor checkpoint (format != {FORMAT!r})")
    return config


def languages(config: dict) -> dict:
    """The {"source", "target"} pair a checkpoint's config.json records (LEGACY_PAIR if none)."""
    return dict(config.get("languages") or LEGACY_PAIR)


def registers(config: dict) -> controls.Registers:
    """What a checkpoint's config.json says of the model's registers (controls.Registers: the
    measured ones, the default, the rewritten ones); ValueError when a field is wrong."""
    return controls.Registers.read(config)


def load(model_dir: Path | None = None) -> tuple[Transformer, Tokenizer, dict]:
    """Rebuild the model from its config, load the weights, open the tokenizer (eval mode)."""
    model_dir = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
    config = read_config(model_dir)
    try:
        cfg = ModelConfig.from_dict(config["model"])
    except (KeyError, TypeError, ValueError) as e:
        raise ModelDirError(f"{model_dir / CONFIG_FILE}: bad model config ({e})") from e
    weights = model_dir / WEIGHTS_FILE
    if not weights.is_file():
        raise ModelDirError(f"{model_dir} has no {WEIGHTS_FILE}")
    model = Transformer(cfg)
    try:
        state = load_file(weights)
        # weights may be stored in fp16 (the shipped model is, to halve its size): run in fp32
        state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
        model.load_state_dict(state)
    except (SafetensorError, RuntimeError, OSError) as e:
        raise ModelDirError(f"{weights}: corrupt or mismatched weights ({str(e).splitlines()[0]})") from e
    try:
        settings = registers(config)
    except ValueError as e:
        raise ModelDirError(f"{model_dir / CONFIG_FILE}: {e}") from e
    try:
        tokenizer = Tokenizer(model_dir / TOKENIZER_FILE, languages(config)["target"], settings)
    except (OSError, RuntimeError, ValueError) as e:
        raise ModelDirError(f"{model_dir}: cannot open the tokenizer ({e})") from e
    if tokenizer.vocab_size != cfg.vocab_size:
        raise ModelDirError(f"{model_dir}: tokenizer has {tokenizer.vocab_size} pieces, model expects {cfg.vocab_size}")
    model.eval()
    return model, tokenizer, config
