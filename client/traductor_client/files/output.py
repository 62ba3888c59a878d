"""Writing a translated file: atomically, with the original file's permissions."""

from __future__ import annotations

import os
import tempfile

from traductor_client.files.errors import FileError


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` atomically (a temporary file in the same folder, then a rename)."""
    folder = os.path.dirname(os.path.abspath(path))
    temporary = ""
    try:
        fd, temporary = tempfile.mkstemp(prefix=".traductor-", suffix=os.path.splitext(path)[1], dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if os.path.exists(path):
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
    except OSError as error:
        if temporary and os.path.exists(temporary):
            os.remove(temporary)
        raise FileError(f"{path}: cannot write: {error.strerror or error}") from None
