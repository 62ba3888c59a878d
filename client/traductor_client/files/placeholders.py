"""Would this translation break the program that shows it? The placeholder checks of every
format that is not a gettext catalog (a catalog's entries say their format in their flags, and
:mod:`traductor_client.po_formats` checks those the way ``msgfmt --check-format`` does).

A unit's text is looked at for each kind of placeholder; every kind found in the source must
come back the same in the translation:

    printf       %s %d %1$s %2$d (C, Android, Qt's C API): the arguments' types in order, as msgfmt
    python       %(name)s: the names with their types
    qt           %1 %L2 %n (Qt): the same numbers
    braces       {0} {name} (Python str.format, .NET, ICU simple arguments): the same fields
    i18next      {{var}} {{- var}} $t(key) <1></1> (i18next, its Trans tags): the same, as many times
    tags         <b> </b> <br/> (a unit sent as HTML): the same tags in the same order, and every
                 element that is never translated (<code>, <pre>, Android's <xliff:g>...:
                 traductor_client.markup) the same, verbatim
    code         `make install` (Markdown, and any text quoting a command): the same spans, verbatim

An ICU message with a ``plural``/``select`` argument (``{count, plural, one {# file} other {#
files}}``) is not sent at all: its pieces would be translated one by one and its keywords
would not survive, so it is left whole for a translator (:func:`unsafe`).

What this module does not know: the file's format beyond the text of a unit.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import List, Optional, Sequence

from traductor_client import markup, po_formats

# Every pattern runs in time linear in the text: no two repeats in a row can match the same
# characters (an earlier {{-?\s*[^{}]*?\s*}} backtracked cubically: "{{" and 5,000 spaces
# took six minutes). tests/client/test_files.py times them on hostile texts.
_ICU = re.compile(r"\{\s*[\w.-]+\s*,\s*(?:plural|select|selectordinal)\s*,")
_I18NEXT = re.compile(r"\{\{-?[^{}]*\}\}|\$t\([^()]*\)|</?\d+\s*/?>")
_BRACES = re.compile(r"\{[\w.$-]*(?::[^{}]*)?\}")
_QT = re.compile(r"%L?(?:\d\d?|n)\b")
TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_CODE = re.compile(r"`[^`\n]+`")


def unsafe(text: str) -> str:
    """Why a text must not be sent at all, or ""."""
    if _ICU.search(text):
        return "ICU plural/select message: left whole for a translator"
    return ""


def _tokens(pattern: re.Pattern, text: str) -> Counter:
    return Counter(pattern.findall(text))


def _same(name: str, pattern: re.Pattern, source: str, target: str) -> Optional[str]:
    return _compared(name, _tokens(pattern, source), _tokens(pattern, target))


def _compared(name: str, want: Counter, got: Counter) -> Optional[str]:
    """What is missing and added between two counts of tokens, or None."""
    if want == got:
        return None
    missing, extra = sorted((want - got).elements()), sorted((got - want).elements())
    parts = [f"{' '.join(missing)} missing" if missing else "", f"{' '.join(extra)} added" if extra else ""]
    return f"{name}: " + ", ".join(p for p in parts if p)


def _tag_shape(tag: str) -> str:
    """A tag with the values of its shown attributes (``markup.shown_attributes``: a title, an
    alt text, which the service translates) left out: what must come back unchanged."""
    parsed = markup.tokens(tag)
    if len(parsed) != 1 or parsed[0][1] not in ("start", "void"):
        return tag
    _, _, name, attrs = parsed[0]
    return markup.with_attributes(tag, {shown: "" for shown in markup.shown_attributes(name, attrs)})


def _markup(source: str, target: str) -> Optional[str]:
    """The tags of an HTML text: the same (but for the shown attributes' values), in the same
    order; kept elements verbatim."""
    kept, got = markup.verbatim(source), markup.verbatim(target)
    if kept != got:
        missing = [k for k in kept if k not in got]
        return f"kept markup changed: {' '.join(missing or kept)[:120]} not as it was"
    want, have = [_tag_shape(t) for t in TAG.findall(source)], [_tag_shape(t) for t in TAG.findall(target)]
    reason = _compared("tags", Counter(want), Counter(have))
    if reason:
        return reason
    if want != have:
        return "tags: not in the source's order"
    return None


def problem(source: str, target: str, tags: bool = False) -> Optional[str]:
    """Why ``target`` would break the placeholders of ``source``, or None."""
    without_i18next = _I18NEXT.sub("", source)
    if po_formats.parse_c(source):
        reason = po_formats.check_c(source, target, True)
        if reason:
            return reason.replace("c-format", "printf").replace("msgid", "source")
    named = po_formats.parse_python(source)
    if named and named[0]:
        reason = po_formats.check_python(source, target, True)
        if reason:
            return reason.replace("python-format", "python").replace("msgid", "source")
    checks = [("i18next", _I18NEXT, source, target), ("qt", _QT, source, target), ("code", _CODE, source, target)]
    checks.append(("braces", _BRACES, without_i18next, _I18NEXT.sub("", target)))
    for name, pattern, want, got in checks:
        reason = _same(name, pattern, want, got)
        if reason:
            return reason
    return _markup(source, target) if tags else None


def problems(sources: Sequence[str], targets: Sequence[str], tags: bool = False) -> Optional[str]:
    """The first problem of each (source, translation) pair; plural forms are named."""
    many = len(targets) > 1
    for index, (source, target) in enumerate(zip(sources, targets)):
        reason = problem(source, target, tags)
        if reason:
            return f"form {index}: {reason}" if many else reason
    return None


__all__: List[str] = ["problem", "problems", "unsafe"]
