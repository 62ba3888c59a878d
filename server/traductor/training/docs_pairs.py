"""Which aligned documentation pairs `traductor corpus --docs` keeps (docs_corpus.py).

Whitespace is collapsed; a pair is kept when both sides have letters, differ, fit MAX_DOC_CHARS
and their lengths agree (LENGTH_RATIO); a paragraph longer than corpus.MAX_CHARS becomes its
sentences when both sides have as many and they agree one by one (`same_sentences`). Sentences
are cut as the server cuts a text it translates (text/sentences.py, by each side's language's
rules), so "e.g. Solarized" or "p. ej. IMAP" ends no sentence of a training pair.
"""

from __future__ import annotations

import re

from ..languages import ENGLISH
from ..text.sentences import sentence_spans
from .corpus import MAX_CHARS, Pair

MAX_DOC_CHARS = 1000  # about 256 tokens of English, the model's longest source
LENGTH_RATIO = 2.5  # one side longer than r times the other plus 10 characters: misaligned
SENTENCE_SHARE = 0.1  # a sentence's share of its paragraph may differ this much between the languages
_NUMBER = re.compile(r"\d+")
_ANCHOR = re.compile(r"\d+|(?<![\w-])--?[A-Za-z][\w-]*|[#%$/{}\[\]<>|=*~^@]")


def sentences(text: str, language: str) -> list[str]:
    """The sentences of one paragraph (no line break inside), by the rules of `language`."""
    return [text[a:b] for a, b in sentence_spans(text, language)]


def anchors(text: str) -> set[str]:
    """What a translation copies: numbers, options, and symbols such as # % $ / { }."""
    return set(_ANCHOR.findall(text))


def same_sentences(source: list[str], target: list[str]) -> bool:
    """Whether sentence i of the source is sentence i of the target: same anchors, and each takes
    about the same share of its paragraph."""
    total_s, total_t = sum(map(len, source)), sum(map(len, target))
    return all(
        anchors(s) == anchors(t) and abs(len(s) / total_s - len(t) / total_t) <= SENTENCE_SHARE
        for s, t in zip(source, target)
    )


def usable(source: str, target: str) -> bool:
    if not (any(c.isalpha() for c in source) and any(c.isalpha() for c in target)) or source == target:
        return False
    if "\t" in source + target or max(len(source), len(target)) > MAX_DOC_CHARS:
        return False
    short, long_ = sorted((len(source), len(target)))
    numbers_s, numbers_t = set(_NUMBER.findall(source)), set(_NUMBER.findall(target))
    if numbers_s and numbers_t and not numbers_s & numbers_t:  # "Chapter 3" is not "Capítulo 5"
        return False
    return long_ <= LENGTH_RATIO * short + 10  # the slack lets "OK" be "Aceptar"


def units(source: str, target: str, language: str) -> list[tuple[str, str]]:
    """One aligned paragraph, English `source` and its `target` in `language`, as training pairs:
    itself, or its sentences when it is long and both sides have as many."""
    source, target = " ".join(source.split()), " ".join(target.split())
    if max(len(source), len(target)) > MAX_CHARS:
        a, b = sentences(source, ENGLISH), sentences(target, language)
        if len(a) == len(b) > 1 and same_sentences(a, b):
            return [(s, t) for s, t in zip(a, b) if usable(s, t)]
    return [(source, target)] if usable(source, target) else []


def pairs(found: list[tuple[str, str]], package: str, kind: str, language: str) -> list[Pair]:
    return [Pair(s, t, package, kind) for src, tgt in found for s, t in units(src, tgt, language)]
