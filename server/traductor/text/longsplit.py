"""Cutting a sentence that is too long for the model into pieces that are not.

The model has a per-segment length limit (tokens); a text is never refused because one sentence
is over it. The sentence is cut at clause punctuation (",", ";", ":" followed by a space) first,
packing as many clauses into a piece as fit; a clause still too long is cut between words; a
word still too long (a long URL, a run of characters) is cut between characters. A cut never
falls inside a protected span (a placeholder, an HTML tag or entity of the segment).

What is "too long" is the caller's: a `too_long(str) -> bool` callable, so this module knows
nothing about tokenizers. Spans are (start, end) offsets into the sentence, without the
whitespace at a cut, in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

TooLong = Callable[[str], bool]
Span = tuple[int, int]

_CLAUSE = re.compile(r"[,;:\u3001\uff0c\uff1b](?=\s)")
_SPACE = re.compile(r"\s+")


def _clause_cuts(text: str, lo: int, hi: int) -> list[int]:
    return [m.end() for m in _CLAUSE.finditer(text, lo, hi) if lo < m.end() < hi]


def _word_cuts(text: str, lo: int, hi: int) -> list[int]:
    return [m.start() for m in _SPACE.finditer(text, lo, hi) if lo < m.start() < hi]


def _char_cuts(text: str, lo: int, hi: int) -> list[int]:
    return list(range(lo + 1, hi))


LEVELS = (_clause_cuts, _word_cuts, _char_cuts)


def _inside(cut: int, protected: Sequence[Span]) -> bool:
    return any(start < cut < end for start, end in protected)


def _strip(text: str, lo: int, hi: int) -> Span | None:
    chunk = text[lo:hi]
    left, right = len(chunk) - len(chunk.lstrip()), len(chunk.rstrip())
    return (lo + left, lo + right) if right > left else None


def split_long(
    text: str, too_long: TooLong, protected: Sequence[Span] = (), lo: int = 0, hi: int | None = None, level: int = 0
) -> list[Span]:
    """Spans of `text[lo:hi]` none of which is too long (unless a protected span alone is)."""
    hi = len(text) if hi is None else hi
    if level >= len(LEVELS) or not too_long(text[lo:hi]):
        return [(lo, hi)]
    cuts = [c for c in LEVELS[level](text, lo, hi) if not _inside(c, protected)]
    units = [s for a, b in zip([lo, *cuts], [*cuts, hi]) if (s := _strip(text, a, b))]
    chunks: list[Span] = []
    for start, end in units:
        if chunks and not too_long(text[chunks[-1][0] : end]):
            chunks[-1] = (chunks[-1][0], end)
        else:
            chunks.append((start, end))
    spans: list[Span] = []
    for start, end in chunks:
        spans.extend(split_long(text, too_long, protected, start, end, level + 1))
    return spans
