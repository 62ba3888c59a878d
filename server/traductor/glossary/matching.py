"""Where a glossary's terms occur in a text: whole words, case-insensitive, longest match first.

A text is read as tokens: runs of word characters (`\\w+`, so "file" never matches inside
"files" or "file_name") and single other characters ("C++", "e-mail" are several tokens). A
term matches a run of consecutive tokens whose text, with whitespace runs read as one space and
case folded, is the term's; for an English source (or a glossary that names no language), an
occurrence of the term's regular English plural ("files", "boxes", "directories"; only the last
word of a multi-word term changes) matches the term too, marked plural. A term written out as an
entry of its own wins over a plural derived from another entry. Scanning goes left to right; at
each position the longest term wins, and matches never overlap each other or a protected span
(the segment's placeholders: a term inside `--file` or `<a href="file">` is left alone).

The cost is a dictionary look-up per token and term length, only at tokens that start some term
(a set look-up elsewhere): nothing measurable beside a decoder step, whatever the glossary's size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+|[^\w\s]")
_SIBILANT = re.compile(r"(?:s|x|z|ch|sh)$", re.IGNORECASE)
_CONSONANT_Y = re.compile(r"[^aeiou]y$", re.IGNORECASE)


def english_plural(word: str) -> str:
    """The regular English plural of a word (no irregular forms: "child" -> "childs")."""
    if _CONSONANT_Y.search(word):
        return word[:-1] + "ies"
    if _SIBILANT.search(word):
        return word + "es"
    return word + "s"


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass(frozen=True)
class Found:
    start: int  # character offsets of the occurrence in the text
    end: int
    source: str  # the entry's source term
    target: str  # the entry's target term
    plural: bool  # matched through the term's derived plural


class TermIndex:
    """The entries by their folded text, their plurals, and the tokens a term may start with."""

    def __init__(self, entries: tuple[tuple[str, str], ...], plurals: bool = True):
        self.terms: dict[str, tuple[str, str, bool]] = {}
        derived: dict[str, tuple[str, str, bool]] = {}
        for source, target in entries:
            self.terms[_key(source)] = (source, target, False)
            words = source.split()
            if plurals and words[-1][-1:].isalpha():
                plural = " ".join([*words[:-1], english_plural(words[-1])])
                derived.setdefault(_key(plural), (source, target, True))
        for key, value in derived.items():
            self.terms.setdefault(key, value)  # an entry of its own wins over a derived plural
        lengths = [len(_TOKEN.findall(key)) for key in self.terms]
        self.max_tokens = max(lengths, default=0)
        self.starts = {_TOKEN.match(key).group(0) for key in self.terms}


def _overlaps(start: int, end: int, spans) -> bool:
    return any(start < b and a < end for a, b in spans)


def find(glossary, text: str, protected=()) -> list[Found]:
    """The occurrences of `glossary`'s terms in `text`, left to right (see the module docstring)."""
    index: TermIndex = glossary.index
    tokens = list(_TOKEN.finditer(text))
    found: list[Found] = []
    i = 0
    while i < len(tokens):
        if tokens[i].group(0).casefold() not in index.starts:
            i += 1
            continue
        start, best = tokens[i].start(), None
        for j in range(min(len(tokens), i + index.max_tokens) - 1, i - 1, -1):  # longest first
            end = tokens[j].end()
            hit = index.terms.get(_key(text[start:end]))
            if hit is not None and not _overlaps(start, end, protected):
                best = (j, Found(start, end, *hit))
                break
        if best is None:
            i += 1
            continue
        i = best[0] + 1
        found.append(best[1])
    return found
