"""Numbered input lines, for the commands that translate stdin one line at a time
(``traductor-client translate`` and the server distribution's ``traductor translate``).

Each line is read as bytes and decoded on its own, so a line that is not valid UTF-8 is one
bad line (:attr:`Line.problem` says where), not the end of the input. Such a line keeps its
bytes as surrogate escapes (``errors="surrogateescape"``), so :func:`write_line` writes it back
exactly as it came: both commands print a line they could not translate as its source, which
keeps output line N the translation of input line N.

A stream without bytes (an ``io.StringIO`` in a test) is read as the text it already is.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO, Iterator, Optional


@dataclass(frozen=True)
class Line:
    """One input line: ``number`` counts from 1; ``text`` has no line feed; ``problem`` is why
    it cannot be translated ("" when it can); ``kind`` names what was numbered (a stdin "line",
    or a command-line "argument")."""

    number: int
    text: str
    problem: str = ""
    kind: str = "line"

    @property
    def where(self) -> str:
        """How a message names it: "line 3", "argument 2"."""
        return f"{self.kind} {self.number}"


def decoded(raw: bytes) -> "tuple[str, str]":
    """``raw`` as text and the problem with it (text, "") for valid UTF-8; else its bytes as
    surrogate escapes and which byte is wrong."""
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError as error:
        bad = raw[error.start]
        text = raw.decode("utf-8", "surrogateescape")
        return text, f"not valid UTF-8 (byte 0x{bad:02X} at byte {error.start} of the line, counted from 0)"


def argument_lines(texts: "list[str]") -> "list[Line]":
    """Texts given as command-line arguments; one that was not UTF-8 holds surrogate escapes
    (as Python decodes ``sys.argv``) and gets its problem."""
    found = []
    for number, text in enumerate(texts, 1):
        raw = text.encode("utf-8", "surrogateescape")
        found.append(Line(number, *decoded(raw), kind="argument"))
    return found


def read_lines(stream: IO) -> Iterator[Line]:
    """The lines of ``stream`` one at a time, as they arrive (a pipe's output follows its input)."""
    raw = getattr(stream, "buffer", None)
    for number, line in enumerate(raw if raw is not None else stream, 1):
        if isinstance(line, bytes):
            text, problem = decoded(line[:-1] if line.endswith(b"\n") else line)
            yield Line(number, text, problem)
        else:
            yield Line(number, line[:-1] if line.endswith("\n") else line)


def write_line(text: str, stream: Optional[IO] = None, flush: bool = False) -> None:
    """Print ``text`` and a line feed; a line read with bad bytes goes out with those bytes."""
    stream = stream if stream is not None else sys.stdout
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:  # surrogate escapes: the source's own bytes, written as bytes
        stream.flush()
        stream.buffer.write(text.encode("utf-8", "surrogateescape") + b"\n")
    if flush:
        stream.flush()
