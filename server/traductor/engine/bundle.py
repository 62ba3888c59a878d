"""A bundle is what `traductor export` writes and what the engine runs (no torch needed):

    encoder.onnx      source -> encoder output + every decoder layer's cross-attention K/V
    decoder.onnx      one decode step over a padded KV cache
    tokenizer.model   SentencePiece, with the placeholder tokens
    config.json       dimensions, special ids, limits, IO names, opset, sha256 of the graphs,
                      and the parity figures measured at export time
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

FORMAT = "traductor-bundle"
GRAPHS = ("encoder.onnx", "decoder.onnx")


class BundleError(Exception):
    """The directory is not a usable bundle; the message says why."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Bundle:
    path: Path
    config: dict

    @property
    def model(self) -> dict:
        return self.config["model"]

    @property
    def n_layers(self) -> int:
        return self.model["n_decoder_layers"]

    @property
    def n_heads(self) -> int:
        return self.model["n_heads"]

    @property
    def d_k(self) -> int:
        return self.model["d_model"] // self.model["n_heads"]

    @property
    def vocab_size(self) -> int:
        return self.model["vocab_size"]

    @property
    def max_len(self) -> int:
        return self.model["max_len"]

    @property
    def checksum(self) -> str:
        """One checksum for the whole bundle: sha256 over the graphs' own checksums."""
        joined = "".join(self.config["sha256"][g] for g in GRAPHS)
        return hashlib.sha256(joined.encode()).hexdigest()

    def file(self, name: str) -> Path:
        return self.path / name


def load_bundle(path: Path | str, verify: bool = True) -> Bundle:
    path = Path(path)
    config_file = path / "config.json"
    if not path.is_dir():
        raise BundleError(f"{path} is not a directory")
    if not config_file.is_file():
        raise BundleError(f"{path} is not a traductor bundle: it has no config.json (make one with `traductor export`)")
    try:
        config = json.loads(config_file.read_text())
    except json.JSONDecodeError as e:
        raise BundleError(f"{config_file} is not valid JSON: {e}") from e
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise BundleError(f"{config_file} does not describe a traductor bundle (format != {FORMAT!r})")
    for name in (*GRAPHS, "tokenizer.model"):
        if not (path / name).is_file():
            raise BundleError(f"{path} is missing {name}")
    if verify:
        for name in GRAPHS:
            actual = sha256(path / name)
            if actual != config["sha256"].get(name):
                raise BundleError(f"{path / name}: checksum mismatch (config says {config['sha256'].get(name)}, "
                                  f"file is {actual}); the bundle is corrupt or was modified: export it again")
    return Bundle(path, config)


def cache_home() -> Path:
    return Path(os.environ.get("TRADUCTOR_HOME") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "traductor")


def default_bundle() -> Path:
    """The bundled default model, exported to ONNX on first use (needs torch that one time).

    Set TRADUCTOR_BUNDLE to use a bundle exported elsewhere (the serving image does).
    """
    if os.environ.get("TRADUCTOR_BUNDLE"):
        return Path(os.environ["TRADUCTOR_BUNDLE"])
    from ..model.checkpoint import DEFAULT_MODEL_DIR, WEIGHTS_FILE

    weights = DEFAULT_MODEL_DIR / WEIGHTS_FILE
    if not weights.is_file():
        raise BundleError(f"the default model is missing ({weights})")
    out = cache_home() / f"default-{sha256(weights)[:12]}"
    if not (out / "config.json").is_file():
        try:
            from traductor_export.convert import export
        except ImportError as e:  # torch or onnx missing
            raise BundleError(f"the default model has not been exported yet and cannot be here ({e}); "
                              "install the training extras or pass --model BUNDLE") from e
        export(DEFAULT_MODEL_DIR, out, force=True, progress=lambda msg: print(f"exporting the default model: {msg}",
                                                                          file=sys.stderr, flush=True))
    return out
