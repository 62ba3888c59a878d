"""Writing a translated file: atomically, with the original file's permissions, into a folder
created when missing (``-o new/dir/out.po``).

``check_writable(path)`` runs before any translating, so a path that cannot be written (its
nearest existing folder is a file, or not writable) is refused before the work, not after it.
"""

from __future__ import annotations

import os
import tempfile

from traductor_client.files.errors import FileError


def check_writable(path: str) -> None:
    """Refuse an output path whose folder cannot exist or cannot be written (nothing is created)."""
    if os.path.isdir(path):
        raise FileError(f"{path}: is a folder, not a file to write")
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        raise FileError(f"{path}: cannot write: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK):
        raise FileError(f"{path}: cannot write: {folder} is not writable")


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` atomically (a temporary file in the same folder, then a rename); its
    folder is created if missing."""
    folder = os.path.dirname(os.path.abspath(path))
    temporary = ""
    try:
        os.makedirs(folder, exist_ok=True)
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
