"""Errors about model directories, importable without torch (the CLI catches them everywhere)."""


class ModelDirError(Exception):
    """The directory is not a usable traductor checkpoint; the message says why."""
