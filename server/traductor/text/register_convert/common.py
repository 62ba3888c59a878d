"""What the rules of every language share (register_convert/__init__.py has the recipe): a word's
case carried over, the changes applied to a text, which sentence each word is in, and `Skip`, the
exception a language's rules raise for a word they do not convert with certainty."""

from __future__ import annotations

from ..address_text import SENTENCE_END, Words

ACCELERATOR = "accelerator or escape inside a word"


class Skip(Exception):
    """A word the rules do not convert with certainty; the message is the reason."""


def glued(text: str, a: int, b: int) -> bool:
    """Whether the word at text[a:b] is glued to an accelerator or an escape ("Вы_брать", "\\nheeft")."""
    return text[a - 1 : a] in ("&", "_", "\\") or text[b : b + 1] in ("&", "_")


def case(original: str, new: str, capital: bool) -> str:
    """`new` written as `original` is: all capitals, or its capital where `capital` allows."""
    if len(original) > 1 and original.isupper():
        return new.upper()
    return new[:1].upper() + new[1:] if original[:1].isupper() and capital else new


def opens(w: Words, i: int) -> bool:
    """Whether word `i` opens a sentence or a quoted/marked-up part, where a capital stays ("Вы",
    "«Ваш", "<p>U"); a polite capital inside a sentence ("проверьте Ваши данные") does not."""
    if w.starts_sentence(i):
        return True
    return w.separator(i).strip(" \u00a0,") != ""


def apply(text: str, w: Words, changes: dict[int, str]) -> str:
    out, last = [], 0
    for i in sorted(changes):
        a, b = w.spans[i]
        if glued(text, a, b):
            raise Skip(ACCELERATOR)  # the word is another's part
        out += [text[last:a], changes[i]]
        last = b
    return "".join(out) + text[last:]


def sentences(w: Words) -> list[int]:
    """The sentence number of each word."""
    n, out = 0, []
    for i in range(len(w.words)):
        n += bool(i and SENTENCE_END.search(w.separator(i)))
        out.append(n)
    return out
