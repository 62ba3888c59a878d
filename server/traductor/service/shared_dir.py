"""Files that several servers share in one directory (a volume every replica mounts): written
whole or not at all, and a lock held across threads and processes.

    write_atomically(path, data)   a temporary file in the directory, fsync, `os.replace`, fsync of
                                   the directory: a reader sees the old file or the new one, never
                                   part of one; a crash leaves at most a `.tmp-*` file
    locked(directory)              an exclusive flock of `<directory>/.lock` (each call its own
                                   descriptor, so threads of one process exclude each other too)

The glossary store (glossaries.py) and the DeepL document store (documents.py) use them. This
module knows nothing about what the files hold.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)  # the rename itself, durable
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@contextmanager
def locked(directory: Path):
    fd = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
