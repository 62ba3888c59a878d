"""One run of text (a line, or the text between two HTML block boundaries) cut into pieces.

A piece is a separator (whitespace, and in HTML the markup between sentences), a pass-through
segment (nothing to translate: only whitespace, punctuation, numbers, URLs, placeholders and
markup) or a segment to translate. Joining the pieces' texts gives the run back unchanged,
except that with `collapse` (HTML) the whitespace inside a segment becomes single spaces.

Markers are the spans of inline markup inside the run (HTML tags and entities; none for plain
text). The sentence splitter never sees them; each sentence keeps the markers that touch it
(`<b>Warning:</b>` stays one segment) and a cut never falls inside one. Tags at the edges of a
sentence that wrap all of it, or belong to an element outside it, are left out of the segment
as separators (`_peel`), so the model carries only the markup inside the sentence.
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
    rest = placeholders.replace(" ", URL.sub(" ", text))
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


def _sentences(raw: str, markers: Sequence[Span], language: str = "") -> list[Span]:
    """Sentence spans in `raw` (by `language`'s rules), each grown over the markers that touch it."""
    text, where, where_end = _unmasked(raw, markers, _entity_char)
    text = re.sub(r"\s", " ", text)  # HTML: a newline in the source is a space, not a line end
    spans = [(where[a], where_end[b - 1]) for a, b in sentence_spans(text, language)]
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


_OPEN_TAG = re.compile(r"<([A-Za-z][\w:-]*)[^>]*(?<!/)>$")
_CLOSE_TAG = re.compile(r"</([A-Za-z][\w:-]*)\s*>$")


def _balanced(tags: Sequence[str]) -> bool:
    """Whether every start tag among `tags` is closed by the matching end tag, in order."""
    open_names: list[str] = []
    for tag in tags:
        if m := _OPEN_TAG.match(tag):
            open_names.append(m.group(1).lower())
        elif m := _CLOSE_TAG.match(tag):
            if not open_names or open_names.pop() != m.group(1).lower():
                return False
    return not open_names


def _names(tags: Sequence[str], pattern: re.Pattern) -> list[str]:
    return [m.group(1).lower() for t in tags if (m := pattern.match(t))]


def _unmatched_edge(tags: list[str]) -> str:
    """ "first" if the first tag opens an element not closed among `tags`, "last" if the last one
    closes an element not opened among them, else ""."""
    if (m := _OPEN_TAG.match(tags[0])) and _names(tags[1:], _CLOSE_TAG).count(m.group(1).lower()) <= _names(
        tags[1:], _OPEN_TAG
    ).count(m.group(1).lower()):
        return "first"
    if (m := _CLOSE_TAG.match(tags[-1])) and _names(tags[:-1], _OPEN_TAG).count(m.group(1).lower()) <= _names(
        tags[:-1], _CLOSE_TAG
    ).count(m.group(1).lower()):
        return "last"
    return ""


def _peel(raw: str, start: int, end: int, markers: Sequence[Span]) -> Span:
    """The sentence without the tags at its edges that the model need not carry: a pair that
    wraps all of it (`<b>Done.</b>` -> `Done.`), and a start tag closed after it or an end tag
    opened before it. They stay in place as separators."""
    inner = [(s, e) for s, e in markers if start <= s and e <= end]
    while inner:
        tags = [raw[s:e] for s, e in inner]
        at_start, at_end = inner[0][0] == start, inner[-1][1] == end
        first, last = _OPEN_TAG.match(tags[0]), _CLOSE_TAG.match(tags[-1])
        edge = _unmatched_edge(tags)
        if edge == "first" and at_start:
            start, inner = inner[0][1], inner[1:]
        elif edge == "last" and at_end:
            end, inner = inner[-1][0], inner[:-1]
        elif at_start and at_end and len(inner) >= 2 and first and last and _balanced(tags[1:-1]):
            start, end, inner = inner[0][1], inner[-1][0], inner[1:-1]
        else:
            break
        middle = raw[start:end]
        start, end = start + len(middle) - len(middle.lstrip()), start + len(middle.rstrip())
        if end <= start:
            break
    return start, end


def split_run(
    raw: str,
    markers: Sequence[Span] = (),
    too_long: TooLong | None = None,
    collapse: bool = False,
    language: str = "",
) -> list[Piece]:
    """The pieces of one run (no newline inside unless `collapse`); see the module docstring.
    `language` is the source language whose rules split the sentences."""
    pieces: list[Piece] = []
    at = 0
    for start, end in _sentences(raw, markers, language):
        if collapse:
            start, end = _peel(raw, start, end, markers)
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
