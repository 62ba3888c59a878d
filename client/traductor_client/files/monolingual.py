"""The monolingual text formats, read with translate-toolkit: a program's source-language file,
translated whole, its structure kept.

    JSON         jsonl10n     flat or nested (i18next): every string value; keys, order, numbers
                              kept; the file's own indentation and final newline
    SubRip .srt  subtitles    every cue's text, sent as HTML (<i>, <b>, <font> stay around their
                              words); numbers and timings kept
    text         txt          every paragraph (blank-line separated); blank lines kept

A JSON string holding tags ("Click <b>here</b>") is sent as HTML and its tags are checked
(``toolkit``); i18next's numbered tags (``<1>...</1>``) are checked as placeholders.

What this module does not know: how texts reach the service.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, List, Optional

from translate.storage import jsonl10n, txt

from traductor_client.files.errors import FileError
from traductor_client.files.textsplice import Places, Span
from traductor_client.files.toolkit import SplicedDocument
from traductor_client.files.units import Unit


def json_layout(text: str) -> dict:
    """json.dumps arguments that lay a file out as ``text`` was: its indentation (that of its
    first indented line), or all on one line with its own separators. translate-toolkit writes
    four spaces whatever the file had, which would change every line of a two-space file."""
    indented = re.search(r"\n([ \t]+)\S", text)
    if indented:
        return {"indent": indented[1], "separators": (",", ": ")}
    key = ": " if re.search(r'"\s*:\s', text) else ":"
    return {"indent": None, "separators": (", " if re.search(r",\s", text) else ",", key)}


_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"(\s*:)?')


def _newlines(translation: str, original: str) -> str:
    """A translation's line breaks as the original stretch wrote them ("\r\n" or "\n")."""
    return translation.replace("\n", "\r\n") if "\r\n" in original else translation


class JsonDocument(SplicedDocument):
    """Flat or nested JSON (i18next): each filled value's string replaced where it stands, the
    rest as written (indentation, key order, escapes); translate-toolkit writes it when a value
    cannot be found (then with the file's indentation, ``json_layout``)."""

    kind = "JSON"
    markup_units = True

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

    def toolkit_render(self) -> bytes:
        return bytes(self.store).rstrip(b"\n") + self.data[len(self.data.rstrip()) :]

    def unit(self, tt_unit: Any, position: int) -> Any:
        unit = super().unit(tt_unit, position)
        if unit is not None:
            unit.where = f'key "{tt_unit.getid().lstrip(".")}"'
        return unit

    def place(self, places: Places, unit: Unit, after: int) -> Optional[Span]:
        """The next string value (not a key) from ``after`` that reads as the unit's text."""
        for match in _JSON_STRING.finditer(places.text, after):
            if match.group(1) is None and json.loads(match.group(0)) == unit.sources[0]:
                return match.start(), match.end()
        return None

    def spelled(self, unit: Unit, translations: List[str], original: str) -> str:
        ascii_only = "\\u" in original and original.isascii()  # a file that escapes what is not ASCII
        return json.dumps(translations[0], ensure_ascii=ascii_only)


class SubRipDocument(SplicedDocument):
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

    def place(self, places: Places, unit: Unit, after: int) -> Optional[Span]:
        """The cue's text: after the next timing line from ``after``, its lines as written."""
        timing = re.compile(r"-->[^\n]*\n").search(places.text, after)
        if timing is None:
            return None
        lines = r"\r?\n".join(re.escape(line) for line in unit.sources[0].split("\n"))
        found = re.compile(lines).search(places.text, timing.end())
        return (found.start(), found.end()) if found else None

    def spelled(self, unit: Unit, translations: List[str], original: str) -> str:
        return _newlines(translations[0], original)


class TextDocument(SplicedDocument):
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

    def text(self) -> str:
        return self.data.decode("utf-8")

    def place(self, places: Places, unit: Unit, after: int) -> Optional[Span]:
        """The paragraph as written, from its first line."""
        start = max(after, places.line(int(unit.where.split()[-1])))
        at = places.text.find(unit.sources[0], start)
        return (at, at + len(unit.sources[0])) if at >= 0 else None

    def spelled(self, unit: Unit, translations: List[str], original: str) -> str:
        return _newlines(translations[0], original)

    def toolkit_render(self) -> bytes:
        return bytes(self.store).rstrip(b"\n") + self.data[len(self.data.rstrip(b"\n")) :]


__all__ = ["JsonDocument", "SubRipDocument", "TextDocument", "json_layout"]
