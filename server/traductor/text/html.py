"""HTML texts: what is markup, what is text to translate, and markup put back into translations.

The standard library's `html.parser` reads the text; every token keeps its exact source
characters (the parser reports where each token starts, and a token runs to the next one), so
everything that is not translated comes back byte for byte. Tokens are of three sorts:

- breaks: block-level tags (`p`, `div`, `li`, `h1`..`h6`, `br`, `td`, ...), comments,
  declarations, and whole elements that are never translated (`script`, `style`, `code`,
  `pre`, and any element with `translate="no"`), their content included. A break ends a run of
  text and is kept as a separator.
- markers: inline tags (`b`, `i`, `a`, `span`, ... any tag not listed as a block) and character
  references (`&amp;`, `&#233;`). They stay inside the sentence they touch, literally, in the
  segment text; the model layer keeps them like placeholders.
- text: everything else, cut into sentences like plain text (`pieces.split_run`), the whitespace
  inside a sentence collapsed to single spaces (HTML does not show it).

Attribute values are part of their tag and are never translated. `restore_markup` makes a
segment's translation safe to put back: the segment's markers come back exactly once each and
in their original order, in the places where the translation has them (missing ones at the
end, extra copies dropped), and every other "&" and "<" is escaped. So the output has
the input's sequence of tags, and is well-formed whenever the input is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html.parser import HTMLParser

from .longsplit import TooLong
from .pieces import Kind, Piece, split_run

BLOCKS = frozenset(
    "address article aside blockquote body br button caption col colgroup dd details dialog div dl dt "
    "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe "
    "input legend li link main menu meta nav noscript ol optgroup option p section select summary "
    "table tbody td template textarea tfoot th thead title tr ul video audio canvas svg math".split()
)
UNTRANSLATED = frozenset({"script", "style", "code", "pre"})
_FAILED_MARKUP = re.compile(r"<[A-Za-z!/?]")
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


class _Tokens(HTMLParser):
    """Collects (start offset, sort, tag name, attributes) of every token."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.events: list[tuple[int, str, str, dict]] = []
        self.line_starts = [0]

    def tokens(self, text: str) -> list[tuple[str, str, str, dict]]:
        """(source characters, sort, tag name, attributes) of each token, covering `text`."""
        self.line_starts += [m.end() for m in re.finditer("\n", text)]
        self.feed(text)
        self.close()
        if not self.events or self.events[0][0] > 0:
            self.events.insert(0, (0, "text", "", {}))
        starts = [at for at, *_ in self.events] + [len(text)]
        out = [(text[a:b], *ev[1:]) for a, b, ev in zip(starts, starts[1:], self.events) if b > a]
        if "".join(raw for raw, *_ in out) != text:  # positions out of order: a parser bug
            raise RuntimeError("html.parser reported token positions out of order")
        return out

    def _add(self, sort: str, tag: str = "", attrs: list | None = None) -> None:
        line, col = self.getpos()
        self.events.append((self.line_starts[line - 1] + col, sort, tag, dict(attrs or [])))

    def handle_starttag(self, tag, attrs):
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._add("void", tag, attrs)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("text")

    def handle_entityref(self, name):
        self._add("entity")

    def handle_charref(self, name):
        self._add("entity")

    def handle_comment(self, data):
        self._add("other")

    def handle_decl(self, decl):
        self._add("other")

    def handle_pi(self, data):
        self._add("other")

    def unknown_decl(self, data):
        self._add("other")


def tokens(text: str) -> list[tuple[str, str, str, dict]]:
    """(source characters, sort, tag name, attributes) of each token of `text`; sorts: text,
    entity, start, end, void (self-closing), other (comment, declaration)."""
    return _Tokens().tokens(text)


def _skips(tag: str, attrs: dict) -> bool:
    return tag in UNTRANSLATED or str(attrs.get("translate", "")).lower() == "no"


def classify(text: str) -> list[tuple[str, str]]:
    """(source characters, "break" | "marker" | "text") for each token of `text`."""
    out, closed_by = [], []  # closed_by: the open untranslated elements, innermost last
    for raw, sort, tag, attrs in tokens(text):
        if closed_by:
            if sort == "end" and tag in closed_by:
                del closed_by[closed_by.index(tag) :]
            elif sort == "start" and tag not in VOID and (tag == closed_by[-1] or _skips(tag, attrs)):
                closed_by.append(tag)
            out.append((raw, "break"))
        elif sort == "start" and tag not in VOID and _skips(tag, attrs):
            closed_by.append(tag)
            out.append((raw, "break"))
        elif sort in ("start", "end", "void"):
            out.append((raw, "break" if tag in BLOCKS or _skips(tag, attrs) else "marker"))
        elif sort == "entity":
            out.append((raw, "marker"))
        else:  # text the parser could not read as markup ("<!--" never closed) is kept as it is
            out.append((raw, "text" if sort == "text" and not _FAILED_MARKUP.match(raw) else "break"))
    return out


def html_pieces(text: str, too_long: TooLong | None, language: str = "") -> list[Piece]:
    """The pieces of an HTML text: breaks as separators, runs of text and markers cut into segments."""
    pieces: list[Piece] = []
    run, markers = [], []

    def flush() -> None:
        if run:
            pieces.extend(split_run("".join(run), markers, too_long, collapse=True, language=language))
            run.clear()
            markers.clear()

    for raw, sort in classify(text):
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


def _escape(text: str) -> str:
    """Translated text as HTML text: every "&" and "<" escaped (markup comes only from markers)."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


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


def restore_markup(markers: Sequence[str], translation: str) -> str:
    """The translation with exactly the segment's markers, in their order (module docstring)."""
    if not markers:
        return _escape(translation)
    pattern = re.compile("|".join(re.escape(m) for m in sorted(set(markers), key=len, reverse=True)))
    texts = pattern.split(translation)
    placed = _placed(markers, pattern.findall(translation))
    out = [_escape(texts[0])]
    for mark, text in zip(placed, texts[1:]):
        out.append(mark or "")
        out.append(_escape(text))
    out.extend(markers[sum(m is not None for m in placed) :])
    return "".join(out)
