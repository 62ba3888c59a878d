"""Placeholders in software messages: find them, hide them from the model, put them back.

A translation of "cannot open %s: %s" that loses a `%s` crashes the program that prints it, so
placeholders never go through the model as text. Each one becomes a reserved token
`<ph0>`, `<ph1>`, ... (numbered in order of appearance in the source) before tokenization, and
the reserved tokens in the model's output are replaced by the source's placeholders after.

Recognised, by kind (`KINDS`, in the order the pattern tries them):

    python     `%(name)s`, `%(count)d`
    printf     `%s`, `%d`, `%1$s`, `%-10.2f`, `%lu`, `%%`, `%<PRIu64>`
    qt         Qt/KDE arguments `%1` .. `%99`, `%L1`
    brace      `{name}`, `{0}`, `{0:>8}`
    shell      `$HOME`, `${name}`
    markup     inline tags of Pango, Qt rich text and KDE's KUIT (`<b>`, `</b>`, `<a href="..">`,
               `<filename>`, `<br/>`) and character entities (`&amp;`, `&#169;`)
    mnemonic   the keyboard-accelerator marker of a menu or button label: GTK's `_` and Qt/KDE's
               `&` right before a letter (`_Open`, `Save &As`); the marker is the placeholder, so
               the model places it before a letter of the translation (`_Abrir`)
    option     command-line options (`--force`, `--no-verify`, `-r`)

Tags are recognised only by name (the ones listed in `_TAG_NAMES`), so usage text such as
`cp <source> <dest>` is still translated.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

MAX_PLACEHOLDERS = 16
TOKENS = [f"<ph{i}>" for i in range(MAX_PLACEHOLDERS)]

_PYTHON = r"%\([A-Za-z_][A-Za-z_0-9]*\)[-+#0 ]*(?:\d+)?(?:\.\d+)?[diouxXeEfFgGcrsa]"
_PRINTF = (
    r"%(?:\d+\$)?[-+#0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?"
    r"(?:<PRI[a-zA-Z0-9]+>|[diouxXeEfFgGaAcspnm%])"
)
_QT = r"%L?[1-9][0-9]?(?![0-9$])"
_BRACE = r"\{[A-Za-z_0-9][A-Za-z_0-9.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
_SHELL_VAR = r"\$\{[A-Za-z_][A-Za-z_0-9]*\}|\$[A-Za-z_][A-Za-z_0-9]*"
_TAG_NAMES = (
    "a|abbr|application|b|bcode|big|blockquote|body|br|center|code|command|dd|div|dl|dt|em|email|emphasis|envar|"
    "filename|font|h[1-6]|head|hr|html|i|icode|img|interface|item|kbd|li|link|list|message|nl|nobr|note|numid|ol|"
    "p|para|placeholder|pre|q|qt|resource|s|samp|shortcut|small|span|strike|strong|sub|subtitle|sup|table|td|th|"
    "title|tr|tt|u|ul|var|warning"
)
_MARKUP = (
    rf"</?(?:{_TAG_NAMES})(?![\w-])(?:\s+[^<>]*?)?\s*/?>"  # a known tag, with its attributes
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,7}|#[0-9]{1,6}|#x[0-9A-Fa-f]{1,6});"  # a character entity
)
_MNEMONIC = r"(?<![\w&])_(?=[^\W\d_][^\W_]*(?![\w]))|(?<![\w&])&(?=[^\W\d_])"
_OPTION = r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w])"
KINDS = {
    "python": _PYTHON,
    "printf": _PRINTF,
    "qt": _QT,
    "brace": _BRACE,
    "shell": _SHELL_VAR,
    "markup": _MARKUP,
    "mnemonic": _MNEMONIC,
    "option": _OPTION,
}
PATTERN = re.compile("|".join(f"(?P<{kind}>{p})" for kind, p in KINDS.items()))
_TOKEN = re.compile(r"<ph(\d+)>")
# Every kind above starts with one of these characters. Most messages have none, and this test is
# far cheaper than the long pattern (about 1 us against 14 for a 70-character sentence), which
# the serving path runs several times per segment.
_STARTS = re.compile(r"[%{$<&_-]")


def replace(repl, text: str) -> str:
    """`PATTERN.sub(repl, text)`, without running the pattern on a text where none can start."""
    return PATTERN.sub(repl, text) if _STARTS.search(text) else text


def _matches(text: str):
    """`PATTERN.finditer(text)`, without running the pattern on a text where none can start."""
    return PATTERN.finditer(text) if _STARTS.search(text) else iter(())


def find(text: str) -> list[str]:
    """The placeholders of `text`, in order."""
    return [m.group(0) for m in _matches(text)]


def find_kinds(text: str) -> list[tuple[str, str]]:
    """(kind, placeholder) for each placeholder of `text`, in order."""
    return [(m.lastgroup, m.group(0)) for m in _matches(text)]


@dataclass
class Masked:
    text: str  # the text with placeholders replaced by <phK>
    values: list[str]  # values[K] is the placeholder that <phK> stands for


def mask(text: str) -> Masked:
    """Replace each placeholder by a reserved token; the first MAX_PLACEHOLDERS only."""
    values: list[str] = []

    def sub(m: re.Match) -> str:
        if len(values) >= MAX_PLACEHOLDERS:
            return m.group(0)
        values.append(m.group(0))
        return TOKENS[len(values) - 1]

    return Masked(replace(sub, text), values)


def mask_like(text: str, values: list[str]) -> str:
    """Mask a reference translation with the source's numbering (training data).

    The k-th occurrence of a placeholder string in the target gets the token of its k-th
    occurrence in the source; placeholders the source does not have stay as text.
    """
    seen: Counter = Counter()

    def sub(m: re.Match) -> str:
        value = m.group(0)
        seen[value] += 1
        indices = [i for i, v in enumerate(values) if v == value]
        if seen[value] <= len(indices):
            return TOKENS[indices[seen[value] - 1]]
        return value

    return replace(sub, text)


def unmask(text: str, values: list[str]) -> str:
    """Replace each <phK> by values[K]; a token with no value (a model error) is dropped."""
    return _TOKEN.sub(lambda m: values[int(m.group(1))] if int(m.group(1)) < len(values) else "", text)


def preserved(source: str, output: str) -> tuple[int, int]:
    """(placeholders of `source` found in `output`, placeholders in `source`), as multisets."""
    want = Counter(find(source))
    have = Counter(find(output))
    kept = sum(min(n, have[p]) for p, n in want.items())
    return kept, sum(want.values())
