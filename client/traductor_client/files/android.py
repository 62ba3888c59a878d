"""Android ``strings.xml`` (translate-toolkit's ``aresource``, which knows Android's escaping:
``\\'``, ``\\"``, ``\\n``, ``\\@``): the source-language file of an app, translated whole.

- ``<string>`` and every ``<item>`` of ``<plurals>`` and ``<string-array>`` are units;
  translate-toolkit does not read ``<string-array>``, so its items are read here and written
  with the same escaping.
- A ``<plurals>`` translated for a target language of ``plurals.LANGUAGES`` (the caller's
  target: the file does not say its language) carries the source's quantities and every one the
  target uses that the source lacks, added in CLDR's order on lines of their own: for Russian
  ``one``, ``few``, ``many`` and ``other`` (Android picks one/few/many for whole numbers and
  falls back on ``other``, which is therefore always kept; lint's MissingQuantity wants few and
  many). ``one`` gets the singular's translation ("%d файл" serves 1, 21, 31...), unless the
  singular names no number where the target's ``one`` serves many ("One file": the plural's
  translation, as ``plurals.texts``); every added quantity gets the plural's (the ``other``
  item's). A quantity the target does not use (an English ``zero``) is kept, translated. With no
  target named, each item gets its own translation.
- A resource reference (``@string/name``, ``@android:string/ok``, ``@null``, ``?attr/name``) is
  not text: counted "not translatable", untouched, as are ``translatable="false"`` strings.
- A string with inline markup (``<b>``, ``<xliff:g id="user">%1$s</xliff:g>``), or with tags in
  a CDATA section, is sent as HTML: the service keeps its tags, and an ``<xliff:g>`` whole (its
  content is a placeholder or a name). The tags and that content are checked on the translation
  (``placeholders``); then the written string is read back, and one that does not read back as
  the translation (translate-toolkit escapes markup it cannot parse into text) is put back as it
  was and reported rejected. An array item with markup is left for a translator (reported).
- Each <string>/<item> is written in place (``_write``): the element, its attributes, tail and
  line stay, a <plurals>' items stay on their lines (translate-toolkit rebuilt the element), the
  whitespace Android drops around a text stays, and "?"/"@" are escaped only at the start of the
  string, where Android reads a reference.
- Read back as Android reads it (``_read``): translate-toolkit's reader collapses every Unicode
  space, but Android only ASCII whitespace; a no-break space (U+00A0, U+202F, which French puts
  before "?" and ":") is kept, so such a translation is not rejected. A rejection says where the
  read-back differs, in code points (``toolkit.changed``).

What this module does not know: how texts reach the service.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

from lxml import etree
from translate.storage import aresource

from traductor_client.files import placeholders, plurals
from traductor_client.files.errors import FileError
from traductor_client.files.toolkit import XmlDocument, as_plain, changed, has_markup
from traductor_client.files.units import FIXED, TODO, Unit

# a resource reference (@string/name, @android:string/ok, @null, ?attr/name) is not text
_ANDROID_REFERENCE = re.compile(r"\s*(?:@\+?(?:[\w.]+:)?\w+/[\w.]+|@null|\?(?:[\w.]+:)?(?:attr/)?[\w.]+)\s*")


@dataclass
class Strings:
    """A unit's element: a <string>, a <plurals> (its forms: its <item>s) or one <item> of a
    <string-array> (translate-toolkit reads only <string> and <plurals>)."""

    element: Any
    sources: List[str] = field(default_factory=list)  # the forms' texts, as read
    meant: List[Tuple[Any, str, int]] = field(default_factory=list)  # written: (element, text, source form)

    def forms(self) -> List[Any]:
        """The elements holding the unit's texts, in order."""
        if etree.QName(self.element).localname != "plurals":
            return [self.element]
        return [item for item in self.element.iterchildren("item") if "".join(item.itertext()).strip()]


# whitespace Android keeps (aapt2 collapses only ASCII whitespace) but translate-toolkit's reader
# collapses with the rest (its "\s+"): a no-break space before "?" in French read back as a space
_UNICODE_SPACES = "".join(chr(c) for c in range(0x80, 0x3001) if chr(c).isspace())
_PROTECT = {ord(c): 0xF0000 + ord(c) for c in _UNICODE_SPACES}  # a private-use plane
_UNPROTECT = {v: k for k, v in _PROTECT.items()}


