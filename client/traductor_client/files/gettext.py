"""Gettext ``.po``/``.pot`` catalogs: read with polib, written back touching only what changed.

polib parses the file (entries, flags, plural forms, header); this module adds what polib does
not do: it keeps the file's own text for every entry that was not changed. polib re-wraps every
string when it saves, differently from the GNU tools, which would turn a one-entry change into a
diff of the whole file. Here the output is the input's lines with only the changed entries
replaced: their flags line (``#, fuzzy, c-format``), their ``#|`` previous-msgid lines (dropped:
they describe the old translation) and their ``msgstr`` lines (rendered by polib). Their
comments and msgid lines, and every other entry, stay byte for byte. In the header only
``PO-Revision-Date`` and ``X-Generator`` are set, and ``Language`` (the target, when the caller
names it) where it is missing or empty, and ``Plural-Forms`` where it is missing and a plural
entry was filled.

Plural entries: each of the ``Plural-Forms``' forms is filled with the singular's or the plural's
translation (:func:`plurals.texts`: Russian's msgstr[0], for 1, 21, 31..., takes the singular's
when the msgid carries the number, "%d file"). A catalog without ``Plural-Forms`` (or with a
template's "nplurals=INTEGER; ...") takes the standard one of its language (the target named
by the caller, else the header's ``Language``) from :data:`plurals.LANGUAGES` and gets it in its
header; for a language outside that table its plural entries are skipped, the reason given.

:class:`PoDocument` is the catalog as a file-translation document (``files.job``): its entries
are the units (plural entries have two texts, contexts are shown in the report), fuzzy entries
wait for review, obsolete ones are left alone, and an entry's format flags (``c-format``,
``python-format``, ``qt-format``...) are checked the way ``msgfmt --check-format`` does
(:mod:`traductor_client.po_formats`). A filled entry is marked ``fuzzy`` and loses its ``#|``
previous-msgid lines. polib is used rather than translate-toolkit's ``po`` storage because the
catalog must come back byte for byte outside the changed entries (see above), which needs the
entries' line numbers and the original lines that polib gives.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Tuple

import polib

from traductor_client import po_formats
from traductor_client.files import plurals, po_syntax
from traductor_client.files.errors import FileError
from traductor_client.files.language import tag
from traductor_client.files.plurals import PluralForms
from traductor_client.files.units import OBSOLETE, REVIEW, TRANSLATED, Unit

WRAP_WIDTH = 79  # the GNU tools' default line width


@dataclass
class Catalog:
    path: str
    po: polib.POFile
    lines: List[str]  # the file's text, one line per item, line endings kept
    encoding: str
    newline: str


def load(path: str) -> Catalog:
    """Read and parse ``path``; a missing, unreadable or non-PO file raises :class:`FileError`."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise FileError(f"{path}: {error.strerror or error}") from None
    return parse(raw, path)


def parse(raw: bytes, path: str) -> Catalog:
    """Parse a catalog's bytes (``path`` names it in errors)."""
    encoding = polib.detect_encoding(raw)
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise FileError(f"{path}: not a PO file (its bytes are not {encoding})") from None
    if "\0" in text:
        raise FileError(f"{path}: not a PO file (binary data; a compiled .mo file?)")
    po_syntax.check(text, path)  # what polib accepts and msgfmt refuses (an unterminated msgid...)
    try:
        po = polib.pofile(text, encoding=encoding, wrapwidth=WRAP_WIDTH)
    except (OSError, ValueError) as error:
        raise FileError(f"{path}: not a PO file ({error})") from None
    if text.strip() and not len(po) and not po.metadata:
        raise FileError(f"{path}: not a PO file (no msgid/msgstr entries)")
    lines = text.splitlines(keepends=True)  # the same split polib used, so its line numbers hold
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    return Catalog(path, po, lines, encoding, newline)


