"""Determiners and noun genders of Spanish, Italian and Portuguese: one table per language, for
agreement.py (which says what is done with them).

A language's `Rules`: the gender a noun's ending says, its determiners as (kind, gender, number)
-> the written form ("el", "m", "sg") -> "el"), the preposition a contraction holds ("del" ->
"de"), whether a term reads as plural, and, for Italian, the form a determiner takes before the
word that follows it ("il" -> "l'" before a vowel, "lo" before s + consonant).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from .plurals_romance import ITALIAN_LOANS, masculine_in_a

_NUMBERS = (("m", "sg"), ("f", "sg"), ("m", "pl"), ("f", "pl"))


def _table(kinds: dict[str, tuple[str, ...]]) -> dict[tuple[str, str, str], str]:
    """(kind, gender, number) -> form, from each kind's forms in the order of _NUMBERS."""
    return {(kind, g, n): form for kind, forms in kinds.items() for (g, n), form in zip(_NUMBERS, forms)}


def _same(form: str, following: str) -> str:
    return form


@dataclass(frozen=True)
class Rules:
    gender: Callable[[str, bool | None], str | None]  # a phrase's gender ("m", "f", None) by its first
    # word's ending; the bool: it is plural (the determiner says so), None: not known
    forms: dict[tuple[str, str, str], str]  # (kind, gender, number) -> the determiner written
    bare: dict[str, str] = field(default_factory=dict)  # a contraction's preposition alone
    plural: Callable[[str], bool] | None = None  # a term reads as plural (None: number never changed)
    before: Callable[[str, str], str] = _same  # the form before the word that follows it
    variants: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)  # other forms
    trusted: bool = False  # a determiner's gender stands for the replaced word's when its ending says none

    @cached_property
    def determiners(self) -> dict[str, tuple[str, str | None, str]]:
        """Each written determiner (lower case, ' for an apostrophe) -> (kind, gender, number)."""
        return {form: key for key, form in self.forms.items()} | self.variants

    @cached_property
    def pattern(self) -> re.Pattern:
        """A determiner at the end of a text, and the spaces after it."""
        words = sorted(self.determiners, key=len, reverse=True)
        alternatives = "|".join(re.escape(w).replace("'", "['’]") for w in words)
        return re.compile(rf"(?<!\w)({alternatives})(\s*)$", re.IGNORECASE)

    def form(self, kind: str, gender: str, number: str, following: str) -> str | None:
        written = self.forms.get((kind, gender, number))
        return None if written is None else self.before(written, following)


def _first(phrase: str) -> str:
    return (phrase.split() or [""])[0].lower()


# Spanish: -a, -ción, -sión, -dad, -tad, -tud, -umbre feminine; -o, -or, -aje, -ón masculine
_ES_FEMININE = ("ción", "sión", "dad", "tad", "tud", "umbre", "a")
_ES_MASCULINE = ("aje", "or", "ón", "o")


def _gender_es(phrase: str, plural: bool | None = None) -> str | None:
    word = _first(phrase)
    for form in (word, word[:-2] if word.endswith("es") else None, word[:-1] if word.endswith("s") else None):
        if form and form.endswith(("ción", "sión", "cion", "sion")):  # plurals lose the accent
            return "f"
        if form and form.endswith(_ES_FEMININE):
            return "f"
        if form and form.endswith(_ES_MASCULINE):
            return "m"
    return None


def _reads_plural_es(phrase: str) -> bool:
    """A Spanish noun phrase's first word reads as a plural (-s after a vowel, -es; not -is, -us:
    "análisis", "virus")."""
    word = _first(phrase)
    return len(word) > 2 and word.endswith("s") and not word.endswith(("is", "us"))


