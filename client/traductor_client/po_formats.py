"""Would this translation break the program? The format-string checks of ``msgfmt --check-format``.

A gettext entry flagged ``c-format``, ``python-format``, ``qt-format``... is passed to a
formatting function at run time; a translation whose directives do not match the msgid's makes
that call read the wrong arguments (a crash in C) or raise (Python). This module parses both
strings for the entry's formats and says why they do not match, following the rules of GNU
gettext 0.21 (checked against its ``msgfmt --check``):

* ``c-format``: the arguments, in order (positional ``%2$s`` may reorder them), must have the
  same types: conversion *and* size (``%d``/``%i`` agree, ``%d``/``%u`` or ``%d``/``%ld`` do
  not); ``*`` widths and precisions are arguments too; ``%%`` and ``%m`` take none.
* ``python-format``: named ``%(name)s`` directives must match as a set with the same types;
  unnamed ones in number and type order; a string cannot mix the two.
* ``python-brace-format``: the ``{field}`` names (``{}`` counts as ``{0}``, ``{1}``...) as a set.
* ``qt-format`` and ``kde-format``: the ``%N`` numbers as a set; ``qt-plural-format``: ``%n``.

"Strict" is the normal case. msgfmt relaxes it for a plural form used for one value of n only
(``msgstr[0]`` when it means exactly one): there the translation may leave out arguments
(except in ``qt-format`` and for unnamed Python directives, which msgfmt always checks
strictly). A msgid that is not itself a valid format string is not checked, like msgfmt does.

What this module does not know: formats other than those above (:func:`formats_of` raises
:class:`UnsupportedFormat` for them, so callers can leave such entries to a human).
"""

from __future__ import annotations

import re
import string
from typing import Callable, Dict, List, Optional, Sequence, Tuple

Reason = Optional[str]  # None: the translation is fine; else why it is not


class UnsupportedFormat(Exception):
    """The entry is flagged with a format this module cannot check."""


# -- c-format -----------------------------------------------------------------------------------
_C_DIRECTIVE = re.compile(
    r"%(?:(?P<pos>[1-9]\d*)\$)?(?P<flags>[-+ #0'I]*)"
    r"(?P<width>\*(?:[1-9]\d*\$)?|\d+)?(?:\.(?P<prec>\*(?:[1-9]\d*\$)?|\d*))?"
    r"(?P<size>hh|h|ll|l|L|q|j|z|Z|t)?(?P<conv>[diouxXeEfFgGaAcCsSpnm]|<PRI\w+>)"
)
_INT_SIZES = {
    "hh": "char",
    "h": "short",
    "l": "long",
    "ll": "long long",
    "q": "long long",
    "L": "long long",
    "j": "intmax_t",
    "z": "size_t",
    "Z": "size_t",
    "t": "ptrdiff_t",
}
_C_KINDS = {
    **dict.fromkeys("di", "int"),
    **dict.fromkeys("ouxX", "unsigned int"),
    **dict.fromkeys("eEfFgGaA", "double"),
    "c": "char",
    "s": "string",
    "p": "pointer",
    "n": "count pointer",
    "C": "wide char",
    "S": "wide string",
}


def _c_type(size: str, conv: str) -> str:
    """The argument type a directive reads, as msgfmt distinguishes them."""
    if conv.startswith("<"):
        return conv
    kind = _C_KINDS[conv]
    if kind in ("int", "unsigned int", "count pointer") and size:
        return f"{_INT_SIZES[size]} {kind}"
    if kind == "double" and size == "L":
        return "long double"
    if kind in ("char", "string") and size == "l":
        return f"wide {kind}"
    return kind


def parse_c(text: str) -> Optional[List[str]]:
    """The argument types in order (argument 1 first), or None if not a valid C format."""
    numbered: Dict[int, str] = {}
    unnumbered: List[str] = []
    pos = 0
    while (pos := text.find("%", pos)) >= 0:
        if text.startswith("%%", pos):
            pos += 2
            continue
        match = _C_DIRECTIVE.match(text, pos)
        if match is None:
            return None
        pos = match.end()
        if match["conv"] == "m":
            continue
        args = [
            (star[1:-1] if star.endswith("$") else "", "int")
            for star in (match["width"], match["prec"])
            if star and star.startswith("*")
        ]
        args.append((match["pos"] or "", _c_type(match["size"] or "", match["conv"])))
        for number, kind in args:
            if not number:
                unnumbered.append(kind)
            elif numbered.setdefault(int(number), kind) != kind:
                return None  # the same argument read with two types
    if numbered and unnumbered:
        return None
    if numbered and sorted(numbered) != list(range(1, len(numbered) + 1)):
        return None  # an argument is skipped
    return [numbered[n] for n in sorted(numbered)] if numbered else unnumbered


def _compare_sequences(name: str, source: Sequence[str], target: Sequence[str], strict: bool) -> Reason:
    if len(target) > len(source) or (strict and len(target) != len(source)):
        return f"{name}: {len(source)} argument(s) in the msgid, {len(target)} in the translation"
    for index, (want, got) in enumerate(zip(source, target), start=1):
        if want != got:
            return f"{name}: argument {index} is a {want} in the msgid, a {got} in the translation"
    return None


def check_c(source: str, target: str, strict: bool) -> Reason:
    want = parse_c(source)
    if want is None:
        return None
    got = parse_c(target)
    if got is None:
        return "c-format: the translation is not a valid C format string"
    return _compare_sequences("c-format", want, got, strict)


