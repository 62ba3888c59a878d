"""Markdown documents, read with translate-toolkit in one pass that calls back for every text
(webpage.CallbackDocument): one unit per block, its text sent to the service as HTML
(``markdown_inline``), so emphasis, links and code spans come back as they were, or the unit is
rejected with the reason. The file is written back as it was read but for the translated texts.
"""

from __future__ import annotations

import io
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from traductor_client.files import markdown_inline, placeholders, textsplice
from traductor_client.files.toolkit import rejection
from traductor_client.files.units import Unit
from traductor_client.files.webpage import CallbackDocument

_PLACEHOLDER_OR_SPACE = re.compile(r"\{(\d+)\}|[ \t\r\n]+")
# what translate-toolkit's {n} stands for: a link's (target "title") or [reference], an autolink
# or a piece of inline HTML
_STANDS_FOR = r"\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\]\n]*\]|<[^<>\n]*>"
_LINK_LABEL = re.compile(r" {0,3}\[([^\]]+)\]:")


def _source_pattern(source: str) -> Tuple[re.Pattern, List[str]]:
    """A pattern that finds a unit's text (translate-toolkit's spelling: link targets and inline
    HTML as {1}, whitespace normalized, entities as characters) in the Markdown as written; its
    groups: "p<n>" what {n} stands for, "s<k>" each run of whitespace as written."""
    out, names, at = [], [], 0
    for match in _PLACEHOLDER_OR_SPACE.finditer(source):
        out.extend(_literal(ch) for ch in source[at : match.start()])
        if match.group(1) is not None:
            name = f"p{match.group(1)}"
            out.append(f"(?P<{name}>{_STANDS_FOR})" if name not in names else f"(?P={name})")
        else:
            name = f"s{len(names)}"
            out.append(f"(?P<{name}>[^\\S\\r\\n]*\\\\?\\r?\\n[ \\t>]*|[^\\S\\r\\n]+)")  # a no-break space too
        names.append(name)
        at = match.end()
    out.extend(_literal(ch) for ch in source[at:])
    return re.compile("".join(out)), names


def _literal(ch: str) -> str:
    """A character of a unit's text as the Markdown may write it: itself, backslash-escaped, or
    as a character reference."""
    if ch.isascii() and ch.isalnum():
        return ch
    return f"(?:\\\\?{re.escape(ch)}|&[#\\w]+;)"