SPANISH = Rules(
    _gender_es,
    _table(
        {
            "el": ("el", "la", "los", "las"),
            "un": ("un", "una", "unos", "unas"),
            "este": ("este", "esta", "estos", "estas"),
            "ese": ("ese", "esa", "esos", "esas"),
            "aquel": ("aquel", "aquella", "aquellos", "aquellas"),
            "del": ("del", "de la", "de los", "de las"),
            "al": ("al", "a la", "a los", "a las"),
        }
    ),
    bare={"del": "de", "al": "a"},
    plural=_reads_plural_es,
)

# Italian: -a (not "sistema", "programma"), -zione, -sione, -gione, -tà, -tù, -trice, -ie feminine;
# -o, -ore, -aggio masculine; -e (feminine after a plural determiner: "cartelle"), -i (masculine
# after one: "archivi"), -ista, consonants (English words) unknown
_IT_FEMININE_O = {"mano", "radio", "foto", "moto", "auto", "dinamo"}
_IT_VOWEL = re.compile(r"h?[aeiouàèéìíòóùú]")
_IT_IMPURE = re.compile(r"s[^aeiouàèéìòùh]|z|gn|ps|pn|x|y|i[aeiou]")


def _gender_it(phrase: str, plural: bool | None = None) -> str | None:
    word = _first(phrase)
    if word in ITALIAN_LOANS:
        return None  # "file", "database": an English word's gender is usage
    if word in _IT_FEMININE_O:
        return "f"
    if masculine_in_a(word) or (word.endswith("i") and masculine_in_a(word[:-1] + "a")):
        return "m"  # "sistema", "sistemi"
    if word.endswith(("zione", "sione", "gione", "zioni", "sioni", "gioni", "tà", "tù", "trice", "trici", "ie")):
        return "f"
    if word.endswith(("che", "ghe")) or (plural and word.endswith("e")):
        return "f"  # plural of -a: "banche", "cartelle"
    if word.endswith(("ore", "ori", "chi", "ghi", "o")) or (plural and word.endswith("i")):
        return "m"  # a plural -i after "i", "gli" ("archivi"); a wrong guess ("le immagini") changes
        # nothing: the determiner must say the word's gender
    if word.endswith("a") and not word.endswith(("ista", "cida", "iatra")):
        return "f"
    return None


def _before_it(form: str, following: str) -> str:
    """The determiner before `following`: "il" -> "l'" before a vowel (or h and a vowel), "lo"
    before s + consonant, z, gn, ps, x, y, i + vowel; "la", "una" -> "l'", "un'" before a vowel;
    "i" -> "gli"; contractions and "quel" likewise ("del" -> "dello", "dell'")."""
    low = following.lower()
    impure = bool(_IT_IMPURE.match(low))
    vowel = bool(_IT_VOWEL.match(low)) and not impure
    if form == "il":
        return "l'" if vowel else "lo" if impure else "il"
    if form in ("la", "una"):
        return form[:-1] + "'" if vowel else form
    if form == "un":
        return "uno" if impure else "un"
    if form == "i":
        return "gli" if vowel or impure else "i"
    if form.endswith("lla"):
        return form[:-1] + "'" if vowel else form  # "della" -> "dell'"
    if form.endswith("l"):
        return form + "l'" if vowel else form + "lo" if impure else form  # "del" -> "dell'", "dello"
    if form.endswith("i") and form not in ("questi",):
        return form[:-1] + "gli" if vowel or impure else form  # "dei" -> "degli"
    return form


_IT_KINDS = {"il": ("il", "la", "i", "le"), "questo": ("questo", "questa", "questi", "queste")}
_IT_KINDS |= {p + "l": (p + "l", p + "lla", p + "i", p + "lle") for p in ("de", "a", "da", "ne", "su", "que")}
_IT_VARIANTS = {"lo": ("il", "m", "sg"), "l'": ("il", None, "sg"), "gli": ("il", "m", "pl")}
_IT_VARIANTS |= {"uno": ("un", "m", "sg"), "un'": ("un", "f", "sg"), "quest'": ("questo", None, "sg")}
for _p in ("de", "a", "da", "ne", "su", "que"):
    _IT_VARIANTS |= {
        _p + "llo": (_p + "l", "m", "sg"),
        _p + "ll'": (_p + "l", None, "sg"),
        _p + "gli": (_p + "l", "m", "pl"),
    }

