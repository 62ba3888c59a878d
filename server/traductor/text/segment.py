"""A text cut into segments for the model, and put back together around their translations.

    text --lines--> lines --columns--> runs --sentences--> segments --too long?--> shorter segments
                                                          \\--> nothing to translate? pass-through

Columns: inside a line, a tab or a run of two or more spaces separates what a program lays out
in columns (`  -h, --help          display this help and exit`: the options, then their
description); each column is cut into sentences on its own, so the model never sees the run of
spaces (it was not trained on them: it answered with spaces until its length limit).

`plan(text)` keeps everything that is not a segment to translate as a separator: every newline
("\\n", "\\r\\n", "\\r"), blank line, indentation and trailing whitespace, byte for byte. The
caller translates `plan.segments` (each on its own; they are independent model inputs) and
`plan.assemble(translations)` joins them with the separators in the original order, so the
identity translation gives the text back unchanged. With format="html" the markup is handled by
`html.py` instead of lines (see there). A segment whose translation has nothing in it (no letter
outside placeholders: `pieces.produced_nothing`) keeps its source, and `Plan.untranslated` says
which did, so the caller can flag the text.

This module knows nothing about models or tokenizers: a segment's length limit is a
`too_long(str) -> bool` callable or a character budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .limits import TextLimits, UnknownFormat, check_chars, check_controls, check_segments
from .longsplit import TooLong
from .pieces import Kind, Piece, produced_nothing, split_run

FORMATS = ("text", "html")
DEFAULT_LIMITS = TextLimits()
_NEWLINE = re.compile(r"\r\n|\r|\n")
_COLUMN_GAP = re.compile(r"[ \t]*\t[ \t]*| {2,}")


@dataclass(frozen=True)
class Segment:
    index: int  # position among the segments to translate (the index of its translation)
    text: str  # what the model gets; in HTML it holds the segment's inline markup literally


@dataclass(frozen=True)
class Plan:
    pieces: tuple[Piece, ...]
    format: str = "text"

    @property
    def segments(self) -> list[Segment]:
        """The segments to translate, in text order."""
        todo = [p for p in self.pieces if p.kind is Kind.TRANSLATE]
        return [Segment(i, p.text) for i, p in enumerate(todo)]

    @property
    def passed(self) -> list[str]:
        """The segments kept as they are (no model call), in text order."""
        return [p.text for p in self.pieces if p.kind is Kind.PASS]

    def finished(self, piece: Piece, translation: str) -> str:
        """A segment's translation as it goes into the output (HTML: markup restored); its source
        when the translation has nothing in it (see the module docstring)."""
        if produced_nothing(translation):
            return piece.original
        if self.format == "html":
            from .html import restore_markup

            return restore_markup(piece.markers, translation, piece.originals)
        return translation

    def untranslated(self, translations: Sequence[str]) -> list[int]:
        """The indexes of the segments whose translation had nothing in it (their source is kept)."""
        return [i for i, t in enumerate(translations) if produced_nothing(t)]

    def assemble(self, translations: Sequence[str]) -> str:
        """The text with translations[i] in place of segments[i]."""
        todo = [p for p in self.pieces if p.kind is Kind.TRANSLATE]
        if len(translations) != len(todo):
            raise ValueError(f"{len(translations)} translations for {len(todo)} segments")
        it = iter(translations)
        return "".join(self.finished(p, next(it)) if p.kind is Kind.TRANSLATE else p.text for p in self.pieces)


def char_budget(max_chars: int) -> TooLong:
    """A `too_long` that allows at most `max_chars` characters per segment."""
    return lambda s: len(s) > max_chars


def _gaps(text: str, pattern: re.Pattern, run) -> list[Piece]:
    """`run(part)` for each part of `text` between matches of `pattern`, the matches as separators."""
    pieces: list[Piece] = []
    at = 0
    for m in [*pattern.finditer(text), None]:
        end = m.start() if m else len(text)
        pieces.extend(run(text[at:end]))
        if m:
            pieces.append(Piece(m.group(0), Kind.SEPARATOR))
            at = m.end()
    return pieces


def text_pieces(text: str, too_long: TooLong | None, language: str = "") -> list[Piece]:
    """Plain text: each column of each line is a run; newlines and column gaps are separators."""
    column = lambda part: split_run(part, too_long=too_long, language=language)  # noqa: E731
    return _gaps(text, _NEWLINE, lambda line: _gaps(line, _COLUMN_GAP, column))


def _merged(pieces: list[Piece]) -> tuple[Piece, ...]:
    """Neighbouring separators joined into one (simpler to read and to stream)."""
    out: list[Piece] = []
    for p in pieces:
        if out and p.kind is Kind.SEPARATOR and out[-1].kind is Kind.SEPARATOR:
            out[-1] = Piece(out[-1].text + p.text, Kind.SEPARATOR)
        elif p.text or p.kind is not Kind.SEPARATOR:
            out.append(p)
    return tuple(out)


def plan(
    text: str,
    format: str = "text",
    *,
    too_long: TooLong | None = None,
    max_segment_chars: int | None = None,
    limits: TextLimits = DEFAULT_LIMITS,
    language: str = "",
) -> Plan:
    """Cut `text` into segments; raises TooManyChars, ControlCharacter, TooManySegments or UnknownFormat.
    `language` is the text's (the model's source language): its rules split the sentences (""
    and a code the splitter does not know: its base rules)."""
    if format not in FORMATS:
        raise UnknownFormat(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    check_chars(text, limits)
    check_controls(text)
    if too_long is None and max_segment_chars is not None:
        too_long = char_budget(max_segment_chars)
    if format == "html":
        from .html import html_pieces

        pieces = html_pieces(text, too_long, language)
    else:
        pieces = text_pieces(text, too_long, language)
    result = Plan(_merged(pieces), format)
    check_segments(sum(p.kind is Kind.TRANSLATE for p in result.pieces), limits)
    return result