# -- python-format ------------------------------------------------------------------------------
_PY_DIRECTIVE = re.compile(
    r"%(?:\((?P<name>[^)]*)\))?[-+ #0]*(?P<width>\*|\d+)?"
    r"(?:\.(?P<prec>\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrs])"
)
_PY_KINDS = {
    **dict.fromkeys("diouxX", "integer"),
    **dict.fromkeys("eEfFgG", "float"),
    "c": "character",
    "r": "string",
    "s": "string",
}


def parse_python(text: str) -> Optional[Tuple[Dict[str, str], List[str]]]:
    """(named types, unnamed types in order), or None if not a valid Python %-format."""
    named: Dict[str, str] = {}
    unnamed: List[str] = []
    pos = 0
    while (pos := text.find("%", pos)) >= 0:
        if text.startswith("%%", pos):
            pos += 2
            continue
        match = _PY_DIRECTIVE.match(text, pos)
        if match is None:
            return None
        pos = match.end()
        kind = _PY_KINDS[match["conv"]]
        if match["name"] is None:
            unnamed.extend(["integer"] * ((match["width"] == "*") + (match["prec"] == "*")))
            unnamed.append(kind)
        elif "*" in (match["width"], match["prec"]) or named.setdefault(match["name"], kind) != kind:
            return None
    return None if named and unnamed else (named, unnamed)


def check_python(source: str, target: str, strict: bool) -> Reason:
    want = parse_python(source)
    if want is None:
        return None
    got = parse_python(target)
    if got is None:
        return "python-format: the translation is not a valid Python format string"
    (want_named, want_unnamed), (got_named, got_unnamed) = want, got
    if (want_named and got_unnamed) or (want_unnamed and got_named):
        return "python-format: named directives on one side, unnamed on the other"
    if want_unnamed or got_unnamed:
        return _compare_sequences("python-format", want_unnamed, got_unnamed, strict=True)
    reason = _compare_sets("python-format", set(want_named), set(got_named), strict, lambda name: f"%({name})")
    if reason is None:
        for name in got_named:
            if want_named[name] != got_named[name]:
                return (
                    f"python-format: %({name}) is a {want_named[name]} in the msgid, "
                    f"a {got_named[name]} in the translation"
                )
    return reason


# -- python-brace-format, qt-format, kde-format, qt-plural-format ------------------------------
def _compare_sets(name: str, source: set, target: set, strict: bool, show: Callable[[object], str]) -> Reason:
    extra, missing = sorted(target - source), sorted(source - target)
    if extra:
        return f"{name}: {', '.join(map(show, extra))} in the translation, not in the msgid"
    if missing and strict:
        return f"{name}: {', '.join(map(show, missing))} missing from the translation"
    return None


def parse_brace(text: str) -> Optional[set]:
    """The replacement-field names (``{}`` numbered from 0), or None if not a valid format."""
    names, auto = set(), 0
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    except ValueError:
        return None
    for field in fields:
        if field == "":
            field, auto = str(auto), auto + 1
        names.add(field)
    return names


def check_brace(source: str, target: str, strict: bool) -> Reason:
    want = parse_brace(source)
    if want is None:
        return None
    got = parse_brace(target)
    if got is None:
        return "python-brace-format: the translation is not a valid format string"
    return _compare_sets("python-brace-format", want, got, strict, lambda f: f"{{{f}}}")


_QT_ARG = re.compile(r"%L?(\d\d?)")


def _qt_numbers(text: str) -> set:
    return {int(number) for number in _QT_ARG.findall(text)}


def check_qt(source: str, target: str, strict: bool) -> Reason:
    """msgfmt checks Qt's ``%N`` strictly even in a plural form used for one n."""
    return _compare_sets("qt-format", _qt_numbers(source), _qt_numbers(target), True, lambda n: f"%{n}")


def check_kde(source: str, target: str, strict: bool) -> Reason:
    return _compare_sets("kde-format", _qt_numbers(source), _qt_numbers(target), strict, lambda n: f"%{n}")


def check_qt_plural(source: str, target: str, strict: bool) -> Reason:
    def has_n(text: str) -> set:
        return {"n"} if re.search(r"%L?n", text) else set()

    return _compare_sets("qt-plural-format", has_n(source), has_n(target), strict, lambda n: "%n")


Check = Callable[[str, str, bool], Reason]
CHECKS: Dict[str, Check] = {
    "c-format": check_c,
    "python-format": check_python,
    "python-brace-format": check_brace,
    "qt-format": check_qt,
    "kde-format": check_kde,
    "qt-plural-format": check_qt_plural,
}


def formats_of(flags: Sequence[str], sources: Sequence[str]) -> List[str]:
    """The format checks that apply to an entry with these flags and these msgids (the msgid,
    and the msgid_plural if any).

    ``possible-X-format`` counts as ``X-format`` and ``no-X-format`` turns X off. An entry
    without any format flag gets the C check when a msgid holds printf directives (a safety
    net msgfmt does not have). Raises :class:`UnsupportedFormat` for a format with no check here.
    """
    wanted, negated = [], set()
    for flag in flags:
        if flag.startswith("no-") and flag.endswith("-format"):
            negated.add(flag[3:])
        elif flag.endswith("-format"):
            wanted.append(flag[len("possible-") :] if flag.startswith("possible-") else flag)
    wanted = [name for name in wanted if name not in negated]
    unknown = [name for name in wanted if name not in CHECKS]
    if unknown:
        raise UnsupportedFormat(f"{', '.join(unknown)} is not checked by traductor-client")
    if not wanted and not negated and any(parse_c(source) for source in sources):
        wanted = ["c-format"]
    return wanted
