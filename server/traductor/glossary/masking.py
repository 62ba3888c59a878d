"""A segment's glossary terms behind placeholder tokens, numbered with its own placeholders.

    "Cannot open %s: file not found"  with  file -> fichero
      masked  "Cannot open <ph0>: <ph1> not found"
      values  ["%s", "fichero"]

The segment's placeholders (model/placeholders.py) and its terms are numbered together in
order of appearance, as the model saw placeholders in training; a term inside a placeholder is
not a term. The model must produce every <phK> of its source (model/constraints.py), and the
tokenizer's unmask writes each value in its place: the target term comes out exactly once per
occurrence, whatever the decoding (greedy, sampling, beam) and as the tokens stream.

In the service's pass 2 the values are `marked`: `unmark` then parts a term from a letter the
model glued to it ("<ph1>reemplazar": the placeholder token right before a word piece) without
touching a word that merely contains the term.

A model trained with term annotations (model/controls.py) gets them in pass 1 instead (`annotate`):
the term's target words written after its source words, which the model uses with the agreement
the sentence needs ("das Verzeichnis", not "der Verzeichnis"); masking stays pass 2's fallback.

A segment that is nothing but its terms ("artist", "Files:", "%s: artist"; no letter outside
its terms and placeholders) has nothing left for the model to translate: alone, a placeholder
token sends a model looping ("---Datei-Datei-Datei <ph0>"). Its answer is the terms in their
target forms, its placeholders, spaces and punctuation as they stand (`Protected.whole`), and the
service answers it without the model, as it answers a segment from its memory.

The tokens are the engine's MAX_PLACEHOLDERS (16): terms beyond those the segment's own
placeholders leave are written into the source in their target form instead (`switch`), as for a
model without placeholder tokens, and the model may or may not keep them.

This module knows strings only; service/pipeline/protect.py turns the masked text into ids.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..model import controls, placeholders
from . import Glossary
from .forms import target_form
from .matching import Found, find


@dataclass(frozen=True)
class Protected:
    """A segment's glossary terms and the inputs made of them (`protect`)."""

    found: list[tuple[Found, str]]  # (match, target form) of each occurrence, left to right
    second: (
        placeholders.Masked
    )  # pass 2's input: the terms behind <phK> (`mask`, marked), or written in (`switch`, no values)
    annotated: str  # pass 1's input for a model trained with term annotations (`annotate`); "" otherwise
    whole: str | None = None  # the segment's translation when it is nothing but its terms (`terms_only`)


def protect(glossary: Glossary, text: str, spans: list, tokens: bool = True, annotations: bool = False):
    """A segment's terms, pass 2's input and, with `annotations`, pass 1's, in one call (what the
    service's protect stage asks of a glossary); None when the segment holds no term. `spans`: the
    segment's placeholders (`placeholders.finditer`), found once by the caller; `tokens`: the
    tokenizer has placeholder tokens (else the terms are written in, as for an imported model)."""
    found = terms(glossary, text, spans)
    if not found:
        return None
    second = mask(text, found, True, spans) if tokens else placeholders.Masked(switch(text, found), [])
    return Protected(found, second, annotate(text, found, spans) if annotations else "", terms_only(text, found, spans))


def terms_only(text: str, found: list[tuple[Found, str]], spans: list | None = None) -> str | None:
    """`text` with its terms in their target forms when there is no letter outside its terms and
    placeholders (`spans`: them, when the caller has them): what it translates to with no model
    (see the module docstring); None when some words are left to translate."""
    if spans is None:
        spans = placeholders.finditer(text)
    hidden = list(text)
    for start, end in [m.span() for m in spans] + [(f.start, f.end) for f, _ in found]:
        hidden[start:end] = "\0" * (end - start)
    if any(unicodedata.category(c).startswith("L") for c in hidden):
        return None
    return switch(text, found)


