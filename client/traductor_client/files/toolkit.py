"""Every format but gettext, read and written with translate-toolkit (the library Weblate and
Pootle build on) as a file-translation document (``files.job``).

    XLIFF 1.2    xliff.xlifffile      bilingual: <target> filled, state="needs-review-translation"
    XLIFF 2.0    xliff2.Xliff2File    bilingual: <target> filled, segment state="translated"
                                      (2.0 has no review state below "reviewed"/"final")
    Qt .ts       ts2.tsfile           bilingual: <translation type="unfinished"> filled, kept unfinished
    Android      aresource            monolingual: every <string>/<plurals> translated; no review mark
    JSON         jsonl10n             monolingual, flat or nested (i18next): every string value
    SubRip .srt  subtitles (aeidon)   monolingual: every cue's text; numbers and timings kept
    text         txt                  monolingual: every paragraph (blank-line separated)
    HTML         html                 monolingual: every block's text, inline markup inside
    Markdown     markdown (mistletoe) monolingual: every block's text, links and code kept

A bilingual file keeps its translated units; a monolingual one (the source file of a program)
is translated whole. The XML formats are written back by serializing the parsed tree as it is
(translate-toolkit re-indents the whole document when it saves), so everything outside the
filled units keeps its bytes, apart from what XML itself does not keep (a character reference
comes back as the character, quotes in attributes are normalized).

What this module does not know: how texts reach the service, and the limits (``formats``
checks the size and XML safety before anything here parses).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, List, Tuple

from lxml import etree
from translate.misc.multistring import multistring
from translate.misc.xml_helpers import extract_xml_prolog
from translate.storage import aresource, jsonl10n, ts2, txt, xliff, xliff2

from traductor_client.files import placeholders
from traductor_client.files.errors import FileError
from traductor_client.files.units import FIXED, OBSOLETE, REVIEW, TODO, TRANSLATED, Unit


def _forms(value: Any) -> List[str]:
    if isinstance(value, multistring):
        return [str(s) for s in value.strings]
    return [str(value)] if value is not None else []


def _rejection(reason: str, translations: List[str]) -> Tuple[str, str]:
    return "rejected", f"{reason} (translation: {json.dumps(' | '.join(translations), ensure_ascii=False)})"


class StoreDocument:
    """A translate-toolkit store as a document: subclasses say how to parse it, what a unit's
    state is and how a translation is written."""

    kind = ""
    review_word = ""  # a monolingual format has no way to mark a translation for review
    review_flag = "--include-review"

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name = data, name
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

    def render(self, filled: List[Unit]) -> bytes:
        return bytes(self.store)

    # -- the document -----------------------------------------------------------------------------
    def unit(self, tt_unit: Any, position: int) -> Any:
        if tt_unit.isheader() or not isinstance(tt_unit.source, str) or not tt_unit.source.strip():
            return None
        sources = _forms(tt_unit.source)
        element = getattr(tt_unit, "xmlelement", None)
        where = (element.get("id") if element is not None else None) or tt_unit.getid() or f"unit {position + 1}"
        unit = Unit(f'id "{where}"', position, sources, state=self.state(tt_unit), handle=tt_unit)
        unit.skip = next((placeholders.unsafe(s) for s in sources if placeholders.unsafe(s)), "")
        return unit

    def fill(self, unit: Unit, translations: List[str], mark_review: bool) -> Tuple[str, str]:
        reason = placeholders.problems(unit.sources, translations, tags=unit.format == "html")
        if reason:
            return _rejection(reason, translations)
        self.write(unit.handle, translations, mark_review)
        return "filled", ""


class XmlDocument(StoreDocument):
    """An XML store, written back from its parsed tree with its own prolog (see the module)."""

    def render(self, filled: List[Unit]) -> bytes:
        root = self.store.document.getroot()
        encoding = self.store.document.docinfo.encoding or "UTF-8"
        body = etree.tostring(root, encoding="unicode").encode(encoding, "xmlcharrefreplace")
        prolog = extract_xml_prolog(self.data)
        ending = self.data[len(self.data.rstrip()) :]
        return prolog + body + ending

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None and not unit.skip:
            source = tt_unit.getlanguageNode(lang=None, index=0)
            if source is not None and len(source):
                unit.skip = "inline markup in the source (<g>, <x/>, <ph>...): left for a translator"
        return unit


def _append_after(parent: Any, new: Any, after: Any) -> None:
    """Insert ``new`` after ``after`` with the same indentation."""
    after.addnext(new)
    new.tail, after.tail = after.tail, after.tail


class Xliff1Document(XmlDocument):
    kind = "XLIFF 1.2"
    review_word = "needs-review-translation"  # the target's state

    def parse(self, data: bytes) -> Any:
        return xliff.xlifffile.parsestring(data)

    def _target(self, tt_unit: Any) -> Any:
        return tt_unit.getlanguageNode(lang=None, index=1)

    def state(self, tt_unit: Any) -> str:
        if tt_unit.xmlelement.xpath("ancestor-or-self::*[@translate='no']"):  # the unit's, or a <group>'s
            return FIXED
        target = self._target(tt_unit)
        if target is None or not "".join(target.itertext()).strip():
            return TODO
        state = target.get("state", "")
        if state in ("new", "needs-translation"):
            return TODO
        return REVIEW if state.startswith("needs-") else TRANSLATED

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        element, approved = tt_unit.xmlelement, tt_unit.xmlelement.get("approved")
        source = tt_unit.getlanguageNode(lang=None, index=0)
        target = self._target(tt_unit)
        if target is None:  # after <seg-source> when there is one: the schema's order
            target = etree.Element(source.tag.replace("source", "target"))
            segmented = element.find(source.tag.replace("source", "seg-source"))
            _append_after(element, target, source if segmented is None else segmented)
        for child in list(target):
            target.remove(child)
        target.text = translations[0]
        target.set("state", "needs-review-translation" if mark_review else "translated")
        if approved is None and "approved" in element.attrib:
            del element.attrib["approved"]


class Xliff2Document(XmlDocument):
    kind = "XLIFF 2.0"
    review_word = "translated"  # state="translated" subState="traductor:machine-translation"

    def parse(self, data: bytes) -> Any:
        return xliff2.Xliff2File.parsestring(data)

    def state(self, tt_unit: Any) -> str:
        if tt_unit.xmlelement.xpath("ancestor-or-self::*[@translate='no']"):  # a unit's, <group>'s, <file>'s
            return FIXED
        target = tt_unit.getlanguageNode(lang=None, index=1)
        if target is None or not "".join(target.itertext()).strip():
            return TODO
        return TRANSLATED

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        segment = tt_unit.xmlelement
        source = tt_unit.getlanguageNode(lang=None, index=0)
        target = tt_unit.getlanguageNode(lang=None, index=1)
        if target is None:
            target = etree.Element(source.tag.replace("source", "target"))
            _append_after(segment, target, source)
        target.text = translations[0]
        segment.set("state", "translated")
        if mark_review:
            segment.set("subState", "traductor:machine-translation")


class TsDocument(XmlDocument):
    kind = "Qt .ts"
    review_word = "unfinished"
    review_flag = "--include-unfinished"

    def parse(self, data: bytes) -> Any:
        return ts2.tsfile.parsestring(data)

    def state(self, tt_unit: Any) -> str:
        if tt_unit.isobsolete():
            return OBSOLETE
        if not any(s.strip() for s in _forms(tt_unit.target)):
            return TODO
        return REVIEW if tt_unit.isfuzzy() else TRANSLATED

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where, unit.context = f"message {position + 1}", tt_unit.getcontext()
        return unit

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        node = tt_unit._gettargetnode()
        tail = node.tail if node is not None else None  # translate-toolkit drops the line break after it
        if tt_unit.hasplural():
            forms = max(2, len(node.findall(tt_unit.namespaced("numerusform"))) if node is not None else 2)
            tt_unit.target = multistring([translations[0]] * forms)
        else:
            tt_unit.target = translations[0]
        tt_unit.markfuzzy(mark_review)
        if tail is not None:
            tt_unit._gettargetnode().tail = tail


# a resource reference (@string/name, @android:string/ok, @null, ?attr/name) is not text
_ANDROID_REFERENCE = re.compile(r"\s*(?:@\+?(?:[\w.]+:)?\w+/[\w.]+|@null|\?(?:[\w.]+:)?(?:attr/)?[\w.]+)\s*")


@dataclass
class ArrayItem:
    """An <item> of a <string-array> (translate-toolkit reads only <string> and <plurals>)."""

    element: Any


class AndroidDocument(XmlDocument):
    """<string>, <plurals> and <string-array> items. A resource reference is not translatable; a
    string with inline markup (<b>, <xliff:g>...) is sent as HTML and its tags are checked; the
    line break after a filled string stays (translate-toolkit rebuilds the element without it)."""

    kind = "Android strings.xml"

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data, name)
        root = self.store.document.getroot()
        for array in root.iterchildren("string-array"):
            state = FIXED if array.get("translatable") == "false" else TODO
            for index, item in enumerate(array.iterchildren("item")):
                text = "".join(item.itertext())
                if not text.strip():
                    continue
                source = aresource.AndroidResourceUnit(None, xmlelement=item).source
                unit = Unit(f'name "{array.get("name")}" item {index + 1}', len(self.units), [source], state)
                unit.handle = ArrayItem(item)
                self._classify(unit, item)
                self.units.append(unit)

    def parse(self, data: bytes) -> Any:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        if etree.QName(etree.fromstring(data, parser)).localname != "resources":
            raise FileError(f"{self.name}: not an Android resource file (the root element is not <resources>)")
        return aresource.AndroidResourceFile.parsestring(data)

    def state(self, tt_unit: Any) -> str:
        return TODO if tt_unit.istranslatable() else FIXED

    def _classify(self, unit: Unit, element: Any) -> None:
        """A reference is not translatable; markup makes the unit HTML; ICU is left whole."""
        if all(_ANDROID_REFERENCE.fullmatch(source) for source in unit.sources):
            unit.state = FIXED
        if any(len(node) for node in element.iter()):
            if isinstance(unit.handle, ArrayItem):
                unit.skip = "inline markup in a string-array item: left for a translator"
            unit.format = "html"
        unit.skip = unit.skip or next((placeholders.unsafe(s) for s in unit.sources if placeholders.unsafe(s)), "")

    def unit(self, tt_unit: Any, position: int) -> Any:
        if not isinstance(tt_unit.source, str) or not tt_unit.source.strip():
            return None
        sources = _forms(tt_unit.source)
        unit = Unit(f'name "{tt_unit.getid()}"', position, sources, state=self.state(tt_unit), handle=tt_unit)
        self._classify(unit, tt_unit.xmlelement)
        return unit

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        if isinstance(tt_unit, ArrayItem):  # escaped as a <string> would be, into the <item>
            written = aresource.AndroidResourceUnit("")
            written.target = translations[0]
            tt_unit.element.text = written.xmlelement.text
            return
        tail = tt_unit.xmlelement.tail
        super().write(tt_unit, translations, mark_review)
        tt_unit.xmlelement.tail = tail


def json_layout(text: str) -> dict:
    """json.dumps arguments that lay a file out as ``text`` was: its indentation (that of its
    first indented line), or all on one line with its own separators. translate-toolkit writes
    four spaces whatever the file had, which would change every line of a two-space file."""
    indented = re.search(r"\n([ \t]+)\S", text)
    if indented:
        return {"indent": indented[1], "separators": (",", ": ")}
    key = ": " if re.search(r'"\s*:\s', text) else ":"
    return {"indent": None, "separators": (", " if re.search(r",\s", text) else ",", key)}


class JsonDocument(StoreDocument):
    """Flat or nested JSON (i18next), written back with the file's own indentation and ending."""

    kind = "JSON"

    def parse(self, data: bytes) -> Any:
        try:
            text = data.decode("utf-8-sig")
            json.loads(text)
        except UnicodeDecodeError as error:
            raise FileError(f"{self.name}: not UTF-8 JSON ({error})") from None
        except ValueError as error:
            raise FileError(f"{self.name}: not valid JSON ({error})") from None
        store = jsonl10n.JsonNestedFile.parsestring(data)
        store.dump_args.update(json_layout(text))
        return store

    def render(self, filled: List[Unit]) -> bytes:
        return bytes(self.store).rstrip(b"\n") + self.data[len(self.data.rstrip()) :]

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where = f'key "{tt_unit.getid().lstrip(".")}"'
        return unit


