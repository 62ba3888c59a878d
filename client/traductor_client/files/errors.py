"""The one error of file translation: the file cannot be read, is over a limit, or cannot be
written. Its message names the file's problem in words a translator can act on ("line 3: not a
PO file", "entity declarations are not accepted", "12000 units, more than the limit of 10000
(--max-file-units)"). The CLI prints it and exits 2; the HTTP API answers it with a 400."""

from __future__ import annotations


class FileError(Exception):
    """The file cannot be translated as a whole (nothing is written)."""
