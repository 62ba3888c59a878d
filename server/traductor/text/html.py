"""HTML texts: what is markup, what is text to translate, and markup put back into translations.

The standard library's `html.parser` reads the text (`traductor_client.markup.tokens`, shared
with file translation); every token keeps its exact source characters, so everything that is
not translated comes back byte for byte. Tokens are of three sorts:

- breaks: block-level tags (`p`, `div`, `li`, `h1`..`h6`, `br`, `td`, ...), comments,
  declarations, and whole block elements that are never translated (`script`, `style`, `pre`,
  and any block with `translate="no"`), their content included. A break ends a run of text and
  is kept as a separator.
- markers: inline tags (`b`, `i`, `a`, `span`, ... any tag not listed as a block), character
  references (`&amp;`, `&#233;`), and whole inline elements that are never translated (`code`,
  `kbd`, `samp`, Android's `xliff:g`, an inline `translate="no"` element: one marker each,
  content included). They stay inside the sentence they touch; the model keeps them like
  placeholders. Which elements are never translated is `traductor_client.markup`'s rule, the
  one the file readers follow too.
- text: everything else, cut into sentences like plain text (`pieces.split_run`), the whitespace
  inside a sentence collapsed to single spaces (HTML does not show it).

Attributes: the values people see or hear (`markup.shown_attributes`: `title`, `alt`,
`aria-label`, `aria-description`, `placeholder`, a button's `value`, `<meta name="description">`'s
`content`; the rule the file readers follow) are translated where they stand: the tag is cut
into separators around each such value, and the value (its character references read as
characters) is a run of text of its own, cut into sentences. An inline tag that has one (a
link's `title`, an inline image's `alt`) therefore ends the sentence around it, as a block tag
does. A value's translation is escaped for its quotes (`restore_markup`: such a segment has no
markers and its quote as `originals`); an unquoted value gets double quotes. Every other
attribute is part of its tag and never translated. `<html lang>` is not changed here (the target
is not known to this layer); the file readers set it.

`restore_markup` makes a
segment's translation safe to put back: the segment's markers come back exactly once each and
in their original order, in the places where the translation has them (missing ones at the
end, extra copies dropped), and every other "&" and "<" is escaped. So the output has
the input's sequence of tags, and is well-formed whenever the input is.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from traductor_client import markup

from .longsplit import TooLong
from .pieces import Kind, Piece, split_run

BLOCKS = frozenset(
    "address article aside blockquote body br button caption col colgroup dd details dialog div dl dt "
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe "
    "input legend li link main menu meta nav noscript ol optgroup option p section select summary "
    "table tbody td template textarea tfoot th thead title tr ul video audio canvas svg math".split()
)
_FAILED_MARKUP = re.compile(r"<[A-Za-z!/?]")


def tokens(text: str) -> list[tuple[str, str, str, dict]]:
    """(source characters, sort, tag name, attributes) of each token of `text`; sorts: text,
    entity, start, end, void (self-closing), other (comment, declaration)."""
    return markup.tokens(text)


def _block(tag: str) -> bool:
    return tag in BLOCKS or tag in markup.KEPT_BLOCKS


def _shown(text: str) -> list[tuple[str, list[str]]]:
    """(the tag's characters, its shown attributes) of each start tag outside a kept element
    that has any, in order."""
    toks = tokens(text)
    kept = {i for first, last in markup.kept_runs(toks) for i in range(first, last + 1)}
    out = []
    for i, (raw, sort, tag, attrs) in enumerate(toks):
        if sort in ("start", "void") and i not in kept:
            names = markup.shown_attributes(tag, attrs)
            if names:
                out.append((raw, names))
    return out


def classify(text: str) -> list[tuple[str, str]]:
    """(source characters, "break" | "marker" | "text") for each token of `text`; a kept element
    (markup.is_kept) is one entry: a break if it is a block, else one marker."""
    toks = tokens(text)
    runs = {first: last for first, last in markup.kept_runs(toks)}
    out, i = [], 0
    while i < len(toks):
        raw, sort, tag, attrs = toks[i]
        if i in runs:
            whole = "".join(t[0] for t in toks[i : runs[i] + 1])
            out.append((whole, "break" if _block(tag) else "marker"))
            i = runs[i] + 1
            continue
        if sort in ("start", "end", "void"):
            out.append((raw, "break" if _block(tag) else "marker"))
        elif sort == "entity":
            out.append((raw, "marker"))
        else:  # text the parser could not read as markup ("<!--" never closed) is kept as it is
            out.append((raw, "text" if sort == "text" and not _FAILED_MARKUP.match(raw) else "break"))
        i += 1
    return out


def html_pieces(text: str, too_long: TooLong | None, language: str = "") -> list[Piece]:
    """The pieces of an HTML text: breaks as separators, runs of text and markers cut into
    segments, the shown attributes' values as runs of their own."""
    pieces: list[Piece] = []
    run, markers = [], []
    shown = _shown(text)

    def flush() -> None:
        if run:
            pieces.extend(split_run("".join(run), markers, too_long, collapse=True, language=language))
            run.clear()
            markers.clear()

    for raw, sort in classify(text):
        names = shown.pop(0)[1] if shown and shown[0][0] == raw and sort != "text" else []
        if names:
            flush()
            pieces.extend(_attribute_pieces(raw, names, too_long, language))
            continue
        if sort == "break":
            flush()
            pieces.append(Piece(raw, Kind.SEPARATOR))
            continue
        if sort == "marker":
            at = sum(map(len, run))
            markers.append((at, at + len(raw)))
        run.append(raw)
    flush()
    return pieces


def _escape(text: str, quote: str = "") -> str:
    """Translated text as HTML text: every "&" and "<" escaped (markup comes only from markers),
    and in an attribute's value its quote."""
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return text.replace(quote, "&quot;" if quote == '"' else "&#39;") if quote else text


def _attribute_pieces(raw: str, names: list[str], too_long: TooLong | None, language: str) -> list[Piece]:
    """A start tag cut into separators around the values of the attributes `names`, each value a
    run of text (module docstring)."""
    pieces: list[Piece] = []
    head = re.match(r"<[^\s/>]+", raw)
    at, wanted = 0, set(names)
    for m in markup.ATTRIBUTE.finditer(raw, head.end() if head else 0):
        if m.group(2).lower() not in wanted or m.group(4) is None:
            continue
        value = m.group(4)
        quote = value[0] if value[0] in "\"'" else ""
        start, end = m.start(4) + bool(quote), m.end(4) - bool(quote)
        pieces.append(Piece(raw[at:start] + ("" if quote else '"'), Kind.SEPARATOR))
        pieces.extend(_value_pieces(raw[start:end], quote or '"', too_long, language))
        pieces.append(Piece("" if quote else '"', Kind.SEPARATOR))
        at = end
    pieces.append(Piece(raw[at:], Kind.SEPARATOR))
    return pieces


def _value_pieces(value: str, quote: str, too_long: TooLong | None, language: str) -> list[Piece]:
    """An attribute's value as pieces: the model gets its text (references read), what goes out
    verbatim is escaped again, and a segment keeps its quote for `restore_markup`."""
    out = []
    for piece in split_run(html.unescape(value), (), too_long, collapse=True, language=language):
        if piece.kind is Kind.TRANSLATE:
            out.append(Piece(piece.text, Kind.TRANSLATE, (), (quote,), _escape(piece.original, quote)))
        else:
            out.append(Piece(_escape(piece.text, quote), piece.kind))
    return out


def _placed(markers: Sequence[str], found: list[str]) -> list[str | None]:
    """For each marker found in a translation, the marker to put there (None: drop it).

    If the source's markers appear in order among those found (extra copies around them), those
    stay and the rest go; otherwise the source's markers take the places found, in source order.
    """
    keep, j = [], 0
    for hit in found:
        match = j < len(markers) and hit == markers[j]
        keep.append(hit if match else None)
        j += match
    if j == len(markers):
        return keep
    return [markers[k] if k < len(markers) else None for k in range(len(found))]


def restore_markup(markers: Sequence[str], translation: str, originals: Sequence[str] = ()) -> str:
    """The translation with exactly the segment's markers, in their order (module docstring);
    `originals`: what each marker stands for in the text (`pieces.stand_in`), when they differ."""
    if not markers:  # an attribute's value: its quote in `originals` (`_value_pieces`)
        return _escape(translation, originals[0] if originals else "")
    originals = originals or markers
    pattern = re.compile("|".join(re.escape(m) for m in sorted(set(markers), key=len, reverse=True)))
    texts = pattern.split(translation)
    placed = _placed(markers, pattern.findall(translation))
    out, k = [_escape(texts[0])], 0
    for mark, text in zip(placed, texts[1:]):
        if mark is not None:  # the markers placed come in source order: the k-th is markers[k]
            out.append(originals[k])
            k += 1
        out.append(_escape(text))
    out.extend(originals[k:])
    return "".join(out)
