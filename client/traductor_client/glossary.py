"""Glossary files: source term -> target term pairs, read as the `--glossary FILE` option and the
server's `/translate_file` and `/translate` read them.

    .tsv .tab .txt   one entry a line: source TAB target (DeepL's TSV)
    .csv             source,target[,source_lang,target_lang] (DeepL's CSV; quotes as RFC 4180)
    .po .pot         a gettext catalog used as a glossary: each translated message (msgid ->
                     msgstr, the plural form too; fuzzy and obsolete ones skipped), with polib
    .tbx             TermBase eXchange: each term entry's first term in the source language and
                     its first in the target, with translate-toolkit (XML checked by defusedxml)

Blank lines are skipped and terms trimmed; a line that is not an entry is an error naming it
(`GlossaryFileError`). The server validates the terms themselves (empty, too long, twice) and
names the entry. `request_fields` turns a client call's `glossary`/`glossary_id` into request fields.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping

FORMATS = {".tsv": "tsv", ".tab": "tsv", ".txt": "tsv", ".csv": "csv", ".po": "po", ".pot": "po", ".tbx": "tbx"}


class GlossaryFileError(ValueError):
    """A glossary file that cannot be read; the message names the file and the line."""


def format_of(name: str) -> str:
    ext = os.path.splitext(name)[1].lower()
    if ext not in FORMATS:
        raise GlossaryFileError(f"{name}: not a glossary file (known: {' '.join(sorted(FORMATS))})")
    return FORMATS[ext]


def parse(text: str, fmt: str, name: str = "glossary") -> list[tuple[str, str]]:
    """Entries of a TSV or CSV text."""
    if fmt == "tsv":
        rows, widths, expected = [line.split("\t") for line in text.splitlines()], (2,), "source<TAB>target"
    else:
        try:
            rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
        except csv.Error as error:
            raise GlossaryFileError(f"{name}: not readable as CSV ({error})") from None
        widths, expected = (2, 4), "source,target[,source_lang,target_lang]"
    entries = []
    for number, row in enumerate(rows, 1):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) not in widths:
            raise GlossaryFileError(f"{name}: line {number} is not {expected}")
        entries.append((row[0].strip(), row[1].strip()))
    return entries


def _po(text: str, name: str) -> list[tuple[str, str]]:
    import polib

    try:
        catalog = polib.pofile(text)
    except (OSError, ValueError) as error:
        raise GlossaryFileError(f"{name}: not a readable gettext catalog ({error})") from None
    entries = []
    for entry in catalog.translated_entries():
        if entry.msgid_plural:
            entries += [
                (entry.msgid, entry.msgstr_plural.get(0, "")),
                (entry.msgid_plural, entry.msgstr_plural.get(1, "")),
            ]
        else:
            entries.append((entry.msgid, entry.msgstr))
    return [(s.strip(), t.strip()) for s, t in entries if t.strip()]


def _tbx(data: bytes, name: str) -> list[tuple[str, str]]:
    try:
        from translate.storage import tbx

        from .files.errors import FileError
        from .files.formats import check_xml
    except ImportError as error:
        raise GlossaryFileError(f"{name}: reading TBX needs translate-toolkit ({error})") from None
    try:
        check_xml(data, name)
    except FileError as error:
        raise GlossaryFileError(str(error)) from None
    return [(u.source.strip(), u.target.strip()) for u in tbx.tbxfile.parsestring(data).units if u.source and u.target]


def read(name: str, data: bytes) -> list[tuple[str, str]]:
    """The entries of a glossary file (its format by its extension)."""
    fmt = format_of(name)
    if fmt == "tbx":
        entries = _tbx(data, name)
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise GlossaryFileError(f"{name}: not UTF-8 text ({error})") from None
        entries = _po(text, name) if fmt == "po" else parse(text, fmt, name)
    if not entries:
        raise GlossaryFileError(f"{name}: no entry (expected source and target terms)")
    return entries


def request_fields(options: dict) -> dict:
    """Take `glossary_id` and `glossary` out of a call's keyword options, as TranslateRequest
    fields: `glossary` is a mapping of source -> target or an iterable of (source, target) pairs."""
    from .v1 import translator_pb2

    fields: dict = {}
    glossary_id = options.pop("glossary_id", None)
    if glossary_id is not None:
        if not isinstance(glossary_id, str):
            raise TypeError(f"glossary_id must be a str, not {type(glossary_id).__name__}")
        fields["glossary_id"] = glossary_id
    entries = options.pop("glossary", None)
    if entries is not None:
        pairs = list(entries.items()) if isinstance(entries, Mapping) else [tuple(e) for e in entries]
        if not all(len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs):
            raise TypeError("glossary must be a mapping of str to str or (source, target) pairs of str")
        fields["glossary"] = [translator_pb2.GlossaryEntry(source=s, target=t) for s, t in pairs]
    return fields