def terms(glossary: Glossary, text: str, spans: list | None = None) -> list[tuple[Found, str]]:
    """(match, target form) of each term occurrence in `text`, left to right, none inside a
    placeholder; `spans`: the text's placeholders when the caller has them (else they are looked
    for only when a term is found)."""
    found = find(glossary, text, [m.span() for m in spans or ()])
    if found and spans is None and (protected := [m.span() for m in placeholders.finditer(text)]):
        found = find(glossary, text, protected)
    language = glossary.target_language
    return [(f, target_form(f, text[f.start : f.end], language)) for f in found]


def annotate(text: str, found: list[tuple[Found, str]], spans: list | None = None) -> str:
    """`text` with each occurrence annotated with its target form (model/controls.py), for a model
    trained to use an annotated term with the agreement it needs. A term capitalised only because
    it starts the text is annotated as the glossary writes it: where it lands in the translation
    is the model's choice ("File Type" -> "Tipo de fichero"; `starts_lower` mends the other case).
    `spans`: the text's placeholders when the caller has them."""
    terms, first = [], placeholders.first_letter(text, spans)
    for f, target in found:
        if first == f.start and target[:1].isupper() and target[1:2].islower():
            target = target[:1].lower() + target[1:]
        terms.append((f.start, f.end, target))
    return controls.annotate(text, terms)


def starts_lower(source: str, found: list[tuple[Found, str]], translation: str) -> str:
    """An annotated segment's translation with its first letter capitalised where the source's
    first word was a capital term annotated in lower case (`annotate`) and the translation's
    first letter is lower case (the term, most likely, now first)."""
    at = placeholders.first_letter(translation)
    first = placeholders.first_letter(source)
    if at is not None and translation[at].islower() and any(f.start == first for f, _ in found):
        return translation[:at] + translation[at].upper() + translation[at + 1 :]
    return translation


def switch(text: str, found: list[tuple[Found, str]]) -> str:
    """`text` with each occurrence replaced by its target form (no placeholder)."""
    out, at = [], 0
    for f, target in found:
        out += [text[at : f.start], target]
        at = f.end
    return "".join(out) + text[at:]


OPEN, CLOSE = "\ue000", "\ue001"  # private-use marks around a term's value in pass 2 (`unmark`)
_GLUED_BEFORE = re.compile(rf"(?<=\w){OPEN}")
_GLUED_AFTER = re.compile(rf"{CLOSE}(?=\w)")


def mask(text: str, found: list[tuple[Found, str]], marked: bool = False, spans=None) -> placeholders.Masked:
    """The text with placeholders and terms as <phK>, and each token's value (see the docstring);
    `marked`: each term's value between OPEN and CLOSE, for `unmark`; `spans`: the text's
    placeholders (placeholders.finditer) when the caller has them."""
    matches = placeholders.finditer(text) if spans is None else spans
    spans = [(m.start(), m.end(), m.group(0), False) for m in matches]
    spans += [(f.start, f.end, target, True) for f, target in found]
    spans.sort()
    free = placeholders.MAX_PLACEHOLDERS - sum(1 for s in spans if not s[3])
    out, values, at = [], [], 0
    for start, end, value, is_term in spans:
        out.append(text[at:start])
        at = end
        if len(values) >= placeholders.MAX_PLACEHOLDERS or (is_term and free <= 0):
            out.append(value)  # no token left: the placeholder stays as text, the term is switched
            continue
        free -= is_term
        values.append(OPEN + value + CLOSE if marked and is_term else value)
        out.append(placeholders.TOKENS[len(values) - 1])
    out.append(text[at:])
    return placeholders.Masked("".join(out), values)


def unmark(text: str) -> str:
    """A translation of a `marked` mask without its marks, each term parted by a space from a
    letter the model glued to it (its placeholder token came right before or after a word piece:
    "<ph0>reemplazar" -> "Fichero reemplazar"); a word that merely contains the term is left alone."""
    text = _GLUED_AFTER.sub(CLOSE + " ", _GLUED_BEFORE.sub(" " + OPEN, text))
    return text.replace(OPEN, "").replace(CLOSE, "")
