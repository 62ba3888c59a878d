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
from typing import Any, List

from translate.storage import jsonl10n, txt

from traductor_client.files.errors import FileError
from traductor_client.files.toolkit import StoreDocument
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


class JsonDocument(StoreDocument):
    """Flat or nested JSON (i18next), written back with the file's own indentation and ending."""

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


__all__ = ["JsonDocument", "SubRipDocument", "TextDocument", "json_layout"]
