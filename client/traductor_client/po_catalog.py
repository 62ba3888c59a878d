"""A gettext catalog read with polib and written back touching only what changed.

polib parses the file (entries, flags, plural forms, header); this module adds what polib does
not do: it keeps the file's own text for every entry that was not changed. polib re-wraps every
string when it saves, differently from the GNU tools, which would turn a one-entry change into a
diff of the whole file. Here the output is the input's lines with only the changed entries
replaced: their flags line (``#, fuzzy, c-format``), their ``#|`` previous-msgid lines (dropped:
they describe the old translation) and their ``msgstr`` lines (rendered by polib). Their
comments and msgid lines, and every other entry, stay byte for byte. In the header only
``PO-Revision-Date`` and ``X-Generator`` are set.

What it does not know: anything about translation; it is handed entries already filled in.
"""

from __future__ import annotations

import gettext
import os
import re
import tempfile
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence

import polib

from traductor_client.po import PoError

WRAP_WIDTH = 79  # the GNU tools' default line width


@dataclass
class Catalog:
    path: str
    po: polib.POFile
    lines: List[str]  # the file's text, one line per item, line endings kept
    encoding: str
    newline: str


def load(path: str) -> Catalog:
    """Read and parse ``path``; a missing, unreadable or non-PO file raises :class:`PoError`."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise PoError(f"{path}: {error.strerror or error}") from None
    encoding = polib.detect_encoding(raw)
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise PoError(f"{path}: not a PO file (its bytes are not {encoding})") from None
    if "\0" in text:
        raise PoError(f"{path}: not a PO file (binary data; a compiled .mo file?)")
    try:
        po = polib.pofile(text, encoding=encoding, wrapwidth=WRAP_WIDTH)
    except (OSError, ValueError) as error:
        raise PoError(f"{path}: not a PO file ({error})") from None
    if text.strip() and not len(po) and not po.metadata:
        raise PoError(f"{path}: not a PO file (no msgid/msgstr entries)")
    lines = text.splitlines(keepends=True)  # the same split polib used, so its line numbers hold
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    return Catalog(path, po, lines, encoding, newline)


@dataclass(frozen=True)
class PluralForms:
    nplurals: int
    often: Sequence[bool]  # per form: used for 5 or more n in 0..1000 (msgfmt's "strict" forms)

    def singular_form(self, index: int) -> bool:
        """Form 0 is the singular unless it also serves many numbers (as in nplurals=1)."""
        return index == 0 and not self.often[0]


_PLURAL_FORMS = re.compile(r"^\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+?)\s*;?\s*$")


def plural_forms(po: polib.POFile) -> PluralForms:
    """The header's ``Plural-Forms``; raises :class:`PoError` (with the reason) when missing or
    unusable, which the caller reports for plural entries only."""
    header = po.metadata.get("Plural-Forms")
    if not header:
        raise PoError("the catalog has no Plural-Forms header")
    match = _PLURAL_FORMS.match(header)
    if not match or int(match[1]) < 1:
        raise PoError(f"Plural-Forms is not 'nplurals=N; plural=EXPRESSION;': {header!r}")
    nplurals = int(match[1])
    try:
        plural = gettext.c2py(match[2])  # the standard library's safe C-expression evaluator
        forms = [plural(n) for n in range(1001)]
    except (ValueError, SyntaxError, ZeroDivisionError) as error:
        raise PoError(f"Plural-Forms expression {match[2]!r} is not valid: {error}") from None
    if any(not 0 <= form < nplurals for form in forms):
        raise PoError(f"Plural-Forms expression {match[2]!r} gives forms outside 0..{nplurals - 1}")
    return PluralForms(nplurals, tuple(forms.count(index) >= 5 for index in range(nplurals)))


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


def write(path: str, text: str, encoding: str) -> None:
    """Replace ``path`` atomically (a temporary file in the same folder, then a rename)."""
    data = text.encode(encoding)  # the caller kept out what the charset cannot hold
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".traductor-", suffix=".po", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if os.path.exists(path):
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        os.replace(temporary, path)
    except OSError as error:
        if "temporary" in locals() and os.path.exists(temporary):
            os.remove(temporary)
        raise PoError(f"{path}: cannot write: {error.strerror or error}") from None
