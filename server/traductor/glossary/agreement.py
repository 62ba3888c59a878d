"""Spanish determiners made to agree with a glossary term that replaced a word of another gender.

Pass 1 (substitute.py) replaces the model's own word, and the model chose the words around it
for its own word: "la carpeta" with "folder -> directorio" would become "la directorio". When
the word right before the replaced one is a determiner of the replaced word's gender, and the
two nouns' genders, as their endings say, differ, the determiner takes the other gender:
"la carpeta" -> "el directorio", "de la carpeta" -> "del directorio", "una contraseña" ->
"un PIN" is left alone (no ending says PIN's gender).

Genders by ending (of a term's first word: the head of a Spanish noun phrase): -a, -ción, -sión,
-dad, -tad, -tud, -umbre feminine; -o, -or, -aje, -ón (not -ción/-sión) masculine; any other
ending (-e, -ma, -is, consonants) unknown, and nothing changes. Adjectives between the
determiner and the noun, and words after it, are not touched. Spanish only: other languages'
texts are returned as they are (docs/glossary.md says so).
"""

from __future__ import annotations

import re

_FEMININE = ("ción", "sión", "dad", "tad", "tud", "umbre", "a")
_MASCULINE = ("aje", "or", "ón", "o")
_SWAP = {
    "el": "la", "los": "las", "un": "una", "unos": "unas", "este": "esta", "estos": "estas",
    "ese": "esa", "esos": "esas", "aquel": "aquella", "aquellos": "aquellas", "del": "de la", "al": "a la",
}  # fmt: skip
_SWAP |= {f: m for m, f in _SWAP.items()}
_MALE = {"el", "los", "un", "unos", "este", "estos", "ese", "esos", "aquel", "aquellos", "del", "al"}
DETERMINER = re.compile(r"(?<!\w)(" + "|".join(sorted(_SWAP, key=len, reverse=True)) + r")(\s+)$", re.IGNORECASE)


def gender(phrase: str) -> str | None:
    """ "m", "f" or None, by the ending of the phrase's first word (singular or plural)."""
    words = phrase.split()
    if not words:
        return None
    word = words[0].lower()
    for form in (word, word[:-2] if word.endswith("es") else None, word[:-1] if word.endswith("s") else None):
        if form and form.endswith(("ción", "sión", "cion", "sion")):  # plurals lose the accent
            return "f"
        if form and form.endswith(_FEMININE):
            return "f"
        if form and form.endswith(_MASCULINE):
            return "m"
    return None


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


_PLURAL_DETERMINERS = {"los", "las", "unos", "unas", "estos", "estas", "esos", "esas", "aquellos", "aquellas"}


def plural(phrase: str) -> bool:
    """Whether a Spanish noun phrase's first word reads as a plural (-s after a vowel, -es; not
    -is, -us: "análisis", "virus")."""
    word = (phrase.split() or [""])[0].lower()
    return len(word) > 2 and word.endswith("s") and not word.endswith(("is", "us"))


def agree(before: str, own: str, target: str, language: str) -> tuple[str, bool]:
    """`before` (the text up to the replaced word) with its last determiner agreeing with `target`,
    and whether the term takes the capital of a determiner that was dropped. A singular determiner
    of the model's singular word before a plural term ("la configuración" -> "ajustes") cannot
    say the term's gender when its ending does not: it is dropped ("Guardar ajustes"), as Spanish
    interface text often has none; with a gender, it becomes plural."""
    if language.replace("_", "-").split("-")[0].lower() != "es":
        return before, False
    had, wants = gender(own), gender(target)
    m = DETERMINER.search(before)
    if not m:
        return before, False
    word = m.group(1)
    if plural(target) and not plural(own) and word.lower() not in _PLURAL_DETERMINERS | {"del", "al"}:
        if wants is None:
            return before[: m.start()], word[:1].isupper()
        singular = _SWAP[word.lower()] if (word.lower() in _MALE) != (wants == "m") else word.lower()
        plural_form = {"el": "los", "la": "las", "un": "unos", "una": "unas", "este": "estos", "esta": "estas",
                       "ese": "esos", "esa": "esas", "aquel": "aquellos", "aquella": "aquellas"}[singular]  # fmt: skip
        return before[: m.start()] + _cased(plural_form, word) + m.group(2), False
    if had is None or wants is None or had == wants or (word.lower() in _MALE) != (had == "m"):
        return before, False
    return before[: m.start()] + _cased(_SWAP[word.lower()], word) + m.group(2), False
