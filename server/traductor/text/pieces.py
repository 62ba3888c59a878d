"""One run of text (a line, or the text between two HTML block boundaries) cut into pieces.

A piece is a separator (whitespace, and in HTML the markup between sentences), a pass-through
segment (nothing to translate: only whitespace, punctuation, numbers, URLs, placeholders and
markup) or a segment to translate. Joining the pieces' texts (`Piece.original`) gives the run
back unchanged, except that with `collapse` (HTML) the whitespace inside a segment becomes
single spaces.

Markers are the spans of inline markup inside the run (HTML tags and entities; none for plain
text). The sentence splitter never sees them; each sentence keeps the markers that touch it
(`<b>Warning:</b>` stays one segment) and a cut never falls inside one. Tags at the edges of a
sentence that wrap all of it, or belong to an element outside it, are left out of the segment
as separators (`_peel`), so the model carries only the markup inside the sentence. A marker the model's
placeholder rules would not take whole (`<xliff:g id="user">`, a whole `<code>ls</code>`) goes
to the model as a stand-in they do take (`stand_in`) and comes back as itself.

A segment whose translation has nothing in it (`produced_nothing`: no letter outside
placeholders) keeps its source (`segment.Plan.finished`): never a silently empty line.
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
    text: str  # what the model gets (HTML: markers it would not keep replaced by stand-ins)
    kind: Kind
    markers: tuple[str, ...] = ()  # the inline markup inside a segment, in order, as in `text` (HTML)
    originals: tuple[str, ...] = ()  # what each marker is in the source, when a stand-in differs
    source: str = ""  # the segment as in the source, when `text` differs from it

    @property
    def original(self) -> str:
        return self.source or self.text


def _has_letter(text: str) -> bool:
    return any(unicodedata.category(ch).startswith("L") for ch in text)


def needs_translation(text: str) -> bool:
    """True when `text` has a letter outside URLs, e-mail addresses and placeholders."""
    return _has_letter(placeholders.replace(" ", URL.sub(" ", text)))


def produced_nothing(translation: str) -> bool:
    """True when a segment's translation has no letter outside placeholders (markup included):
    empty, only spaces, or only the source's options and placeholders ("-h, --help" of "-h,
    --help  display this help"). The source is kept instead (`Plan.finished`). URLs, paths and
    file names are not left out (`verbatim=False`): "config" may grow into "config.toml", and a
    translation that grows can only go from True to False (streaming relies on it)."""
    return not _has_letter(placeholders.replace(" ", translation, verbatim=False))


def stand_in(marker: str) -> str:
    """What the model gets for a marker: the marker itself when the model's placeholder rules
    take it whole (`<b>`, `&amp;`), else a tag they do (`<xliff:g id="u">` -> `<span>`, a whole
    `<code>ls</code>` -> `<var/>`), put back as the marker (`html.restore_markup`)."""
    if placeholders.find(marker) == [marker]:
        return marker
    if re.fullmatch(r"</[^<>]*>", marker):
        return "</span>"
    if re.fullmatch(r"<[A-Za-z][^<>]*(?<!/)>", marker):
        return "<span>"
    return "<var/>"


def _unmasked(raw: str, markers: Sequence[Span], replace=lambda mark: "") -> tuple[str, list[int], list[int]]:
    """The run with each marker replaced by `replace(marker)`, and for each of its characters
    the raw offsets where it starts and ends."""
    chars, starts, ends, at = [], [], [], 0
    for start, end in [*markers, (len(raw), len(raw))]:
        chars.append(raw[at:start])
        starts.extend(range(at, start))
        ends.extend(range(at + 1, start + 1))
        if end > start:
            sub = replace(raw[start:end])
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


def _collapse(text: str, markers: Sequence[Span], stand_ins: Sequence[str] = ()) -> str:
    """Whitespace runs outside markers become one space; each marker is its stand-in if given."""
    out, at = [], 0
    for k, (start, end) in enumerate([*markers, (len(text), len(text))]):
        out.append(re.sub(r"\s+", " ", text[at:start]))
        out.append(stand_ins[k] if k < len(stand_ins) else text[start:end])
        at = end
    return "".join(out)


def _segment(raw: str, start: int, end: int, markers: Sequence[Span], collapse: bool) -> Piece:
    inner = [(s - start, e - start) for s, e in markers if start <= s and e <= end]
    text = raw[start:end]
    if not needs_translation(_unmasked(text, inner)[0]):
        return Piece(text, Kind.PASS)
    marks = tuple(text[s:e] for s, e in inner)
    if not collapse:
        return Piece(text, Kind.TRANSLATE, marks)
    source = _collapse(text, inner)
    stand_ins = tuple(stand_in(m) for m in marks)
    if stand_ins == marks:
        return Piece(source, Kind.TRANSLATE, marks)
    return Piece(_collapse(text, inner, stand_ins), Kind.TRANSLATE, stand_ins, marks, source)


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
