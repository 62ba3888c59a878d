"""Plural forms: how many a language has, which numbers each serves, and which translation fills it.

A source file (English) has two texts for a countable message, the singular and the plural; a
translated file has as many forms as its language: Russian three in gettext (1, 21, 31...;
2-4, 22-24...; the rest) and in Qt, and four quantities in Android (``one``, ``few``, ``many``,
``other``). Every form gets one of the two translations (:func:`texts`):

- the form that serves n=1 gets the singular's translation when it serves few numbers (English's
  1, French's 0 and 1) or when the singular carries the plural's placeholders ("%d file" /
  "%d files": the form of 1, 21, 31 in Russian reads "%d файл");
- every other form, and the form of 1 when the singular names no number ("One file" would be
  shown for 21), gets the plural's translation.

The service translates each text once; the grammatical case a Russian number wants (файла after
2-4, файлов after 5) is the model's plural in every form but the first: a reviewer's task.

:data:`LANGUAGES` is the standard table, for the languages traductor translates into, of what
a file made for that language carries: gettext's ``Plural-Forms`` (the GNU gettext manual's
"Plural forms" list), Android's quantities (CLDR's integer categories, and ``other``, which Android
falls back on) and Qt Linguist's count of ``<numerusform>``. A language outside it keeps what its
file has.

What this module does not know: any file format.
"""

from __future__ import annotations

import gettext
import re
from dataclasses import dataclass
from typing import List, Optional, Sequence

from traductor_client.files import placeholders
from traductor_client.files.errors import FileError
from traductor_client.files.language import tag

_TWO = "nplurals=2; plural=(n != 1);"
_RUSSIAN = "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"


@dataclass(frozen=True)
class Language:
    plural_forms: str  # gettext's header value
    quantities: Sequence[str]  # Android's <item quantity>s a translated <plurals> carries, CLDR's order
    numerus: int  # Qt's <numerusform>s


LANGUAGES = {
    "en": Language(_TWO, ("one", "other"), 2),
    "de": Language(_TWO, ("one", "other"), 2),
    "es": Language(_TWO, ("one", "other"), 2),
    "it": Language(_TWO, ("one", "other"), 2),
    "nl": Language(_TWO, ("one", "other"), 2),
    "pt": Language(_TWO, ("one", "other"), 2),
    "fr": Language("nplurals=2; plural=(n > 1);", ("one", "other"), 2),
    "pt_BR": Language("nplurals=2; plural=(n > 1);", ("one", "other"), 2),
    "ru": Language(_RUSSIAN, ("one", "few", "many", "other"), 3),
}
CATEGORIES = ("zero", "one", "two", "few", "many", "other")  # CLDR's order, the order a <plurals> lists


def language(code: str) -> Optional[Language]:
    """The table's entry for a code as files and services spell it ("ru", "ru_RU", "pt-BR",
    "PT-BR"): the language and region first, then the language alone; None when not in it."""
    full = tag(code, "_")  # files/language.py reads every spelling
    return (LANGUAGES.get(full) or LANGUAGES.get(full.split("_")[0])) if full else None


@dataclass(frozen=True)
class PluralForms:
    nplurals: int
    often: Sequence[bool]  # per form: used for 5 or more n in 0..1000 (msgfmt's "strict" forms)
    of_one: int  # the form n=1 takes


_PLURAL_FORMS = re.compile(r"^\s*nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;]+?)\s*;?\s*$")


def parse(header: str) -> PluralForms:
    """A ``Plural-Forms`` value; raises :class:`FileError` (with the reason) when unusable."""
    match = _PLURAL_FORMS.match(header)
    if not match or int(match[1]) < 1:
        raise FileError(f"Plural-Forms is not 'nplurals=N; plural=EXPRESSION;': {header!r}")
    nplurals = int(match[1])
    try:
        plural = gettext.c2py(match[2])  # the standard library's safe C-expression evaluator
        forms = [plural(n) for n in range(1001)]
    except (ValueError, SyntaxError, ZeroDivisionError) as error:
        raise FileError(f"Plural-Forms expression {match[2]!r} is not valid: {error}") from None
    if any(not 0 <= form < nplurals for form in forms):
        raise FileError(f"Plural-Forms expression {match[2]!r} gives forms outside 0..{nplurals - 1}")
    return PluralForms(nplurals, tuple(forms.count(index) >= 5 for index in range(nplurals)), forms[1])


def carries_number(singular: str, plural: str) -> bool:
    """Whether the singular text holds the plural's placeholders ("%d file" for "%d files")."""
    return placeholders.problem(plural, singular) is None


def texts(forms: PluralForms, singular: str, plural: str) -> List[bool]:
    """Per form, whether it takes the singular's translation (see the module docstring)."""
    carries = forms.nplurals > 1 and carries_number(singular, plural)
    return [index == forms.of_one and (not forms.often[index] or carries) for index in range(forms.nplurals)]


def singular_for_one(language: Language, singular: str, plural: str) -> bool:
    """Whether the form of n=1 in ``language`` (Android's "one") takes the singular's translation."""
    forms = parse(language.plural_forms)
    return texts(forms, singular, plural)[forms.of_one]


__all__ = [
    "CATEGORIES",
    "LANGUAGES",
    "Language",
    "PluralForms",
    "carries_number",
    "language",
    "parse",
    "singular_for_one",
    "texts",
]
