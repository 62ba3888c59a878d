"""Kept for older imports: ModelDirError lives in traductor.errors with every other error."""

from ..errors import ModelDirError  # noqa: F401