ITALIAN = Rules(
    _gender_it,
    _table(_IT_KINDS) | {("un", "m", "sg"): "un", ("un", "f", "sg"): "una"},
    bare={"del": "di", "al": "a", "dal": "da", "nel": "in", "sul": "su"},
    before=_before_it,
    variants=_IT_VARIANTS,
    trusted=True,
)

# Portuguese: -a (not "sistema", "programa", "mapa", "dia"), -ção, -são, -dade, -tude, -gem, -ise, -ã
# feminine; -o, -or, -ão, -ume masculine; -e, -al, -ista, other consonants unknown
_PT_MASCULINE_A = {"sistema", "programa", "problema", "tema", "esquema", "diagrama", "dilema", "idioma", "clima"}
_PT_MASCULINE_A |= {"mapa", "dia", "planeta", "cinema", "teorema", "drama", "pijama", "poema", "aroma", "genoma"}
_PT_MASCULINE_A |= {"diploma", "axioma", "enigma", "paradigma", "estigma", "dogma", "panorama", "telefonema"}
_PT_FEMININE = {"foto", "moto", "tribo", "cor", "dor", "flor"}


def _gender_pt(phrase: str, plural: bool | None = None) -> str | None:
    word = _first(phrase)
    forms = [word]
    if word.endswith("s"):  # the singulars it may be the plural of
        for end, singular in (("ões", "ão"), ("ns", "m"), ("ais", "al"), ("res", "r"), ("zes", "z"), ("s", "")):
            if word.endswith(end):
                forms.append(word[: len(word) - len(end)] + singular)
    for form in forms:
        if form in _PT_FEMININE:
            return "f"
        if form in _PT_MASCULINE_A or form.endswith("grama"):
            return "m"
        if form.endswith(("ção", "são", "dade", "tude", "gem", "ise", "ã")):
            return "f"
        if form.endswith(("o", "or", "ão", "ume")):
            return "m"
        if form.endswith("a") and not form.endswith("ista"):
            return "f"
    return None


def _reads_plural_pt(phrase: str) -> bool:
    """A Portuguese noun phrase's first word reads as a plural: -s, not -us, -ês, -ás, -ís and
    not -is unless -ais, -éis, -óis, -eis ("lápis", "vírus", "mês" are singular)."""
    word = _first(phrase)
    if len(word) < 3 or not word.endswith("s") or word.endswith(("us", "ês", "ás", "ís", "ós")):
        return False
    return not word.endswith("is") or word.endswith(("ais", "éis", "óis", "eis"))


_PT_KINDS = {"o": ("o", "a", "os", "as"), "um": ("um", "uma", "uns", "umas"), "do": ("do", "da", "dos", "das")}
_PT_KINDS |= {
    "no": ("no", "na", "nos", "nas"),
    "ao": ("ao", "à", "aos", "às"),
    "pelo": ("pelo", "pela", "pelos", "pelas"),
}
_PT_KINDS |= {p + "um": (p + "um", p + "uma", p + "uns", p + "umas") for p in ("d", "n")}
_PT_KINDS |= {
    w: (w, w[:-1] + "a", w + "s", w[:-1] + "as")
    for w in (p + d for p in ("", "d", "n") for d in ("este", "esse", "aquele"))
}

PORTUGUESE = Rules(
    _gender_pt,
    _table(_PT_KINDS),
    bare={"do": "de", "no": "em", "ao": "a", "pelo": "por", "dum": "de", "num": "em"}
    | {p + d: {"d": "de", "n": "em"}[p] for p in ("d", "n") for d in ("este", "esse", "aquele")},
    plural=_reads_plural_pt,
    trusted=True,
)

RULES = {"es": SPANISH, "it": ITALIAN, "pt": PORTUGUESE}