class SubRipDocument(StoreDocument):
    kind = "SubRip .srt"

    def parse(self, data: bytes) -> Any:
        from translate.storage import subtitles  # needs aeidon, only for this format

        text = data.decode("utf-8-sig")
        if "-->" not in text:
            raise FileError(f"{self.name}: not a SubRip file (no 'start --> end' timing line)")
        store = subtitles.SubRipFile()
        store.parse(io.BytesIO(text.encode("utf-8")))
        return store

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where, unit.format = f"cue {position + 1} ({tt_unit.getid()})", "html"
        return unit


class TextDocument(StoreDocument):
    kind = "text"

    def parse(self, data: bytes) -> Any:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FileError(f"{self.name}: not UTF-8 text ({error})") from None
        store = txt.TxtFile()
        store.parse(data)
        return store

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where = f"line {tt_unit.getlocations()[0].lstrip(':')}"
        return unit

    def render(self, filled: List[Unit]) -> bytes:
        return bytes(self.store).rstrip(b"\n") + self.data[len(self.data.rstrip(b"\n")) :]


class CallbackDocument(StoreDocument):
    """HTML and Markdown: translate-toolkit reads these in one pass that calls back for every
    text and writes the result as it goes. The first pass (parse) records the texts; render
    runs it again, answering each text with its translation (or the text itself)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.translations: dict = {}
        super().__init__(data, name)

    def run(self, data: bytes, callback: Callable[[str], str]) -> Any:
        raise NotImplementedError

    def parse(self, data: bytes) -> Any:
        return self.run(data, lambda text: text)

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where = f"block {position + 1}"
        return unit

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        self.translations[tt_unit.source] = translations[0]

    def render(self, filled: List[Unit]) -> bytes:
        store = self.run(self.data, lambda text: self.translations.get(text, text))
        return store.filesrc.encode("utf-8")


MAX_HTML_DEPTH = 256  # elements open at once (libxml2's own limit for XML)


class HtmlDocument(CallbackDocument):
    kind = "HTML"

    def run(self, data: bytes, callback: Callable[[str], str]) -> Any:
        from translate.storage import html

        name = self.name

        class HtmlFile(html.htmlfile):
            """translate-toolkit's reader, which also leaves alone elements marked translate="no"
            (HTML's own attribute; the reader knows only its data-translate-ignore) and refuses
            elements nested deeper than MAX_HTML_DEPTH (its work per element grows with the
            depth: 4,000 nested <div> took 7 s, 100,000 did not end in 10 minutes)."""

            def handle_starttag(self, tag: str, attrs: list) -> None:
                if any(k == "translate" and (v or "").strip().lower() == "no" for k, v in attrs):
                    self.suspend_translation_unit_for_ignored_content()
                    self.ignore_depth += 1
                    self.ignore_tag_stack.append(tag)
                super().handle_starttag(tag, attrs)
                if len(self.tag_path) > MAX_HTML_DEPTH:
                    line = self.getpos()[0]
                    raise FileError(f"{name}: line {line}: elements nested more than {MAX_HTML_DEPTH} deep")

        return HtmlFile(inputfile=io.BytesIO(data), callback=callback)

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.format = "html"
        return unit


class MarkdownDocument(CallbackDocument):
    kind = "Markdown"

    def run(self, data: bytes, callback: Callable[[str], str]) -> Any:
        from translate.storage import markdown  # needs mistletoe, only for this format

        return markdown.MarkdownFile(inputfile=io.BytesIO(data), callback=callback, extract_code_blocks=False)


__all__ = [name for name in dir() if name.endswith("Document")]
