"""Android ``strings.xml`` (translate-toolkit's ``aresource``, which knows Android's escaping:
``\\'``, ``\\"``, ``\\n``, ``\\@``): the source-language file of an app, translated whole.

- ``<string>`` and every ``<item>`` of ``<plurals>`` and ``<string-array>`` are units;
  translate-toolkit does not read ``<string-array>``, so its items are read here and written
  with the same escaping.
- A resource reference (``@string/name``, ``@android:string/ok``, ``@null``, ``?attr/name``) is
  not text: counted "not translatable", untouched, as are ``translatable="false"`` strings.
- A string with inline markup (``<b>``, ``<xliff:g id="user">%1$s</xliff:g>``), or with tags in
  a CDATA section, is sent as HTML: the service keeps its tags, and an ``<xliff:g>`` whole (its
  content is a placeholder or a name). The tags and that content are checked on the translation
  (``placeholders``); then the written string is read back, and one that does not read back as
  the translation (translate-toolkit escapes markup it cannot parse into text) is put back as it
  was and reported rejected. An array item with markup is left for a translator (reported).
- The line break after a filled element stays (translate-toolkit rebuilds it without).

What this module does not know: how texts reach the service.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Optional

from lxml import etree
from translate.storage import aresource

from traductor_client.files import placeholders
from traductor_client.files.errors import FileError
from traductor_client.files.toolkit import XmlDocument, as_plain, forms, has_markup
from traductor_client.files.units import FIXED, TODO, Unit

# a resource reference (@string/name, @android:string/ok, @null, ?attr/name) is not text
_ANDROID_REFERENCE = re.compile(r"\s*(?:@\+?(?:[\w.]+:)?\w+/[\w.]+|@null|\?(?:[\w.]+:)?(?:attr/)?[\w.]+)\s*")


@dataclass
class ArrayItem:
    """An <item> of a <string-array> (translate-toolkit reads only <string> and <plurals>)."""

    element: Any


def _read(element: Any) -> str:
    """The text of a <string> or <item> as translate-toolkit reads it (escapes undone)."""
    return aresource.AndroidResourceUnit(None, xmlelement=element).source


def _structure(element: Any) -> tuple:
    """The elements inside a <string>/<plurals>/<item>, and whether it holds a CDATA section."""
    inner = tuple(etree.QName(e).localname for e in element.iter() if e is not element and isinstance(e.tag, str))
    return inner, "<![CDATA[" in etree.tostring(element, encoding="unicode")


class AndroidDocument(XmlDocument):
    kind = "Android strings.xml"

    def __init__(self, data: bytes, name: str) -> None:
        self.cdata: set = set()  # the units whose markup is in a CDATA section (raw text, not XML)
        self.structures: dict = {}  # id(unit) -> its element's `_structure` as read
        super().__init__(data, name)
        root = self.store.document.getroot()
        for array in root.iterchildren("string-array"):
            state = FIXED if array.get("translatable") == "false" else TODO
            for index, item in enumerate(array.iterchildren("item")):
                if not "".join(item.itertext()).strip():
                    continue
                unit = Unit(f'name "{array.get("name")}" item {index + 1}', len(self.units), [_read(item)], state)
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
        self.structures[id(unit)] = _structure(element)
        if all(_ANDROID_REFERENCE.fullmatch(source) for source in unit.sources):
            unit.state = FIXED
        nested = any(len(node) for node in element.iter())
        cdata = not nested and "<![CDATA[" in etree.tostring(element, encoding="unicode")
        if nested or (cdata and any(has_markup(s) for s in unit.sources)):
            if isinstance(unit.handle, ArrayItem):
                unit.skip = "inline markup in a string-array item: left for a translator"
            unit.format = "html"
            if cdata:
                self.cdata.add(id(unit))
        unit.skip = unit.skip or next((placeholders.unsafe(s) for s in unit.sources if placeholders.unsafe(s)), "")

    def unit(self, tt_unit: Any, position: int) -> Any:
        if not isinstance(tt_unit.source, str) or not tt_unit.source.strip():
            return None
        sources = forms(tt_unit.source)
        unit = Unit(f'name "{tt_unit.getid()}"', position, sources, state=self.state(tt_unit), handle=tt_unit)
        self._classify(unit, tt_unit.xmlelement)
        return unit

    def from_service(self, unit: Unit, translation: str) -> str:
        """Markup inside the element is XML: the service's escaping is the file's. In a CDATA
        section it is raw text: "&" and "<" come back as characters."""
        return as_plain(unit.sources[0], translation) if id(unit) in self.cdata else translation

    def element(self, unit: Unit) -> Any:
        return unit.handle.element if isinstance(unit.handle, ArrayItem) else unit.handle.xmlelement

    def rebind(self, unit: Unit, element: Any) -> None:
        if isinstance(unit.handle, ArrayItem):
            unit.handle.element = element
        else:
            unit.handle.xmlelement = element

    def written(self, unit: Unit, translations: List[str]) -> Optional[str]:
        """The string read back must hold the same elements (and CDATA) as the source's, and the
        translation as its text: translate-toolkit escapes markup it cannot parse into text."""
        element = self.element(unit)
        if _structure(element) != self.structures[id(unit)]:
            inner, cdata = _structure(element)
            return f"its markup became text (read back: {len(inner)} elements{', CDATA' if cdata else ''})"
        back = [_read(element)] if isinstance(unit.handle, ArrayItem) else forms(unit.handle.target)
        return None if back == translations else f"read back as {' | '.join(back)!r}"

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        if isinstance(tt_unit, ArrayItem):  # escaped as a <string> would be, into the <item>
            written = aresource.AndroidResourceUnit("")
            written.target = translations[0]
            tt_unit.element.text = written.xmlelement.text
            return
        tail = tt_unit.xmlelement.tail
        super().write(tt_unit, translations, mark_review)
        tt_unit.xmlelement.tail = tail


__all__ = ["AndroidDocument", "ArrayItem"]
