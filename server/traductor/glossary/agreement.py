"""Determiners made to agree with a glossary term that replaced a word of another gender (Spanish,
Italian, Portuguese; the tables are determiners.py's).

Pass 1 (substitute.py) replaces the model's own word, and the model chose the words around it
for its own word: "la carpeta" with "folder -> directorio" would become "la directorio". When
the word right before the replaced one is a determiner of the replaced word's gender, and the
two nouns' genders, as their endings say, differ, the determiner takes the other gender:
"la carpeta" -> "el directorio", "de la carpeta" -> "del directorio", "a pasta" -> "o
diretório", "la cartella" -> "l'archivio"; "una contraseña" -> "un PIN" is left alone (no
ending says PIN's gender). In Italian and Portuguese, whose interface text keeps many English
words ("il file", "o mouse"), the determiner's gender is taken for the replaced word's when its
ending says none ("il file" -> "la cartella"); Spanish asks both endings. A determiner that names
no gender (Italian "l'") is taken to be the replaced word's.

Genders by ending, of a term's first word (the head of a Romance noun phrase; determiners.py has
the lists): Spanish -a, -ción, -sión, -dad, -tad, -tud, -umbre feminine, -o, -or, -aje, -ón
masculine; Italian -a, -zione, -sione, -tà, -trice, -ie feminine, -o, -ore masculine, masculine
-a ("sistema", "programma"); Portuguese -a, -ção, -são, -dade, -tude, -gem feminine, -o, -or, -ão
masculine, masculine -a ("sistema", "mapa"). Any other ending (-e, -ista, consonants: English
words) is unknown, and the gender does not change; the entry's singular is read when its plural
says nothing ("archivi": "archivio", masculine). Italian writes a determiner by the sound of the
next word: "il" -> "l'" before a vowel, "lo" before s + consonant or z, "i" -> "gli", "una" ->
"un'", "del" -> "dello"/"dell'": the form is chosen for the term whenever the determiner is
rewritten or its form no longer fits ("il file" -> "l'archivio").

Number (Spanish, Portuguese: a plural reads -s): a singular determiner of the model's singular
word before a plural term ("la configuración" -> "ajustes") cannot say the term's gender when its
ending does not: it is dropped ("Guardar ajustes"), as interface text often has none, leaving a
contraction's preposition ("de la configuración" -> "de ajustes"); with a gender, it becomes
plural ("las opciones"). Italian plurals do not say their number by ending (-e, -i): no number
change. Adjectives between the determiner and the noun, and words after it, are not touched.
Other languages' texts (French, German, Dutch, Russian...) are returned as they are.
"""

from __future__ import annotations

from .determiners import RULES

_APOSTROPHES = ("'", "’")


def _cased(word: str, like: str) -> str:
    letters = [c for c in like if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _put(before: str, m, new: str | None) -> tuple[str, bool]:
    """`before` with the determiner `m` found written as `new` (None: left as it is)."""
    word, spaces = m.group(1), m.group(2)
    if new is None or new == word.lower().replace("’", "'"):
        return before, False
    if word.endswith("’"):
        new = new.replace("'", "’")
    after = "" if new.endswith(_APOSTROPHES) else spaces or " "
    return before[: m.start()] + _cased(new, word) + after, False


def agree(before: str, own: str, target: str, language: str, singular: str = "") -> tuple[str, bool]:
    """`before` (the text up to the replaced word `own`) with its last determiner agreeing with
    `target` (the term as it replaces `own`; `singular`: the entry's target, when the caller has
    it), and whether the term takes the capital of a determiner that was dropped (see the module
    docstring)."""
    rules = RULES.get(language.replace("_", "-").split("-")[0].lower())
    m = rules.pattern.search(before) if rules else None
    if not m or not (m.group(2) or m.group(1).endswith(_APOSTROPHES)):
        return before, False
    word = m.group(1)
    kind, said, number = rules.determiners[word.lower().replace("’", "'")]
    had = rules.gender(own, number == "pl") or (said if rules.trusted else None)
    wants = rules.gender(target, None) or (rules.gender(singular, None) if singular else None)
    plural = rules.plural
    if plural and number == "sg" and (kind, "m", "pl") in rules.forms and plural(target) and not plural(own):
        if wants is None:
            bare = rules.bare.get(kind)
            if bare is None:
                return before[: m.start()], word[:1].isupper()
            return before[: m.start()] + _cased(bare, word) + (m.group(2) or " "), False
        return _put(before, m, rules.form(kind, wants, "pl", target))
    said = said or had or wants
    if said is None:
        return before, False
    gender = wants if had and wants and had != wants and said == had else said
    return _put(before, m, rules.form(kind, gender, number, target))
