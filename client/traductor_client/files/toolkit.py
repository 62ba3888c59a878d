"""What every format read with translate-toolkit (the library Weblate and Pootle build on) shares:
a toolkit store as a file-translation document (``files.job``), and how a unit is filled.

    bilingual.py    XLIFF 1.2, XLIFF 2.0, Qt .ts: the empty <target>/<translation> filled, marked
    android.py      Android strings.xml: every <string>, <plurals> and <string-array> item
    monolingual.py  JSON (flat, nested, i18next), SubRip .srt, text
    webpage.py      HTML (one pass of the reader calls back for every text)
    markdown.py     Markdown (the same way)

A bilingual file keeps its translated units; a monolingual one (the source file of a program)
is translated whole. Either way the file comes back as it was read but for the new translations
(translate-toolkit's writers re-indent, re-quote and re-lay-out the whole file): the XML formats
(``XmlDocument``) through ``xmlsplice``, the text formats (``SplicedDocument``) through
``textsplice``; translate-toolkit's own writing is the fallback where that cannot be done.

Markup inside a unit: where a format's texts may hold HTML (Qt rich text, Android, XLIFF and
JSON strings with tags), a unit whose text holds a tag is sent with format=html, so the service
keeps its tags in order and its kept elements (``traductor_client.markup``) verbatim, and
``placeholders.problems`` checks both on the translation.

Filling a unit (``StoreDocument.fill``): the translation passes those checks, is written, and a
format whose writer interprets the text (Android parses markup) reads it back: a unit that does
not read back as what was meant is put back as it was and reported rejected with the reason. So
the report never says filled for a unit the writing damaged.

What this module does not know: how texts reach the service, and the limits (``formats``
checks the size and XML safety before anything here parses).
"""

from __future__ import annotations

import codecs
import copy
import json
import re
import unicodedata
from typing import Any, Callable, Dict, List, Optional, Tuple

from lxml import etree
from translate.misc.multistring import multistring
from translate.misc.xml_helpers import extract_xml_prolog

from traductor_client.files import placeholders, textsplice, xmlsplice
from traductor_client.files.errors import FileError
from traductor_client.files.units import TODO, Unit

_CHARACTER_REFERENCE = re.compile(r"&(?:#\d+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")


def forms(value: Any) -> List[str]:
    if isinstance(value, multistring):
        return [str(s) for s in value.strings]
    return [str(value)] if value is not None else []


def rejection(reason: str, translations: List[str]) -> Tuple[str, str]:
    return "rejected", f"{reason} (translation: {json.dumps(' | '.join(translations), ensure_ascii=False)})"


def _character(text: str, at: int) -> str:
    if at >= len(text):
        return "the end"
    name = unicodedata.name(text[at], "")
    return f"U+{ord(text[at]):04X}" + (f" {name}" if name else "")


def changed(meant: List[str], back: List[str]) -> Optional[str]:
    """How the texts read back differ from those written, or None: the first difference as
    code points ("U+00A0 NO-BREAK SPACE written, U+0020 SPACE read back"), since two texts
    that differ only in a space look the same printed."""
    if back == meant:
        return None
    if len(back) != len(meant):
        return f"{len(meant)} forms written, {len(back)} read back"
    form, (text, got) = next((i, pair) for i, pair in enumerate(zip(meant, back)) if pair[0] != pair[1])
    at = next((i for i, (a, b) in enumerate(zip(text, got)) if a != b), min(len(text), len(got)))
    where = f"form {form}, " if len(meant) > 1 else ""
    return (
        f"read back different at {where}character {at + 1}: {_character(text, at)} written, "
        f"{_character(got, at)} read back (read back: {json.dumps(got, ensure_ascii=False)})"
    )


def has_markup(text: str) -> bool:
    """Whether a text holds an HTML-like tag (then it goes to the service as HTML)."""
    return bool(placeholders.TAG.search(text))


