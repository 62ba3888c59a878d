"""Every error traductor raises on purpose, in one torch-free module.

All derive from `TraductorError`, whose message is the whole story: the CLI prints it on one
line and exits with status 2; the service's `interceptors.status_for` maps each subclass to a
gRPC status (anything it does not name is INTERNAL, with details kept in the log). This module
knows nothing about gRPC, torch or the command line.
"""

from __future__ import annotations


class TraductorError(Exception):
    """Base class: an error whose message tells the user what failed and what to do."""


# --- the caller's request ------------------------------------------------------------------


class InvalidInput(TraductorError, ValueError):
    """A request or an option the caller must change: empty text, too long, bad option value."""


class ItemRefused(InvalidInput):
    """One of several texts sent together (gRPC TranslateBatch, LibreTranslate's list `q`, DeepL's
    several `text`) refused for what it holds: `.index` is its place among them (from 0), `.field`
    the request field that holds them, `.reason` the text's own refusal. The message names the
    item first, as in "texts[2]: text is empty"."""

    def __init__(self, index: int, reason: InvalidInput, field: str = "texts"):
        self.index, self.reason, self.field = index, reason, field
        super().__init__(f"{field}[{index}]: {reason}")


class NotFound(TraductorError):
    """What the caller asks for does not exist (any more): a translated file already downloaded
    or expired."""


class ModelNotFound(NotFound):
    """The call names a model or a language pair this server does not serve; the message names
    what it serves (gRPC NOT_FOUND)."""


class QueueFull(TraductorError):
    """The scheduler's waiting queue is at its limit; the caller may retry later."""


class Overloaded(QueueFull):
    """The server takes no more calls right now, found before the call reached the queue;
    `stage` names the check that refused it (service/overload.py)."""

    def __init__(self, message: str, stage: str):
        super().__init__(message)
        self.stage = stage


class Draining(TraductorError):
    """The server is shutting down and takes no new work."""


class DeadlinePassed(TraductorError):
    """The caller's deadline passed before the translation was done."""


class Unauthenticated(TraductorError):
    """The request carries no valid key: none, a wrong one, or a revoked one (the message never
    repeats what was sent)."""


class PermissionDenied(TraductorError):
    """The caller's key may not use this model or language pair (gRPC PERMISSION_DENIED, HTTP 403)."""


class RateLimited(TraductorError):
    """The caller's key has used its requests of the last minute; `retry_after`: seconds until
    one is free again (gRPC RESOURCE_EXHAUSTED with a pushback trailer, HTTP 429 with Retry-After)."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message)
        self.retry_after = retry_after


class QuotaExceeded(RateLimited):
    """The caller's key has used its characters of the day or the month; `retry_after`: seconds
    until that period ends (DeepL API 456, LibreTranslate API 429, gRPC RESOURCE_EXHAUSTED)."""


class KeyStoreDown(TraductorError):
    """The key store (Redis, or the SQLite file) does not answer: calls that need a key are
    refused until it does (gRPC UNAVAILABLE, HTTP 503), never let through."""


class UnknownKey(NotFound):
    """No key of that name in the key store (the `keys` command)."""


class EngineFailure(TraductorError):
    """The engine failed on a request (the cause is chained and logged, never sent to the caller)."""


class EngineDown(EngineFailure):
    """A model's engine process exited: the calls it held are lost (UNAVAILABLE, retryable), and
    the server starts it again (service/registry.py)."""


class TranslationError(EngineFailure):
    """An offline translation (the `translate`/`evaluate` commands) failed in the engine."""


# --- files and installs ---------------------------------------------------------------------


class BundleError(TraductorError):
    """The directory is not a usable ONNX bundle; the message names the file or field."""


class ModelDirError(TraductorError):
    """The directory is not a usable PyTorch checkpoint; the message says why."""


class ExportError(TraductorError):
    """A checkpoint could not be exported (existing output, non-finite weights, parity failure)."""


class MissingDependency(TraductorError):
    """A command needs packages this install lacks (torch for training, export, the PyTorch engine)."""


class CommandError(TraductorError):
    """A command-line request that cannot be carried out as given (bad flag combination, missing file)."""


def require_torch(what: str, modules: tuple[str, ...] = ("torch", "safetensors")) -> None:
    """Raise MissingDependency naming what to install if torch (or another training extra) is absent."""
    import importlib

    try:
        for name in modules:
            importlib.import_module(name)
    except ImportError as e:
        raise MissingDependency(
            f"{what} needs PyTorch and the training extras ({e}); install them with "
            "`pip install torch==2.13.0 'traductor[train]'` (or `bash scripts/setup.sh`)"
        ) from e


class CorpusError(TraductorError):
    """A problem with the corpus the user can fix (the message says how)."""
