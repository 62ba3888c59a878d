"""Special spaces in a translation: no-break, narrow no-break, figure, thin and zero-width spaces
(and the soft hyphen) come back as many times as in the source, glued to the same characters.

A model trained on ordinary text drops them (`10\u00a0MB` -> `10 MB`), doubles them
(`note\u00a0?` -> `nota\u00a0\u00a0?`) or writes plain spaces around them. `check(source, output)`
gives the output repaired where the repair is certain, and whether it now agrees:

    doubled     a run of a special space with other spaces, which the source does not have, becomes
                the special space alone
    dropped     a missing one goes back between the characters it was glued to in the source: in
                place of a plain space between the same two characters (`10 MB` -> `10\u00a0MB`), or
                before the same punctuation (`?`, `!`, `:`, `;`, `»`, `%`) or after `«`, when there
                is exactly one such place for each missing one
    extra       a zero-width character the source lacks is removed; a no-break space the source
                lacks is kept before or after French-style punctuation (the target's typography),
                elsewhere it becomes a plain space

Anything else (a space glued to something the output does not have) is not repaired: it fails.
This module knows nothing about models or the service.
"""

from __future__ import annotations

import re

WIDE = "\u00a0\u202f\u2007\u2009\u200a\u2002\u2003\u2004\u2005\u2006\u2008\u205f\u3000"  # no-break and fixed
ZERO = "\u200b\u200c\u200d\u2060\ufeff\u00ad"  # zero-width, word joiner, BOM, soft hyphen
SPECIAL = WIDE + ZERO
_ANY = re.compile(f"[{SPECIAL}]")
_BEFORE = "?!:;»%€)"  # punctuation a no-break space goes before
_AFTER = "«¿¡("  # and after


def present(text: str) -> bool:
    return bool(_ANY.search(text))


def check(source: str, output: str) -> tuple[str, bool]:
    """(the output repaired where certain, whether every special space now agrees)."""
    if not present(source) and not present(output):
        return output, True
    text, ok = output, True
    for c in dict.fromkeys(ch for ch in source + output if ch in SPECIAL):
        text, agrees = _one(source, text, c)
        ok = ok and agrees
    return text, ok


def _one(source: str, text: str, c: str) -> tuple[str, bool]:
    run = re.compile(f"[ {c}]*{c}[ {c}]*")
    if not any(len(m.group(0)) > 1 for m in run.finditer(source)):  # doubled
        text = run.sub(c, text)
    want, have = source.count(c), text.count(c)
    if have < want:
        text = _restore(source, text, c, want - have)
    elif have > want:
        text = _extra(source, text, c)
    typography = want == 0 and c in WIDE  # the extras left are the target's typography (`_extra`)
    return text, text.count(c) == want or typography


def _glue(source: str, c: str) -> list[tuple[str, str]]:
    """(character before, character after) of each `c` in the source."""
    return [(source[i - 1 : i], source[i + 1 : i + 2]) for i, ch in enumerate(source) if ch == c]


def _restore(source: str, text: str, c: str, missing: int) -> str:
    for before, after in _glue(source, c):
        if not missing:
            break
        if before and after and f"{before}{c}{after}" in text:
            continue  # this one came back
        places = []
        if before and after and before.isalnum() and after.isalnum():
            places = [m.span() for m in re.finditer(re.escape(before) + " " + re.escape(after), text)]
            places = [(s + 1, e - 1) for s, e in places]
        elif after and after in _BEFORE:
            places = [(m.start(1), m.end(1)) for m in re.finditer(f"(?<=[^{c}\\s])( ?){re.escape(after)}", text)]
        elif before and before in _AFTER:
            places = [(m.start(1), m.end(1)) for m in re.finditer(f"{re.escape(before)}( ?)(?=[^{c}\\s])", text)]
        if len(places) == 1:
            start, end = places[0]
            text = text[:start] + c + text[end:]
            missing -= 1
    return text


def _extra(source: str, text: str, c: str) -> str:
    if c in ZERO:
        return text.replace(c, "") if c not in source else text
    if c in source:
        return text

    def keep(m: re.Match) -> str:
        after, before = text[m.end() : m.end() + 1], text[m.start() - 1 : m.start()]
        return c if (after and after in _BEFORE) or (before and before in _AFTER) else " "

    return re.sub(re.escape(c), keep, text)
