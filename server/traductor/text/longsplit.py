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


LEVELS = (_clause_cuts, _word_cuts)


def _inside(cut: int, protected: Sequence[Span]) -> bool:
    return any(start < cut < end for start, end in protected)


def _strip(text: str, lo: int, hi: int) -> Span | None:
    chunk = text[lo:hi]
    left, right = len(chunk) - len(chunk.lstrip()), len(chunk.rstrip())
    return (lo + left, lo + right) if right > left else None


def _longest_prefix(text: str, lo: int, hi: int, too_long: TooLong, protected: Sequence[Span]) -> int:
    """The end of the longest piece text[lo:end] that is not too long, moved back to the start of
    a protected span it would cut; at least one character (or protected span). Lengths 1, 2, 4, ...
    are tried until one is too long, then the last step is halved: the strings measured stay
    about as long as the piece, never the whole rest of the text."""
    good, step = lo, 1
    while good < hi and not too_long(text[lo : min(hi, lo + step)]):
        good, step = min(hi, lo + step), step * 2
    bad = min(hi, lo + step) + (good == hi)
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if not too_long(text[lo:mid]) else (good, mid)
    end = max(good, lo + 1)
    for start, stop in protected:
        if start < end < stop:
            end = start if start > lo else stop
    return end


def _char_chunks(text: str, lo: int, hi: int, too_long: TooLong, protected: Sequence[Span]) -> list[Span]:
    """A word too long on its own, cut between characters."""
    spans = []
    while lo < hi:
        end = _longest_prefix(text, lo, hi, too_long, protected)
        spans.append((lo, end))
        lo = end
    return spans


def split_long(text: str, too_long: TooLong, protected: Sequence[Span] = ()) -> list[Span]:
    """Spans of `text` none of which is too long (unless a protected span alone is).

    After the cuts, neighbours that fit together are joined again: the rest of a clause that
    had to be cut between words shares a piece with the next clause when both fit.
    """
    spans: list[Span] = []
    for start, end in _split(text, too_long, protected, 0, len(text), 0):
        if spans and not too_long(text[spans[-1][0] : end]):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _split(text: str, too_long: TooLong, protected: Sequence[Span], lo: int, hi: int, level: int) -> list[Span]:
    if not too_long(text[lo:hi]):
        return [(lo, hi)]
    if level >= len(LEVELS):
        return _char_chunks(text, lo, hi, too_long, protected)
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
        spans.extend(_split(text, too_long, protected, start, end, level + 1))
    return spans
