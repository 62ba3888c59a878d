"""Sentences of one line of text, as character spans, with sentencex doing the splitting.

sentencex (Wikimedia's rule-based splitter, compiled from Rust) was chosen by measurement over
pySBD and BlingFire on real messages of the Debian catalogs: as accurate as pySBD on messages
of two or more sentences and tens of times faster (docs/segmentation.md,
docs/experiments/compare_splitters.py). This module only turns its output into spans of the caller's
string (URLs, e-mail addresses and placeholders are hidden from it first): the library may return pieces
with or without the whitespace between them, so each piece is found again in the line and the
line is cut at the start of each piece. The spans
cover every non-space character of the line, never include the whitespace around a sentence,
and never overlap; a piece the library altered (not found in the line) is joined to the
previous sentence instead of being trusted.
"""

from __future__ import annotations

import re

import sentencex

from ..model import placeholders

# URLs and e-mail addresses, without the punctuation that may end the sentence after them.
URL = re.compile(
    r"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.|\bmailto:|\b[\w.+-]+@(?=[\w-]+\.))\S+?(?=[.,;:!?)\]'\"]*(?:\s|$))",
    re.IGNORECASE,
)
# A line with none of these has one sentence at most (saves a library call for most lines).
_MAYBE_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]")
# ... and so has a line whose sentence ends all stand at its end, followed by nothing but more of
# them, closing quotes or brackets and spaces ("Could not open the file." or "Really?!").
_ENDS_ONLY = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\"'\u2019\u201d\u00bb)\]\s]*")


def _hidden(line: str) -> str:
    def word(m: re.Match) -> str:
        return "x" * len(m.group(0))

    return placeholders.replace(word, URL.sub(word, line))


def library_split(line: str, language: str = "") -> list[str]:
    """The library's sentences of `line` (its own strings), by the rules of `language` (the
    model's source language; sentencex falls back to its base rules for a code it does not know,
    and for "")."""
    return list(sentencex.segment(language, line))


def sentence_spans(line: str, language: str = "") -> list[tuple[int, int]]:
    """(start, end) of each sentence of `line` (one line: no newline inside), in order, split by
    the rules of `language` (see `library_split`)."""
    if not line.strip():
        return []
    starts = [0]
    first_end = _MAYBE_END.search(line)
    if first_end and not _ENDS_ONLY.fullmatch(line, first_end.start()):
        # The library never sees the punctuation of a URL or a placeholder ("%(v1)d.%(v2)d"):
        # each is read as a word of as many "x".
        line = _hidden(line)
        cursor = 0
        for piece in library_split(line, language):
            piece = piece.strip()
            if not piece:
                continue
            at = line.find(piece, cursor)
            if at < 0:
                continue  # altered by the library: stays in the sentence before
            if at > starts[-1]:
                starts.append(at)
            cursor = at + len(piece)
    spans = []
    for start, end in zip(starts, [*starts[1:], len(line)]):
        chunk = line[start:end]
        left = len(chunk) - len(chunk.lstrip())
        right = len(chunk.rstrip())
        if right > left:
            spans.append((start + left, start + right))
    return spans
