"""A translation made without the glossary, with the model's own words for its terms replaced.

The first of the two passes (docs/glossary.md says why, with the measurements): a segment holding
terms is translated exactly as without a glossary, each term is translated alone by the same
model (singular and plural: "file" -> "archivo", "files" -> "archivos"), and the model's word is
replaced in the translation by the glossary's ("archivos" -> "ficheros"; a plural occurrence also
finds the target-language plural of the model's singular, "equipo" -> "equipos"), whole words,
case-insensitive, in the case of the word it replaces. The model chose the sentence around its
own word, so its number agrees and its order is natural; a Spanish, Italian or Portuguese
determiner right before it takes the glossary term's gender where the endings say the two differ
("la carpeta" -> "el directorio", "la cartella" -> "l'archivio": agreement.py).

`substitute` answers None when a term's own word is not in the translation (the model put it
another way): that segment is translated again with the terms masked (masking.py).
"""

from __future__ import annotations

import re

from .agreement import agree
from .forms import plural
from .matching import Found, english_plural

_EDGES = " \t.,;:!?¿¡\"'«»()[]…"
MAX_WORDS = 6  # a longer "translation" of a term alone is a sentence, not the model's word


def alone(found: Found, as_plural: bool) -> str:
    """The source text a term is translated alone from: its singular or its plural."""
    if not as_plural:
        return found.source
    head, _, last = found.source.rpartition(" ")
    return (head + " " if head else "") + english_plural(last)


def sources(found: Found) -> set[str]:
    """Every text `substitute` may look up for a term."""
    return {alone(found, False), alone(found, True)}


def _candidates(f: Found, own: dict[str, str], language: str):
    """(the model's word, the glossary's form that replaces it), the occurrence's number first;
    a plural also as the target language's plural of the model's singular ("equipo" -> "equipos")."""
    for as_plural in (f.plural, not f.plural):
        form = plural(f.target, language) if as_plural else f.target
        yield own.get(alone(f, as_plural), "").strip(_EDGES), form
        if as_plural:
            word = own.get(alone(f, False), "").strip(_EDGES)
            yield (plural(word, language) if word else ""), form


def _whole(word: str) -> re.Pattern:
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)


def _cased(target: str, like: str) -> str:
    letters = [c for c in like if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return target.upper()
    if like[:1].isupper():
        return target[:1].upper() + target[1:]
    return target


def _replace(text: str, word: str, form: str, language: str, singular: str = "") -> str:
    """Each whole-word occurrence of `word` in `text` as `form` (of the entry's target `singular`),
    its determiner agreeing."""
    out, at = [], 0
    for m in _whole(word).finditer(text):
        before, capital = agree(text[at : m.start()], m.group(0), form, language, singular)
        out.append(before)
        out.append(_cased(form, m.group(0).capitalize() if capital else m.group(0)))
        at = m.end()
    return "".join(out) + text[at:]


def substitute(text: str, found: list[tuple[Found, str]], own: dict[str, str], language: str) -> str | None:
    """`text` with each term's own word replaced by the glossary's (see the module docstring), or
    None if some term's own word is not in it."""
    for f, _ in found:
        target = plural(f.target, language) if f.plural else f.target
        if _whole(target).search(text):
            continue  # the model already wrote the glossary's word
        for word, form in _candidates(f, own, language):
            if not word or len(word.split()) > MAX_WORDS or not _whole(word).search(text):
                continue
            text = _replace(text, word, form, language, f.target)
            break
        else:
            return None
    return text