def _read(element: Any) -> str:
    """The text of a <string> or <item> as Android reads it: translate-toolkit's reading (escapes
    undone, ASCII whitespace collapsed), the other spaces (U+00A0, U+202F...) kept."""
    raw = etree.tostring(element, encoding="unicode", with_tail=False)
    if raw.translate(_PROTECT) != raw:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, strip_cdata=False)
        element = etree.fromstring(raw.translate(_PROTECT), parser)
    return aresource.AndroidResourceUnit(None, xmlelement=element).source.translate(_UNPROTECT)


def _structure(element: Any) -> tuple:
    """The elements inside a <string>/<item>, and whether it holds a CDATA section."""
    inner = tuple(etree.QName(e).localname for e in element.iter() if e is not element and isinstance(e.tag, str))
    return inner, "<![CDATA[" in etree.tostring(element, encoding="unicode")


# translate-toolkit escapes "?" and "@" at the start of every piece of text between tags; Android
# reads them as a reference only at the start of the whole string
_NEEDLESS_ESCAPE = re.compile(r"^\\([?@])")


def _last_text(element: Any) -> Tuple[Any, str]:
    """(node, "text" or "tail"): where the element's last piece of text is."""
    return (element[-1], "tail") if len(element) else (element, "text")


def _outer_space(element: Any) -> Tuple[str, str]:
    """The whitespace around an element's text that Android drops (not in a CDATA section)."""
    if "<![CDATA[" in etree.tostring(element, encoding="unicode", with_tail=False):
        return "", ""
    node, where = _last_text(element)
    first, last = element.text or "", getattr(node, where) or ""
    lead = re.match(r"[ \t\r\n]*", first)[0]
    trail = re.search(r"[ \t\r\n]*$", last)[0] if last.strip() or len(element) else ""
    return lead, trail


def _put_outer_space(element: Any, lead: str, trail: str) -> None:
    """Put back the whitespace around the text (`_outer_space`) where the new text has none and
    is not quoted (a quoted text's spaces count)."""
    text = element.text or ""
    if lead and text[:1] not in ('"', " ", "\t", "\n", "\r"):
        element.text = lead + text
    node, where = _last_text(element)
    last = getattr(node, where) or ""
    if trail and (len(element) or last) and last[-1:] not in ('"', " ", "\t", "\n", "\r"):
        setattr(node, where, last + trail)


def _write(element: Any, text: str) -> None:
    """Write ``text`` into ``element`` with Android's escaping, keeping the element itself (its
    attributes, tail and place: translate-toolkit replaces an element whose text has markup)."""
    parent, before = element.getparent(), element.getprevious()  # (not parent.index: linear)
    tail, (lead, trail) = element.tail, _outer_space(element)
    aresource.AndroidResourceUnit(None, xmlelement=element).set_xml_text_value(text, element)
    written = before.getnext() if before is not None else parent[0]
    if written is not element:
        for child in list(element):
            element.remove(child)
        element.text = written.text
        for child in list(written):
            element.append(child)
        parent.replace(written, element)
    element.tail = tail
    if lead or trail:
        _put_outer_space(element, lead, trail)
    for position, node in enumerate(element.iterdescendants()):
        if node.text and isinstance(node.tag, str) and (position or element.text):
            node.text = _NEEDLESS_ESCAPE.sub(r"\1", node.text)
        if node.tail:
            node.tail = _NEEDLESS_ESCAPE.sub(r"\1", node.tail)