class MarkdownDocument(CallbackDocument):
    """Markdown: each block's text found where it is written and replaced there, the rest of the
    file as written (translate-toolkit re-renders the whole document: tables re-padded, hard
    breaks respelled); its rendering stays the fallback where a text cannot be found."""

    kind = "Markdown"

    def __init__(self, data: bytes, name: str) -> None:
        self.pieces: Dict[int, List[str]] = {}  # id(unit) -> the Markdown each tag of its HTML stands for
        self.lines = data.decode("utf-8", "replace").splitlines()
        self.line: Dict[int, int] = {}  # id(unit) -> the line its text begins on
        super().__init__(data, name)

    def run(self, data: bytes, callback: Callable[[str], str], language: str = "") -> Any:
        from translate.storage import markdown  # needs mistletoe, only for this format

        return markdown.MarkdownFile(inputfile=io.BytesIO(data), callback=callback, extract_code_blocks=False)

    def unit(self, tt_unit: Any, position: int) -> Any:
        line = int(tt_unit.getlocations()[0].rsplit(":", 1)[-1] or 0)
        label = _LINK_LABEL.match(self.lines[line - 1]) if 0 < line <= len(self.lines) else None
        if label and label.group(1) == tt_unit.source:  # a link reference's label is a name, not text
            return None
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where, self.line[id(unit)] = f"line {line}", line
            sent, self.pieces[id(unit)] = markdown_inline.to_html(unit.sources[0])
            unit.sent = [sent]
        return unit

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        """Each unit found from where the one before it ended (or, a link's title inside the text
        before it, from its line's start); a filled unit inside another filled one's text is
        written inside that one's link (`_as_written`)."""
        text = self.data.decode("utf-8")
        places = textsplice.Places(text)
        found: List[Tuple[Unit, re.Match, List[str]]] = []
        after, line = 0, 0
        for unit in self.units:
            if self.line[id(unit)] != line:
                line = self.line[id(unit)]
                after = max(after, places.line(line))
            pattern, names = _source_pattern(unit.sources[0])
            limit = min(len(text), after + 4 * len(unit.sources[0]) + 4000)
            match = pattern.search(text, after, limit) or pattern.search(text, places.line(line), limit)
            if match is None:
                if id(unit) in self.filled:
                    return super().render(filled, language)
                continue
            after = max(after, match.end())
            found.append((unit, match, names))
        edited = [(unit, match, names) for unit, match, names in found if id(unit) in self.filled]
        replacements = {}
        # a unit inside another (a link's title): in order of start, longest first, each unit
        # either begins a stretch of its own or lies in the last one begun
        inner: Dict[int, list] = {}
        outer: Optional[Tuple[Unit, re.Match, List[str]]] = None
        for unit, match, names in sorted(edited, key=lambda item: (item[1].start(), -item[1].end())):
            if outer and outer[1].span() != match.span() and match.end() <= outer[1].end():
                inner[id(outer[0])].append((match.span(), _as_written(self.filled[id(unit)][0], match, names, [])))
                continue
            outer = (unit, match, names)
            inner[id(unit)] = []
        for unit, match, names in edited:
            if id(unit) in inner:
                places.put(id(unit), match.span())
                replacements[id(unit)] = _as_written(self.filled[id(unit)][0], match, names, inner[id(unit)])
        return places.render(replacements).encode("utf-8")

    def fill(self, unit: Unit, translations: List[str], mark_review: bool) -> Tuple[str, str]:
        reason = placeholders.problems(unit.sent, translations, tags=True)
        if reason:
            return rejection(reason, translations)
        source, pieces = unit.sources[0], self.pieces[id(unit)]
        reason, shown = "its Markdown markup came back in another order", translations
        for escape in (False, True):  # the model's "*", "_"... escaped only where they would count
            text = markdown_inline.from_html(translations[0], unit.sent[0], pieces, escape)
            if text is None:
                break
            reason, shown = placeholders.problem(source, text) or markdown_inline.difference(source, text), [text]
            if reason is None:
                self.write(unit.handle, [text], mark_review)
                self.filled[id(unit)] = [text]
                return "filled", ""
        return rejection(reason, shown)


def _as_written(translation: str, found: re.Match, names: List[str], inner: List[Tuple[Tuple[int, int], str]]) -> str:
    """A translation in translate-toolkit's spelling as the Markdown writes it: each {n} what it
    stood for in the file (with the ``inner`` units' new texts in it: a link's title), each line
    break (a hard break) as the source's was written."""
    breaks = [found.group(n) for n in names if n.startswith("s") and "\n" in found.group(n)]
    out, k = [], 0
    for piece in re.split(r"(\{\d+\}|\n)", translation):
        if piece == "\n":
            out.append(breaks[min(k, len(breaks) - 1)] if breaks else "\n")
            k += 1
        elif re.fullmatch(r"\{\d+\}", piece) and f"p{piece[1:-1]}" in names:
            name = f"p{piece[1:-1]}"
            start, stop = found.span(name)
            edits = sorted((a - start, b - start, new) for (a, b), new in inner if start <= a and b <= stop)
            group, at, pieces = found.group(name), 0, []
            for a, b, new in edits:
                pieces += [group[at:a], new]
                at = b
            out.append("".join(pieces) + group[at:])
        else:
            out.append(piece)
    return "".join(out)


__all__ = ["MarkdownDocument"]