def plural_forms(po: polib.POFile, language: str = "") -> Tuple[PluralForms, str]:
    """The catalog's ``Plural-Forms``, and ""; where the header has none (or a template's
    "nplurals=INTEGER; plural=EXPRESSION;"), the standard one of ``language`` and its text, to
    write into the header. Raises :class:`FileError` (with the reason) when there is none or it
    is unusable, which the caller reports for plural entries only."""
    header = (po.metadata.get("Plural-Forms") or "").strip()
    if header and "INTEGER" not in header:
        return plurals.parse(header), ""
    known = plurals.language(language)
    if known is None:
        why = f"no standard one is known for {language!r}" if language else "and no Language to take one for"
        raise FileError(f"the catalog has no Plural-Forms header ({why})")
    return plurals.parse(known.plural_forms), known.plural_forms


def _is_blank(line: str) -> bool:
    return not line.strip()


def _render_entry(body: List[str], entry: polib.POEntry, newline: str) -> List[str]:
    """The entry's own lines up to its msgstr, with the new flags line and without ``#|``
    lines, followed by polib's rendering of the new msgstr."""
    head: List[str] = []
    flags_at = None
    for line in body:
        word = line.lstrip()  # the GNU tools never indent, but polib accepts it
        if word.startswith("msgstr"):
            break
        if word.startswith("#,"):
            flags_at = len(head) if flags_at is None else flags_at
        elif not word.startswith("#|"):
            head.append(line)
    if flags_at is None:  # a new flags line goes right before msgctxt/msgid
        flags_at = next((i for i, line in enumerate(head) if line.lstrip().startswith("msg")), len(head))
    if entry.flags:
        head.insert(flags_at, "#, " + ", ".join(entry.flags) + newline)
    rendered = entry.__unicode__(WRAP_WIDTH).split("\n")
    first = next(i for i, line in enumerate(rendered) if line.startswith("msgstr"))
    return head + [line + newline for line in rendered[first:] if line]


def _set_fields(header: List[str], fields: Dict[str, str], newline: str) -> List[str]:
    """The header block with each field's ``"Name: value\\n"`` line replaced or added at the end
    of the header msgstr."""
    lines = list(header)
    if not fields:
        return lines
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("msgstr")), None)
    if start is None:  # no header entry at all: write a minimal one first
        lines[:0] = [
            'msgid ""' + newline,
            'msgstr ""' + newline,
            '"Content-Type: text/plain; charset=UTF-8\\n"' + newline,
            '"Content-Transfer-Encoding: 8bit\\n"' + newline,
            newline,
        ]
        start = 1
    end = start + 1
    while end < len(lines) and lines[end].lstrip().startswith('"'):
        end += 1
    for name, value in fields.items():
        new = f'"{name}: {polib.escape(value)}\\n"' + newline
        pattern = re.compile(rf'^"{re.escape(name)}:.*\\n"\s*$')
        found = [i for i in range(start + 1, end) if pattern.match(lines[i])]
        if found:
            lines[found[0]] = new
        else:
            lines.insert(end, new)
            end += 1
    return lines


def render(catalog: Catalog, changed: Iterable[polib.POEntry], fields: Dict[str, str]) -> str:
    """The catalog's text with the changed entries (filled in by the caller) and the header
    fields replaced, everything else as read."""
    changed_ids = {id(entry) for entry in changed}
    starts = [max(entry.linenum - 1, 0) for entry in catalog.po] + [len(catalog.lines)]
    header_end = starts[0] if len(catalog.po) else len(catalog.lines)
    out = _set_fields(catalog.lines[:header_end], fields, catalog.newline)
    for entry, start, stop in zip(catalog.po, starts, starts[1:]):
        span = catalog.lines[start:stop]
        if id(entry) not in changed_ids:
            out.extend(span)
            continue
        body_end = len(span)
        while body_end and _is_blank(span[body_end - 1]):
            body_end -= 1
        out.extend(_render_entry(span[:body_end], entry, catalog.newline) + span[body_end:])
    return "".join(out)


def _sources(entry: polib.POEntry) -> List[str]:
    return [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]


