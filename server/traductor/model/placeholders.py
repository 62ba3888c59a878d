"""Placeholders in software messages: find them, hide them from the model, put them back.

A translation of "cannot open %s: %s" that loses a `%s` crashes the program that prints it, so
placeholders never go through the model as text. Each one becomes a reserved token
`<ph0>`, `<ph1>`, ... (numbered in order of appearance in the source) before tokenization, and
the reserved tokens in the model's output are replaced by the source's placeholders after.

Recognised: printf directives (`%s`, `%d`, `%1$s`, `%-10.2f`, `%lu`, `%%`, `%<PRIu64>`),
brace fields (`{name}`, `{0}`, `{0:>8}`), shell-style variables (`$HOME`, `${name}`) and
command-line options (`--force`, `--no-verify`, `-r`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

MAX_PLACEHOLDERS = 16
TOKENS = [f"<ph{i}>" for i in range(MAX_PLACEHOLDERS)]

_PRINTF = r"%(?:\d+\$)?[-+#0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|t)?(?:<PRI[a-zA-Z0-9]+>|[diouxXeEfFgGaAcspnm%])"
_BRACE = r"\{[A-Za-z_0-9][A-Za-z_0-9.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
_SHELL_VAR = r"\$\{[A-Za-z_][A-Za-z_0-9]*\}|\$[A-Za-z_][A-Za-z_0-9]*"
_OPTION = r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w])"
PATTERN = re.compile("|".join(f"(?:{p})" for p in (_PRINTF, _BRACE, _SHELL_VAR, _OPTION)))
_TOKEN = re.compile(r"<ph(\d+)>")


def find(text: str) -> list[str]:
    """The placeholders of `text`, in order."""
    return PATTERN.findall(text)


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

    return Masked(PATTERN.sub(sub, text), values)


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

    return PATTERN.sub(sub, text)


def unmask(text: str, values: list[str]) -> str:
    """Replace each <phK> by values[K]; a token with no value (a model error) is dropped."""
    return _TOKEN.sub(lambda m: values[int(m.group(1))] if int(m.group(1)) < len(values) else "", text)


def preserved(source: str, output: str) -> tuple[int, int]:
    """(placeholders of `source` found in `output`, placeholders in `source`), as multisets."""
    want = Counter(find(source))
    have = Counter(find(output))
    kept = sum(min(n, have[p]) for p, n in want.items())
    return kept, sum(want.values())