class AndroidDocument(XmlDocument):
    kind = "Android strings.xml"

    def __init__(self, data: bytes, name: str) -> None:
        self.cdata: set = set()  # the units whose markup is in a CDATA section (raw text, not XML)
        self.structures: dict = {}  # id(unit) -> each form's `_structure` as read
        super().__init__(data, name)
        root = self.store.document.getroot()
        for array in root.iterchildren("string-array"):
            state = FIXED if array.get("translatable") == "false" else TODO
            for index, item in enumerate(array.iterchildren("item")):
                if not "".join(item.itertext()).strip():
                    continue
                unit = Unit(f'name "{array.get("name")}" item {index + 1}', len(self.units), [_read(item)], state)
                unit.handle = Strings(item)
                self._classify(unit)
                if unit.format == "html":
                    unit.skip = unit.skip or "inline markup in a string-array item: left for a translator"
                self.units.append(unit)

    def parse(self, data: bytes) -> Any:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        if etree.QName(etree.fromstring(data, parser)).localname != "resources":
            raise FileError(f"{self.name}: not an Android resource file (the root element is not <resources>)")
        return aresource.AndroidResourceFile.parsestring(data)

    def state(self, tt_unit: Any) -> str:
        return TODO if tt_unit.istranslatable() else FIXED

    def _classify(self, unit: Unit) -> None:
        """A reference is not translatable; markup makes the unit HTML; ICU is left whole."""
        forms = unit.handle.forms()
        self.structures[id(unit)] = [_structure(element) for element in forms]
        if all(_ANDROID_REFERENCE.fullmatch(source) for source in unit.sources):
            unit.state = FIXED
        for element in forms:
            nested = any(len(node) for node in element.iter())
            cdata = not nested and "<![CDATA[" in etree.tostring(element, encoding="unicode")
            if nested or (cdata and any(has_markup(s) for s in unit.sources)):
                unit.format = "html"
                if cdata:
                    self.cdata.add(id(unit))
        unit.skip = unit.skip or next((placeholders.unsafe(s) for s in unit.sources if placeholders.unsafe(s)), "")

    def unit(self, tt_unit: Any, position: int) -> Any:
        handle = Strings(tt_unit.xmlelement)
        sources = handle.sources = [_read(element) for element in handle.forms()]
        if not sources or not any(source.strip() for source in sources):
            return None
        unit = Unit(f'name "{tt_unit.getid()}"', position, sources, state=self.state(tt_unit), handle=handle)
        self._classify(unit)
        return unit

    def from_service(self, unit: Unit, translation: str) -> str:
        """Markup inside the element is XML: the service's escaping is the file's. In a CDATA
        section it is raw text: "&" and "<" come back as characters."""
        return as_plain(unit.sources[0], translation) if id(unit) in self.cdata else translation

    def element(self, unit: Unit) -> Any:
        return unit.handle.element

    def rebind(self, unit: Unit, element: Any) -> None:
        unit.handle.element = element

    def written(self, unit: Unit, translations: List[str]) -> Optional[str]:
        """The string read back must hold the same elements (and CDATA) as the source's, and the
        translation as its text: translate-toolkit escapes markup it cannot parse into text."""
        structures = self.structures[id(unit)]
        for element, _, form in unit.handle.meant:
            if _structure(element) != structures[form]:
                inner, cdata = _structure(element)
                return f"its markup became text (read back: {len(inner)} elements{', CDATA' if cdata else ''})"
        return changed([text for _, text, _ in unit.handle.meant], [_read(e) for e, _, _ in unit.handle.meant])

    def write(self, handle: Any, translations: List[str], mark_review: bool) -> None:
        handle.meant = [(element, text, form) for form, (element, text) in enumerate(zip(handle.forms(), translations))]
        known = plurals.language(self.language)
        if known is not None and etree.QName(handle.element).localname == "plurals":
            handle.meant = _target_quantities(handle, handle.meant, known)
        for element, text, _ in handle.meant:
            _write(element, text)


def _target_quantities(handle: Strings, meant: list, known: plurals.Language) -> list:
    """(item, text, source form) of a <plurals> for the target language: an <item> added (on a
    line of its own, in CLDR's order) for each of its quantities the source lacks; "one" gets the
    singular's translation where ``plurals.singular_for_one`` says so, else the plural's, as
    every added or empty item does; the source's other items keep their own."""
    plurals_element, order = handle.element, plurals.CATEGORIES
    by_quantity = {element.get("quantity"): (element, text, form) for element, text, form in meant}
    other = by_quantity.get("other", meant[-1])
    one = by_quantity.get("one")
    if one is not None and not plurals.singular_for_one(known, handle.sources[one[2]], handle.sources[other[2]]):
        one = other
    items = {item.get("quantity"): item for item in plurals_element.iterchildren("item")}
    for quantity in known.quantities:
        if quantity in items or quantity not in order:
            continue
        new = etree.Element("item", quantity=quantity)
        before = [item for q, item in items.items() if q in order and order.index(q) < order.index(quantity)]
        after = before[-1] if before else None
        if after is None:  # first: before the first item, at its indentation
            first = next(plurals_element.iterchildren("item"))
            new.tail = plurals_element.text
            first.addprevious(new)
        else:
            new.tail, previous = after.tail, after.getprevious()
            after.addnext(new)
            after.tail = previous.tail if previous is not None else plurals_element.text
        items = {item.get("quantity"): item for item in plurals_element.iterchildren("item")}
    out = []
    for item in plurals_element.iterchildren("item"):
        quantity = item.get("quantity")
        own = next((entry for entry in meant if entry[0] is item), None)
        if quantity == "one" and one is not None:
            out.append((item, *one[1:]))
        elif own is not None:
            out.append(own)
        elif quantity in known.quantities:  # added, or empty in the source
            out.append((item, *(one if quantity == "one" and one is not None else other)[1:]))
    return out


__all__ = ["AndroidDocument", "Strings"]
