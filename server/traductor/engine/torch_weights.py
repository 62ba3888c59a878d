"""What `--device` needs before a PyTorch runner exists: torch and the device, then the weights of a
bundle's model, checked against the bundle.

    check_device(device, dtype)   torch importable, the device one PyTorch has ("cpu", "cuda",
                                  "cuda:1"), the dtype one the runner knows; else one line
                                  (MissingDependency, CommandError), never a traceback
    find_weights(bundle, given)   where a bundle's weights are: `given` (--weights), else the
                                  bundle's `weights/` folder, else, for a packaged model, its
                                  packaged checkpoint (checkpoints/<name>/)
    load_transformer(bundle, ...) the Transformer of those weights: a traductor checkpoint
                                  (model/checkpoint.py), or the Hugging Face folder a model was
                                  imported from (the importer's own mapping, reached through the
                                  exporter's entry point); its ModelConfig must be the bundle's
    torch_runner(bundle, ...)     all of it: a torch_runner.TorchRunner with the bundle's rules

The bundle stays the one description of the model (shape, vocabulary, tokenizer, rules): weights
that do not fit it are refused with the fields that differ. Imported here lazily by the engine
(process.py) and the commands, only when --device is given: the serving path without it never
imports torch.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from ..errors import BundleError, CommandError, MissingDependency
from ..packaged import CHECKPOINTS_DIR, MODELS_DIR
from .bundle import Bundle

DEVICES = ("cpu", "cuda")
WEIGHTS_DIR = "weights"  # a bundle's folder for the weights --device runs
INSTALL_GPU = "install PyTorch with CUDA and the GPU extra: `pip install torch==2.13.0 'traductor[gpu]'`"


def check_device(device: str, dtype: str = "") -> None:
    """One line (exit status 2 from a command) when `device` cannot run here; nothing otherwise."""
    kind, _, index = device.partition(":")
    if kind not in DEVICES or (index and not index.isdigit()) or (index and kind != "cuda"):
        raise CommandError(f"--device {device!r}: expected cpu, cuda or cuda:N")
    try:
        import safetensors  # noqa: F401  (the checkpoints' weights)
        import torch
    except ImportError as e:
        missing = f"--device {device} runs the model in PyTorch, which is not installed ({e})"
        raise MissingDependency(f"{missing}: {INSTALL_GPU}") from e
    from .torch_runner import DTYPES

    if dtype and dtype not in DTYPES:
        raise CommandError(f"--dtype {dtype!r}: expected one of {', '.join(DTYPES)}")
    if kind == "cuda":
        if not torch.cuda.is_available():
            build = f"torch {torch.__version__}" + ("" if torch.version.cuda else ", a build without CUDA")
            raise MissingDependency(f"--device {device}: PyTorch sees no CUDA GPU here ({build}); {INSTALL_GPU}")
        if index and int(index) >= torch.cuda.device_count():
            raise CommandError(f"--device {device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    elif dtype and dtype != "fp32":
        raise CommandError(f"--dtype {dtype} is for CUDA; the CPU runs fp32")


def find_weights(bundle: Bundle, given: str | Path = "") -> Path:
    """The folder of the bundle's weights (see the module docstring); a BundleError says where to put them."""
    if given:
        return Path(given)
    own = bundle.path / WEIGHTS_DIR
    if own.is_dir():
        return own
    packaged = CHECKPOINTS_DIR / bundle.path.name
    if bundle.path.resolve().parent == MODELS_DIR.resolve() and packaged.is_dir():
        return packaged
    raise BundleError(
        f"{bundle.path}: --device runs the model's weights, and this bundle has none: put the checkpoint it "
        f"was exported from (or the Hugging Face folder it was imported from) in {own}, or pass --weights"
    )


def load_transformer(bundle: Bundle, weights: Path):
    """The Transformer of `weights` (fp32, eval), checked against the bundle's model config."""
    from ..model import checkpoint

    config_file = weights / "config.json"
    try:
        config = json.loads(config_file.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise BundleError(f"{weights}: not a checkpoint nor a Hugging Face model folder ({e})") from e
    if isinstance(config, dict) and "model_type" in config:  # the folder `traductor import` read
        from ..plugins import exporter

        model = exporter("hf_transformer")(weights)
    else:
        model, _, _ = checkpoint.load(weights)
    differ = [f.name for f in fields(bundle.model) if getattr(bundle.model, f.name) != getattr(model.cfg, f.name)]
    if differ:
        shown = ", ".join(f"{n} {getattr(model.cfg, n)!r} (bundle: {getattr(bundle.model, n)!r})" for n in differ)
        raise BundleError(f"{weights}: these weights are not the model of {bundle.path}: {shown}")
    return model


def torch_runner(bundle: Bundle, device: str, dtype: str = "", weights: str | Path = "", **options):
    """A TorchRunner of the bundle's model on `device` (checked first); options: cuda_graphs,
    fixed_shapes, threads."""
    check_device(device, dtype)
    from .torch_runner import TorchRunner

    model = load_transformer(bundle, find_weights(bundle, weights))
    return TorchRunner(model, bundle.config.generation, device, dtype, **options)
