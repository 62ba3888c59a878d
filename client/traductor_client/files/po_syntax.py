"""Is this a PO file as msgfmt reads it? polib, which reads the catalogs, accepts much that msgfmt
refuses (an unterminated ``msgid "hello``, text after a string, a msgid without its msgstr), and
a catalog filled from such a file is one msgfmt then rejects. So every line is checked first:

    blank, or a comment (``#...``)
    KEYWORD "string"     msgctxt, msgid, msgid_plural, msgstr, msgstr[N]
    "string"             the continuation of the keyword before it

where a string is closed on its own line, holds only C escapes (``\\n``, ``\\"``, ``\\t``, ``\\123``,
``\\x4f``...), and nothing but spaces follows it. The keywords come in an entry's order: [msgctxt]
msgid, then msgstr, or msgid_plural and msgstr[0], msgstr[1]...; a comment may only stand
between entries.

``check(text, path)`` raises :class:`FileError` naming the first bad line ("bad.po: line 3: not
a PO file (the string is not closed)"). What this module does not know: what the entries mean.
"""

from __future__ import annotations

import re
from typing import Optional

from traductor_client.files.errors import FileError

_STRING = r'"(?:[^"\\]|\\(?:[ntbrfva\\"\'?]|[0-7]{1,3}|x[0-9A-Fa-f]+))*"'
_LINE = re.compile(rf"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)?\s*({_STRING})\s*")
_OPEN = re.compile(r'(?:msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)?\s*"')
_BAD_ESCAPE = re.compile(r'\\(?![ntbrfva\\"\'?0-7x])')

_ENDS = ("", "msgstr")  # the states where an entry is complete (and msgstr[N])


def _next(state: str, keyword: str, index: Optional[str]) -> Optional[str]:
    """The state after `keyword` in `state`, or None when it cannot come there."""
    complete = state in _ENDS or state.startswith("msgstr[")
    if keyword == "msgctxt":
        return keyword if complete else None
    if keyword == "msgid":
        return keyword if complete or state == "msgctxt" else None
    if keyword == "msgid_plural" or (keyword == "msgstr" and index is None):
        return keyword if state == "msgid" else None
    previous = "msgid_plural" if index == "0" else f"msgstr[{int(index) - 1}]"
    return f"msgstr[{int(index)}]" if state == previous else None


def _problem(line: str) -> str:
    """Why a line that is neither blank nor a comment is not a PO line."""
    if not _OPEN.match(line):
        word = line.split()[0]
        if re.fullmatch(r"msgctxt|msgid(?:_plural)?|msgstr(?:\[\d+\])?", word):
            return f"{word} without its string on the same line"
        return f"{word[:30]!r} is not a PO keyword"
    if _BAD_ESCAPE.search(line):
        return "an escape sequence msgfmt does not know"
    if not re.search(_STRING, line):
        return "the string is not closed"
    return "text after the string"


def check(text: str, path: str) -> None:
    """Raise FileError at the first line msgfmt would refuse (see the module docstring)."""
    state, seen, entry, part = "", {}, {}, ""  # seen: (msgctxt, msgid) -> the line of its msgid
    msgid_line = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        where = f"{path}: line {number}: not a PO file"
        obsolete = stripped.startswith("#~") and not stripped.startswith("#~|")
        if obsolete:  # an obsolete entry follows the grammar of the others
            stripped = stripped[2:].strip()
        if not stripped or (stripped.startswith("#") and not obsolete):
            if stripped and not (state in _ENDS or state.startswith("msgstr[")):
                raise FileError(f"{where} (a comment inside an entry, after its {state})")
            continue
        match = _LINE.fullmatch(stripped)
        if not match:
            raise FileError(f"{where} ({_problem(stripped)})")
        keyword, index = match.group(1), match.group(2)
        if keyword is None:  # a continuation string
            if state == "":
                raise FileError(f"{where} (a string without a keyword)")
            entry[part] = entry.get(part, "") + match.group(3)[1:-1]
            continue
        new = _next(state, "msgstr" if keyword.startswith("msgstr") else keyword, index)
        if new is None:
            name = keyword if index is None else f"msgstr[{index}]"
            raise FileError(f"{where} ({name} after {state or 'the previous entry'})")
        if new in ("msgctxt", "msgid") and not state.startswith("msg") or new == "msgid" and state != "msgctxt":
            entry = {}  # a new entry begins
        if new == "msgid":
            msgid_line = number
        if new.startswith("msgstr") and state in ("msgid", "msgid_plural") and not obsolete:
            key = (entry.get("msgctxt"), entry.get("msgid", ""))
            if key in seen:  # named at its msgid line, as msgfmt names it
                raise FileError(
                    f"{path}: line {msgid_line}: not a PO file (a second definition of msgid {key[1][:40]!r}, "
                    f"first defined at line {seen[key]})"
                )
            seen[key] = msgid_line
        state, part = new, keyword
        entry[part] = match.group(3)[1:-1]
    if not (state in _ENDS or state.startswith("msgstr[")):
        raise FileError(f"{path}: not a PO file (the last entry ends after its {state}, without msgstr)")


__all__ = ["check"]
