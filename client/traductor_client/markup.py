"""HTML markup that is never translated: one rule for the service's HTML text layer
(``traductor.text.html`` in the server) and for file translation (``traductor_client.files``:
the HTML reader, and the checks of every unit sent as HTML).

    tokens(text)          (source characters, sort, tag, attributes) of every token of an HTML
                          text, covering it exactly (html.parser, which never fails)
    is_kept(tag, attrs)   an element whose content stays as it is: <script>, <style>, <pre>,
                          <code>, <kbd>, <samp>, Android's <xliff:g> (its content is a
                          placeholder or a name), and any element marked translate="no"
    KEPT_BLOCKS           of those, the ones that are blocks, never inside a sentence
    kept_runs(tokens)     where each outermost kept element starts and ends among the tokens
    verbatim(text)        the kept elements of a text, each as its source characters, in order:
                          a translation must have exactly these
    shown_attributes(tag, attrs)  the attributes people see or hear, translated with the text:
                          title, alt, aria-label, aria-description, placeholder, a button's
                          value (<input type="button|submit|reset">), <meta name="description">'s
                          content; and the document's language, <html lang>, set to the target
    with_attributes(tag_text, values)  a start tag as written, with some attributes' values
                          replaced (or added), the rest of its characters kept

Attributes: the service's HTML layer (/translate, DeepL's tag_handling=html, gRPC format=html)
translates ``shown_attributes`` wherever the tag stands, and the HTML file reader sends those of
tags outside a block's text as units of their own: one rule for every way in.

The service keeps a block (``<pre>``) as a separator between sentences and an inline element
(``<code>``, ``<xliff:g>``) as one placeholder inside its sentence; a file's HTML reader does
not extract a kept block as a unit at all; a unit's translation is refused when its kept
elements differ from its source's.

What this module does not know: sentences, models, file formats.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Dict, List, Tuple

KEPT = frozenset({"script", "style", "pre", "code", "kbd", "samp", "xliff:g"})
KEPT_BLOCKS = frozenset({"script", "style", "pre"})
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())

Token = Tuple[str, str, str, Dict[str, str]]  # (source characters, sort, tag name, attributes)


class _Tokens(HTMLParser):
    """Collects (start offset, sort, tag name, attributes) of every token."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.events: List[tuple] = []
        self.line_starts = [0]

    def tokens(self, text: str) -> List[Token]:
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

    handle_charref = handle_entityref

    def handle_comment(self, data):
        self._add("other")

    handle_decl = handle_pi = unknown_decl = handle_comment  # declarations, processing instructions


def tokens(text: str) -> List[Token]:
    """(source characters, sort, tag name, attributes) of each token of `text`; sorts: text,
    entity, start, end, void (self-closing), other (comment, declaration)."""
    return _Tokens().tokens(text)


def is_kept(tag: str, attrs: Dict[str, str]) -> bool:
    """Whether the element's content is never translated (see the module docstring)."""
    return tag in KEPT or str(attrs.get("translate") or "").strip().lower() == "no"


def kept_runs(toks: List[Token]) -> List[Tuple[int, int]]:
    """(first, last) token index of each outermost kept element; one never closed runs to the end.
    Inside it, a start tag of its own name nests (``<pre>`` in ``<pre>``), as does another kept one."""
    runs, first, closed_by = [], 0, []  # closed_by: the open kept elements, innermost last
    for i, (_, sort, tag, attrs) in enumerate(toks):
        if not closed_by:
            if sort == "start" and tag not in VOID and is_kept(tag, attrs):
                first, closed_by = i, [tag]
            continue
        if sort == "end" and tag in closed_by:
            del closed_by[closed_by.index(tag) :]
            if not closed_by:
                runs.append((first, i))
        elif sort == "start" and tag not in VOID and (tag == closed_by[-1] or is_kept(tag, attrs)):
            closed_by.append(tag)
    if closed_by:
        runs.append((first, len(toks) - 1))
    return runs


def verbatim(text: str) -> List[str]:
    """The source characters of each outermost kept element of `text`, in order."""
    toks = tokens(text)
    return ["".join(raw for raw, *_ in toks[a : b + 1]) for a, b in kept_runs(toks)]


# the attributes whose text people see (a tooltip, a placeholder) or hear (a screen reader)
SHOWN = ("title", "alt", "aria-label", "aria-description", "placeholder")
_BUTTON_TYPES = frozenset({"button", "submit", "reset"})
# an attribute in a start tag: (space, name, "=" with its spaces, value as written)
ATTRIBUTE = re.compile(r"""(\s+)([^\s=/>"']+)(?:(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")


def shown_attributes(tag: str, attrs: Dict[str, str | None]) -> List[str]:
    """The names of the element's attributes translated with the text (module docstring), in
    the order written; those without text are left out."""

    def kind(name: str) -> str:
        return str(attrs.get(name) or "").strip().lower()

    names = []
    for name, value in attrs.items():
        if not str(value or "").strip():
            continue
        if (
            name in SHOWN
            or (name == "value" and tag == "input" and kind("type") in _BUTTON_TYPES)
            or (name == "content" and tag == "meta" and kind("name") == "description")
        ):
            names.append(name)
    return names


def language_attribute(tag: str) -> str:
    """The attribute that says the document's language ("" for other elements): set to the
    target language in a translated document."""
    return "lang" if tag == "html" else ""


def attribute_value(value: str, quote: str = '"') -> str:
    """A text as an attribute's value between ``quote``s: "&" (not starting a character
    reference), "<" and the quote escaped."""
    value = re.sub(r"&(?![A-Za-z][A-Za-z0-9]*;|#[0-9]+;|#[xX][0-9A-Fa-f]+;)", "&amp;", value).replace("<", "&lt;")
    return value.replace(quote, "&quot;" if quote == '"' else "&#39;")


def with_attributes(start_tag: str, values: Dict[str, str]) -> str:
    """The start tag as written with each named attribute's value replaced by ``values[name]``
    (a text, escaped here, in the tag's own quotes; an unquoted value stays unquoted where it
    can) or added before the tag's end."""
    if not values:
        return start_tag
    todo = dict(values)

    def replace(match: re.Match) -> str:
        space, name, equals, old = match.groups()
        if name.lower() not in todo:
            return match.group(0)
        value = todo.pop(name.lower())
        if old and old[0] not in "\"'" and re.fullmatch(r"[^\s\"'=<>`&]+", value):
            return f"{space}{name}{equals}{value}"  # unquoted it was, unquoted it can stay
        quote = old[0] if old and old[0] in "\"'" else '"'
        return f"{space}{name}{equals or '='}{quote}{attribute_value(value, quote)}{quote}"

    head = re.match(r"<[^\s/>]+", start_tag)
    at = head.end() if head else 0
    body = ATTRIBUTE.sub(replace, start_tag[at:])
    added = "".join(f' {name}="{attribute_value(value)}"' for name, value in todo.items())
    end = len(body) - len(re.search(r"\s*/?>$", body)[0]) if re.search(r"\s*/?>$", body) else len(body)
    return start_tag[:at] + body[:end] + added + body[end:]


__all__ = [
    "ATTRIBUTE",
    "KEPT",
    "KEPT_BLOCKS",
    "SHOWN",
    "VOID",
    "attribute_value",
    "is_kept",
    "kept_runs",
    "language_attribute",
    "shown_attributes",
    "tokens",
    "verbatim",
    "with_attributes",
]
