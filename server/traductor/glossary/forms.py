"""The target term as a matched occurrence needs it: its number and its capital letter.

Number: an occurrence matched through a term's English plural ("files" for the entry
"file -> fichero") gets the target term's plural by the regular rules of the target language:

    es  the words before the first preposition take -s after a vowel, -es after a consonant
        (-ón -> -ones, -z -> -ces), none after -s/-x: "fichero oculto" -> "ficheros ocultos",
        "sistema de ficheros" -> "sistemas de ficheros", "configuración" -> "configuraciones"
    fr  the same span: -s, none after -s/-x/-z, -au/-eu -> -x, -al -> -aux
    en  -s/-es/-ies on the last word
    any other language (German's plurals are not regular): the term as written

An irregular plural is given as an entry of its own ("mouse -> ratón" and "mice -> ratones"),
which wins over the derived one. Nothing else is inflected: the model does not see the term (it
sees a placeholder), so an article or adjective elsewhere in the sentence may not agree with it
(docs/glossary.md measures how often this matters).

Case: when the occurrence starts with a capital letter and the entry's source term does not
("File" for "file"), the target's first letter is capitalised; an occurrence in capitals ("FILE")
gets the target in capitals. Otherwise the target is written as the entry has it.
"""

from __future__ import annotations

import re

from .matching import Found, english_plural

_ACCENTED = str.maketrans("áéíóú", "aeiou")
_STOP = {
    "es": {"de", "del", "a", "al", "en", "para", "por", "con", "sin", "sobre", "entre", "y", "o"},
    "fr": {"de", "du", "des", "d", "à", "au", "aux", "en", "pour", "par", "sur", "avec", "sans", "et", "ou"},
}
_WORD = re.compile(r"\w+|\W+")


def _plural_es(word: str) -> str:
    low = word.lower()
    if not low[-1:].isalpha() or low[-1] in "sx":
        return word
    if low[-1] == "z":
        return word[:-1] + ("C" if word[-1].isupper() else "c") + ("ES" if word.isupper() else "es")
    if low[-1] in "aeiouáéó":
        return word + ("S" if word.isupper() else "s")
    if len(low) > 2 and low[-2] in "áéíóú":  # "configuración" -> "configuraciones": the accent goes
        word = word[:-2] + word[-2].translate(_ACCENTED) + word[-1]
    return word + ("ES" if word.isupper() else "es")


def _plural_fr(word: str) -> str:
    low, upper = word.lower(), word.isupper()
    if not low[-1:].isalpha() or low[-1] in "sxz":
        return word
    if low.endswith(("au", "eu")):
        return word + ("X" if upper else "x")
    if low.endswith("al") and len(low) > 3:
        return word[:-1] + ("UX" if upper else "ux")
    return word + ("S" if upper else "s")


def _romance_plural(phrase: str, language: str, plural) -> str:
    """Pluralise the words of `phrase` up to its first preposition or conjunction."""
    out, stopped = [], False
    for part in _WORD.findall(phrase):
        if part[0].isalnum() or part[0] == "_":  # a word
            if part.lower() in _STOP[language]:
                stopped = True
            elif not stopped:
                part = plural(part)
        out.append(part)
    return "".join(out)


def plural(term: str, language: str) -> str:
    """The plural of a target term in `language` (a BCP 47 tag or any code starting with one)."""
    base = language.replace("_", "-").split("-")[0].lower()
    if base == "es":
        return _romance_plural(term, "es", _plural_es)
    if base == "fr":
        return _romance_plural(term, "fr", _plural_fr)
    if base == "en":
        head, _, last = term.rpartition(" ")
        return (head + " " if head else "") + english_plural(last) if last[-1:].isalpha() else term
    return term


def target_form(found: Found, occurrence: str, language: str) -> str:
    """The target text that replaces `occurrence` (the source text matched as `found`)."""
    target = plural(found.target, language) if found.plural else found.target
    letters = [c for c in occurrence if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters) and not found.source.isupper():
        return target.upper()
    if occurrence[:1].isupper() and not found.source[:1].isupper():
        return target[:1].upper() + target[1:]
    return target
