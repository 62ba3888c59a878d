"""One run of text (a line, or the text between two HTML block boundaries) cut into pieces.

A piece is a separator (whitespace, and in HTML the markup between sentences), a pass-through
segment (nothing to translate: only whitespace, punctuation, numbers, URLs, placeholders and
markup) or a segment to translate. Joining the pieces' texts gives the run back unchanged,
except that with `collapse` (HTML) the whitespace inside a segment becomes single spaces.

Markers are the spans of inline markup inside the run (HTML tags and entities; none for plain
text). The sentence splitter never sees them; each sentence keeps the markers that touch it
(`<b>Warning:</b>` stays one segment) and a cut never falls inside one.
"""

from __future__ import annotations

import enum
import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import placeholders
from .longsplit import Span, TooLong, split_long
from .sentences import URL, sentence_spans


class Kind(enum.Enum):
    SEPARATOR = "separator"  # kept as it is
    PASS = "pass"  # a segment kept as it is: nothing to translate
    TRANSLATE = "translate"  # a segment the model translates


@dataclass(frozen=True)
class Piece:
    text: str
    kind: Kind
    markers: tuple[str, ...] = ()  # the inline markup inside a segment, in order (HTML)


def needs_translation(text: str) -> bool:
    """True when `text` has a letter outside URLs, e-mail addresses and placeholders."""
    rest = placeholders.PATTERN.sub(" ", URL.sub(" ", text))
    return any(unicodedata.category(ch).startswith("L") for ch in rest)


def _unmasked(raw: str, markers: Sequence[Span], stand_in=lambda mark: "") -> tuple[str, list[int], list[int]]:
    """The run with each marker replaced by `stand_in(marker)`, and for each of its characters
    the raw offsets where it starts and ends."""
    chars, starts, ends, at = [], [], [], 0
    for start, end in [*markers, (len(raw), len(raw))]:
        chars.append(raw[at:start])
        starts.extend(range(at, start))
        ends.extend(range(at + 1, start + 1))
        if end > start:
            sub = stand_in(raw[start:end])
            chars.append(sub)
            starts.extend([start] * len(sub))
            ends.extend([end] * len(sub))
        at = end
    return "".join(chars), starts, ends


def _entity_char(mark: str) -> str:
    """What a marker reads as for the sentence splitter: an entity its character, a tag nothing."""
    return html.unescape(mark)[:1] if mark.startswith("&") else ""


def _sentences(raw: str, markers: Sequence[Span]) -> list[Span]:
    """Sentence spans in `raw`, each grown over the markers that touch it."""
    text, where, where_end = _unmasked(raw, markers, _entity_char)
    text = re.sub(r"\s", " ", text)  # HTML: a newline in the source is a space, not a line end
    spans = [(where[a], where_end[b - 1]) for a, b in sentence_spans(text)]
    ends = {e: s for s, e in markers}
    starts = {s: e for s, e in markers}
    grown = []
    for i, (start, end) in enumerate(spans):
        floor = grown[-1][1] if grown else 0
        while start in ends and ends[start] >= floor:
            start = ends[start]
        ceiling = spans[i + 1][0] if i + 1 < len(spans) else len(raw)
        while end in starts and starts[end] <= ceiling:
            end = starts[end]
        grown.append((start, end))
    return grown


def _collapse(text: str, markers: Sequence[Span]) -> str:
    """Whitespace runs outside markers become one space."""
    out, at = [], 0
    for start, end in [*markers, (len(text), len(text))]:
        out.append(re.sub(r"\s+", " ", text[at:start]))
        out.append(text[start:end])
        at = end
    return "".join(out)


def _segment(raw: str, start: int, end: int, markers: Sequence[Span], collapse: bool) -> Piece:
    inner = [(s - start, e - start) for s, e in markers if start <= s and e <= end]
    text = raw[start:end]
    if not needs_translation(_unmasked(text, inner)[0]):
        return Piece(text, Kind.PASS)
    marks = tuple(text[s:e] for s, e in inner)
    return Piece(_collapse(text, inner) if collapse else text, Kind.TRANSLATE, marks)


def split_run(
    raw: str, markers: Sequence[Span] = (), too_long: TooLong | None = None, collapse: bool = False
) -> list[Piece]:
    """The pieces of one run (no newline inside unless `collapse`); see the module docstring."""
    pieces: list[Piece] = []
    at = 0
    for start, end in _sentences(raw, markers):
        inside = [(s - start, e - start) for s, e in markers if start <= s and e <= end]
        chunks = [(0, end - start)] if too_long is None else split_long(raw[start:end], too_long, inside)
        for a, b in chunks:
            if start + a > at:
                pieces.append(Piece(raw[at : start + a], Kind.SEPARATOR))
            pieces.append(_segment(raw, start + a, start + b, markers, collapse))
            at = start + b
    if at < len(raw):
        pieces.append(Piece(raw[at:], Kind.SEPARATOR))
    return pieces
