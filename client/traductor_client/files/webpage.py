"""HTML documents (and what Markdown's, markdown.py, share with them), read with translate-toolkit:
one unit per block, its inline markup inside, translated whole.

translate-toolkit reads these in one pass that calls back for every text and writes the result
as it goes. The first pass (parse) records the texts; render runs it again, answering each text
with its translation (or the text itself).

- HTML: every block (``<p>``, ``<li>``, ``<h1>``, ``<title>``...) is sent with format=html,
  and so are the attributes people see or hear (``traductor_client.markup.shown_attributes``:
  ``title``, ``alt``, ``aria-label``, ``placeholder``, a button's ``value``...) of the tags
  outside a block's text (a tag inside it goes with the block, and the service translates its
  attributes by the same rule); ``<html lang>`` is set to the target language. Every tag is
  written as it was (translate-toolkit rebuilds them: quotes, case, ``<br />``), with only
  those attributes' values replaced. Which elements are never translated is
  ``traductor_client.markup``'s rule, the service's too: a kept block (``<pre>``, ``<script>``,
  ``<style>``) or any element marked ``translate="no"`` (or translate-toolkit's
  ``data-translate-ignore``) is not a unit at all; an inline one (``<code>``, ``<kbd>``) stays
  in its block's unit, which the service keeps verbatim and the checks compare, and its text
  is not text to translate (a block holding only ``<code>`` is no unit).
- Markdown (markdown.py): a block's text goes to the service as HTML (``markdown_inline``):
  emphasis, links and code spans come back as they were, or the unit is rejected with the reason.

What this module does not know: how texts reach the service.
"""

from __future__ import annotations

import io
import re
from typing import Any, Callable, Dict, List

from traductor_client import markup
from traductor_client.files.errors import FileError
from traductor_client.files.language import tag
from traductor_client.files.toolkit import StoreDocument
from traductor_client.files.units import Unit

MAX_HTML_DEPTH = 256  # elements open at once (libxml2's own limit for XML)


class CallbackDocument(StoreDocument):
    """A document translate-toolkit reads and writes in one pass of callbacks (module docstring)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.translations: dict = {}
        super().__init__(data, name)

    def run(self, data: bytes, callback: Callable[[str], str], language: str = "") -> Any:
        """Read (callback: the identity) or write (callback: the translations) the document;
        ``language``: the target's code, where the format says the document's language."""
        raise NotImplementedError

    def parse(self, data: bytes) -> Any:
        return self.run(data, lambda text: text)

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where, unit.format = f"block {position + 1}", "html"
        return unit

    def from_service(self, unit: Unit, translation: str) -> str:
        return translation  # HTML in, HTML out

    def write(self, tt_unit: Any, translations: List[str], mark_review: bool) -> None:
        self.translations[tt_unit.source] = translations[0]

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        store = self.run(self.data, lambda text: self.translations.get(text, text), language)
        return store.filesrc.encode("utf-8")


class HtmlDocument(CallbackDocument):
    kind = "HTML"

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        store = self.run(self.data, lambda text: self.translations.get(text, text), language)
        return store.filesrc.encode(store.encoding, "xmlcharrefreplace")  # the charset it was read in

    def run(self, data: bytes, callback: Callable[[str], str], language: str = "") -> Any:
        from translate.storage import html

        name, lang = self.name, tag(language)

        class HtmlFile(html.htmlfile):
            """translate-toolkit's reader, which also leaves alone the blocks that are never
            translated (`markup`: <pre> was a unit of its own) and elements marked
            translate="no" (HTML's own attribute; the reader knows only its
            data-translate-ignore), and refuses elements nested deeper than MAX_HTML_DEPTH (its
            work per element grows with the depth: 100,000 nested <div> did not end in 10 minutes)."""

            TRANSLATABLE_ELEMENTS = [t for t in html.htmlfile.TRANSLATABLE_ELEMENTS if t not in markup.KEPT]
            # HTML's whitespace (its "\\s+" also took a no-break space, which HTML shows)
            WHITESPACE_RE = re.compile(r"[ \t\n\r\f]+")
            LEADING_WHITESPACE_RE = re.compile(r"^([ \t\n\r\f]+)")
            TRAILING_WHITESPACE_RE = re.compile(r"([ \t\n\r\f]+)$")
            kept_inline = 0  # open inline kept elements (<code>...): their text is not a unit's text
            new_values: Dict[str, str] = {}  # the attributes of the tag being read: name -> new value
            text, line_starts = "", [0]

            def feed(self, data: str) -> None:
                self.text, self.line_starts = data, [0] + [m.end() for m in re.finditer("\n", data)]
                super().feed(data)

            def extract_translatable_attributes(self, tag: str, attrs: list) -> list:
                if self.is_extraction_ignored():
                    return []
                values = {k: v or "" for k, v in attrs}
                units = (self.create_attribute_tu(a, values[a]) for a in markup.shown_attributes(tag, values))
                return [unit for unit in units if unit]

            def translate_attributes(self, tag: str, attrs: list) -> list:
                """Only records the new values (`append_markup` writes them into the tag as written)."""
                values = {k: v or "" for k, v in attrs}
                self.new_values = {}
                for attribute in markup.shown_attributes(tag, values):
                    text = self.WHITESPACE_RE.sub(" ", values[attribute]).strip()
                    new = self.translate_value(text, location=self.get_attribute_location(attribute))
                    if new != text:
                        self.new_values[attribute] = new
                if markup.language_attribute(tag) and lang and not self.is_extraction_ignored():
                    self.new_values[markup.language_attribute(tag)] = lang
                return attrs

            def append_markup(self, item: dict) -> None:
                """Tags as written: a start tag with its new attribute values, an end tag's own
                characters (translate-toolkit rebuilds both)."""
                if item["type"] in ("starttag", "startendtag"):
                    written = self.get_starttag_text() or item["untranslated_html"]
                    item["untranslated_html"] = written
                    item["html_content"] = markup.with_attributes(written, self.new_values)
                    self.new_values = {}
                elif item["type"] == "endtag":
                    line, column = self.getpos()
                    found = re.compile(r"</[^>]*>").match(self.text, self.line_starts[line - 1] + column)
                    item["html_content"] = found.group(0) if found else item["html_content"]
                super().append_markup(item)

            def handle_starttag(self, tag: str, attrs: list) -> None:
                values = {k: v or "" for k, v in attrs}
                if tag in markup.KEPT_BLOCKS or values.get("translate", "").strip().lower() == "no":
                    self.suspend_translation_unit_for_ignored_content()
                    self.ignore_depth += 1
                    self.ignore_tag_stack.append(tag)
                super().handle_starttag(tag, attrs)
                self.kept_inline += tag in markup.KEPT and tag not in markup.VOID
                if len(self.tag_path) > MAX_HTML_DEPTH:
                    line = self.getpos()[0]
                    raise FileError(f"{name}: line {line}: elements nested more than {MAX_HTML_DEPTH} deep")

            def handle_endtag(self, tag: str) -> None:
                super().handle_endtag(tag)
                if tag in markup.KEPT and self.kept_inline:
                    self.kept_inline -= 1

            def handle_data(self, data: str) -> None:
                """Inside <code> the text is markup: a unit holding only a <code> is no unit (the
                reader took its text without the tags, and it was translated)."""
                if not self.kept_inline:
                    return super().handle_data(data)
                self.auto_close_empty_element()
                self.append_markup({"type": "kept", "html_content": data})

        return HtmlFile(inputfile=io.BytesIO(data), callback=callback)


__all__ = ["CallbackDocument", "HtmlDocument"]