class PoDocument:
    """A catalog as a file-translation document (see the module docstring)."""

    kind = "po"
    review_word = "fuzzy"
    review_flag = "--include-review"

    def __init__(self, catalog: Catalog, generator: str = "", language: str = "") -> None:
        self.catalog, self.generator = catalog, generator
        self.language = language or (catalog.po.metadata.get("Language") or "").strip()
        self.plural_header = ""  # the standard Plural-Forms to write, where the header has none
        try:
            self.plural, self.plural_header = plural_forms(catalog.po, self.language)
        except FileError as error:
            self.plural = error  # only matters if the catalog has plural entries
        self.units = [self._unit(entry) for entry in catalog.po]

    def _unit(self, entry: polib.POEntry) -> Unit:
        unit = Unit(f"line {entry.linenum}", entry.linenum or 0, _sources(entry), context=entry.msgctxt or "")
        unit.context = entry.msgctxt if entry.msgctxt is not None else ""
        unit.handle = entry
        if entry.obsolete:
            unit.state = OBSOLETE
        elif "fuzzy" in entry.flags:
            unit.state = REVIEW
        elif entry.translated():
            unit.state = TRANSLATED
        elif entry.msgid_plural and isinstance(self.plural, Exception):
            unit.skip = f"plural entry: {self.plural}"
        elif not entry.msgid.strip() or (entry.msgid_plural and not entry.msgid_plural.strip()):
            unit.skip = "nothing to translate (blank msgid)"
        else:
            try:
                po_formats.formats_of(entry.flags, unit.sources)
            except po_formats.UnsupportedFormat as error:
                unit.skip = str(error)
        return unit

    def _format_problem(self, entry: polib.POEntry, forms: Dict[int, str], singular: Sequence[bool]):
        """Why the new msgstr(s) would break the program (msgfmt --check-format's rules) and
        which form, or ("", 0) when they would not."""
        for kind in po_formats.formats_of(entry.flags, _sources(entry)):
            check = po_formats.CHECKS[kind]
            if not entry.msgid_plural:
                reason = check(entry.msgid, forms[0], True)
                if reason:
                    return reason, 0
                continue
            for index, text in forms.items():
                reason = check(entry.msgid_plural, text, self.plural.often[index])
                if reason is None and singular[index]:
                    reason = check(entry.msgid, text, True)
                if reason:
                    return f"msgstr[{index}]: {reason}", index
        return "", 0

    def fill(self, unit: Unit, translations: List[str], mark_review: bool):
        entry = unit.handle
        if entry.msgid_plural:
            singular = plurals.texts(self.plural, entry.msgid, entry.msgid_plural)
            forms = {index: translations[0 if one else 1] for index, one in enumerate(singular)}
        else:
            singular, forms = [True], {0: translations[0]}
        reason, index = self._format_problem(entry, forms, singular)
        if reason:
            shown = json.dumps(forms[index], ensure_ascii=False)
            return "rejected", f"{reason} (translation: {shown})"
        try:
            "".join(forms.values()).encode(self.catalog.encoding)
        except UnicodeEncodeError:
            return "skipped", f"the translation has characters the catalog's charset {self.catalog.encoding} lacks"
        if entry.msgid_plural:
            entry.msgstr_plural = forms
        else:
            entry.msgstr = forms[0]
        entry.flags = (["fuzzy"] if mark_review else []) + [flag for flag in entry.flags if flag != "fuzzy"]
        entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        return "filled", ""

    def render(self, filled: List[Unit], language: str = "") -> bytes:
        """The catalog with the filled entries; when something was filled, PO-Revision-Date and
        X-Generator set, and Language set to ``language`` where the header has none."""
        fields = {"PO-Revision-Date": _now(), "X-Generator": self.generator} if filled else {}
        if filled and language and not (self.catalog.po.metadata.get("Language") or "").strip():
            fields["Language"] = tag(language, "_")
        if self.plural_header and any(unit.handle.msgid_plural for unit in filled):
            fields["Plural-Forms"] = self.plural_header
        text = render(self.catalog, [unit.handle for unit in filled], fields)
        return text.encode(self.catalog.encoding)  # fill() kept out what the charset cannot hold


def _now() -> str:
    """PO-Revision-Date's form: local time with its UTC offset, e.g. 2026-11-22 06:10+0100."""
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M%z")
