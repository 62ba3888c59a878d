"""The bilingual XML formats, read with translate-toolkit: a unit without a translation gets one,
marked for review in the format's own way; every other unit keeps its bytes.

    XLIFF 1.2    xliff.xlifffile      <target state="needs-review-translation"> filled
    XLIFF 2.0    xliff2.Xliff2File    <target> filled, segment state="translated" (2.0 has no
                                      review state below "reviewed"/"final")
    Qt .ts       ts2.tsfile           <translation type="unfinished"> filled, kept unfinished;
                                      a numerus message gets every <numerusform> of the target
                                      language (Russian three; the caller's target, else the
                                      file's <TS language>), each the one source's translation

A source holding XLIFF inline elements (<g>, <x/>, <ph>...) is skipped and reported: a
plain-text translation would lose them. A source whose text holds HTML (Qt rich text, escaped
tags in XLIFF) is sent as HTML and its tags are checked (``toolkit``).

What this module does not know: how texts reach the service.
"""

from __future__ import annotations

from typing import Any, List

from lxml import etree
from translate.storage import ts2, xliff, xliff2

from traductor_client.files import plurals
from traductor_client.files.toolkit import XmlDocument
from traductor_client.files.units import FIXED, OBSOLETE, REVIEW, TODO, TRANSLATED


def _append_after(parent: Any, new: Any, after: Any) -> None:
    """Insert ``new`` after ``after``, on a line of its own at the same indentation when ``after``
    stands on a line of its own (the whitespace before it), else right after it."""
    previous = after.getprevious()
    indent = previous.tail if previous is not None else parent.text
    after.addnext(new)
    new.tail = after.tail
    if indent and not indent.strip() and "\n" in indent and "\n" in (after.tail or ""):
        after.tail = indent


class Xliff1Document(XmlDocument):
    kind = "XLIFF 1.2"
    review_word = "needs-review-translation"  # the target's state
    markup_units = True

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
    markup_units = True

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
    """Qt Linguist; a message in Qt rich text (``<html><head/><body><p>...``) goes as HTML."""

    kind = "Qt .ts"
    review_word = "unfinished"
    markup_units = True

    def parse(self, data: bytes) -> Any:
        store = ts2.tsfile.parsestring(data)
        self.language = store.gettargetlanguage() or ""  # <TS language="ru_RU">; the caller's target wins
        return store

    def state(self, tt_unit: Any) -> str:
        if tt_unit.isobsolete():
            return OBSOLETE
        node = tt_unit._gettargetnode()  # (not .target: a numerus one without <numerusform> raises)
        texts = [node] if node is not None else []
        if texts and tt_unit.hasplural():
            texts = node.findall(tt_unit.namespaced("numerusform"))
        if not any((e.text or "").strip() for e in texts):
            return TODO
        return REVIEW if tt_unit.isfuzzy() else TRANSLATED

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where, unit.context = f"message {position + 1}", tt_unit.getcontext()
        return unit

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        """Into the <translation> element as it is: its text, or each <numerusform>'s text, so its
        layout stays (translate-toolkit rebuilds the element)."""
        node = tt_unit._gettargetnode()
        if tt_unit.hasplural():
            for form in self._numerus_forms(node, tt_unit.namespaced("numerusform")):
                for child in list(form):
                    form.remove(child)
                form.text = translations[0]
        else:
            for child in list(node):
                node.remove(child)
            node.text = translations[0]
        tt_unit.markfuzzy(mark_review)

    def _numerus_forms(self, node: Any, tag: str) -> List[Any]:
        """The message's <numerusform>s, as many as the target language has (``plurals``: Russian
        three) where it has fewer: new ones on lines of their own after the last; two when the
        language is unknown and there are none. Forms beyond the language's count are kept."""
        found = node.findall(tag)
        known = plurals.language(self.language)
        if not found:
            node.text = None
        while len(found) < (known.numerus if known else 2):
            new = etree.Element(tag)
            if found:
                _append_after(node, new, found[-1])
            else:
                node.append(new)
            found.append(new)
        return found


__all__ = ["TsDocument", "Xliff1Document", "Xliff2Document"]
