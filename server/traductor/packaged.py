"""Where the models that ship inside the package live (paths only; nothing here loads a model).

    models/<name>/        the model repository: one exported ONNX bundle per model, named after
                          its directory (`traductor serve` serves them all without
                          --model-repository; the serving path needs nothing else)
    checkpoints/<name>/   the PyTorch checkpoint each bundle was exported from, for training
                          further and re-exporting (kept out of the serving image)

A model's languages are written in its bundle's config.json, never here: a model's name is only
the name of its directory.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
MODELS_DIR = PACKAGE_DIR / "models"
CHECKPOINTS_DIR = PACKAGE_DIR / "checkpoints"
# the model that answers calls that name none, when the packaged repository is served
DEFAULT_MODEL = "en-es"