def as_plain(source: str, translation: str) -> str:
    """A translation of a unit sent as HTML, in its source's own spelling: a text that holds tags
    but no character reference ("Tom & <b>Jerry</b>" in a JSON string) gets the "&", "<" and ">"
    the service escaped for HTML back as characters."""
    if _CHARACTER_REFERENCE.search(source):
        return translation
    return translation.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class StoreDocument:
    """A translate-toolkit store as a document: subclasses say how to parse it, what a unit's
    state is and how a translation is written."""

    kind = ""
    review_word = ""  # a monolingual format has no way to mark a translation for review
    review_flag = "--include-review"
    markup_units = False  # whether a unit whose text holds a tag is sent as HTML (its tags checked)
    language = ""  # the target's code, where known (``formats.read`` sets it): its plural forms

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name = data, name
        self.filled: Dict[int, List[str]] = {}  # id(unit) -> its translations, as written
        try:
            self.store = self.parse(data)
        except FileError:
            raise
        except Exception as error:  # noqa: BLE001 - translate-toolkit raises many kinds on bad input
            raise FileError(f"{name}: not a valid {self.kind} file ({type(error).__name__}: {error})") from None
        self.units: List[Unit] = []
        for position, tt_unit in enumerate(self.store.units):
            unit = self.unit(tt_unit, position)
            if unit is not None:
                self.units.append(unit)

    # -- what subclasses give -------------------------------------------------------------------
    def parse(self, data: bytes) -> Any:
        raise NotImplementedError

    def state(self, tt_unit: Any) -> str:
        return TODO

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        tt_unit.target = multistring(translations) if len(translations) > 1 else translations[0]

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        return bytes(self.store)

    def from_service(self, unit: Unit, translation: str) -> str:
        """A translation as the unit's text spells it (see `as_plain`)."""
        return as_plain(unit.sources[0], translation) if unit.format == "html" else translation

    def undo(self, unit: Unit) -> Callable[[], None]:
        """A function that puts the unit back as it is now (called when its writing failed)."""
        return lambda: None

    def written(self, unit: Unit, translations: List[str]) -> Optional[str]:
        """Why the unit, read back after writing, is not what was meant to be written, or None."""
        return None

    # -- the document -----------------------------------------------------------------------------
    def unit(self, tt_unit: Any, position: int) -> Any:
        if tt_unit.isheader() or not isinstance(tt_unit.source, str) or not tt_unit.source.strip():
            return None
        sources = forms(tt_unit.source)
        element = getattr(tt_unit, "xmlelement", None)
        where = (element.get("id") if element is not None else None) or tt_unit.getid() or f"unit {position + 1}"
        unit = Unit(f'id "{where}"', position, sources, state=self.state(tt_unit), handle=tt_unit)
        unit.skip = next((placeholders.unsafe(s) for s in sources if placeholders.unsafe(s)), "")
        if self.markup_units and any(has_markup(s) for s in sources):
            unit.format = "html"
        return unit

    def fill(self, unit: Unit, translations: List[str], mark_review: bool) -> Tuple[str, str]:
        translations = [self.from_service(unit, t) for t in translations]
        reason = placeholders.problems(unit.sources, translations, tags=unit.format == "html")
        if reason:
            return rejection(reason, translations)
        undo = self.undo(unit)
        self.write(unit.handle, translations, mark_review)
        reason = self.written(unit, translations)
        if reason:
            undo()
            return rejection(f"the {self.kind} writer did not keep it: {reason}", translations)
        self.filled[id(unit)] = translations
        return "filled", ""


class SplicedDocument(StoreDocument):
    """A text format written back as read with only the filled units' texts replaced
    (``textsplice``): a subclass says where a unit's text lies in the file (``place``) and how a
    translation is spelled there (``spelled``); where a filled unit cannot be placed, the file is
    written by translate-toolkit."""

    def text(self) -> str:
        return self.data.decode("utf-8-sig")

    def place(self, places: textsplice.Places, unit: Unit, after: int) -> Optional[textsplice.Span]:
        """Where the unit's text lies in the file's text, searching from ``after``."""
        raise NotImplementedError

    def toolkit_render(self) -> bytes:
        """The file as translate-toolkit writes it (when a filled unit cannot be placed)."""
        return bytes(self.store)

    def spelled(self, unit: Unit, translations: List[str], original: str) -> str:
        """The unit's new text as the file writes it (``original``: the stretch it replaces)."""
        return translations[0]

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        text = self.text()
        places, after = textsplice.Places(text), 0
        for unit in self.units:
            span = self.place(places, unit, after)
            if id(unit) in self.filled:
                places.put(id(unit), span)
            after = span[1] if span else after
        if not places.complete:
            return self.toolkit_render()
        new = {}
        for unit in filled:
            span = places.spans[id(unit)]
            new[id(unit)] = self.spelled(unit, self.filled[id(unit)], text[span[0] : span[1]])
        bom = b"\xef\xbb\xbf" if self.data.startswith(b"\xef\xbb\xbf") else b""
        return bom + places.render(new).encode("utf-8")


class XmlDocument(StoreDocument):
    """An XML store, written back as its input with only the changed nodes changed
    (``xmlsplice``), or where that cannot be, from its parsed tree with its own prolog."""

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data, name)
        encoding = self.store.document.docinfo.encoding or "UTF-8"
        self.splice = xmlsplice.splice(data, self.store.document.getroot(), encoding)

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        root = self.store.document.getroot()
        encoding = self.store.document.docinfo.encoding or "UTF-8"
        spliced = self.splice.render(root) if self.splice is not None else None
        if spliced is not None:
            return spliced
        body = etree.tostring(root, encoding="unicode").encode(encoding, "xmlcharrefreplace")
        body = body.removeprefix(codecs.BOM_UTF16_LE).removeprefix(codecs.BOM_UTF16_BE)  # the prolog has it
        prolog = extract_xml_prolog(self.data)
        ending = self.data[len(self.data.rstrip()) :]
        return prolog + body + ending

    def element(self, unit: Unit) -> Any:
        """The XML element that writing the unit changes."""
        return unit.handle.xmlelement

    def undo(self, unit: Unit) -> Callable[[], None]:
        element = self.element(unit)
        saved = copy.deepcopy(element)

        def put_back() -> None:
            current = self.element(unit)
            current.getparent().replace(current, saved)
            self.rebind(unit, saved)
            if self.splice is not None:
                self.splice.same(saved, element)

        return put_back

    def rebind(self, unit: Unit, element: Any) -> None:
        """Point the unit's handle at `element`, which replaced its own (`undo`)."""
        unit.handle.xmlelement = element

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None and not unit.skip:
            source = tt_unit.getlanguageNode(lang=None, index=0)
            if source is not None and len(source):
                unit.skip = "inline markup in the source (<g>, <x/>, <ph>...): left for a translator"
        return unit


__all__ = ["SplicedDocument", "StoreDocument", "XmlDocument", "as_plain", "changed", "forms", "has_markup", "rejection"]
