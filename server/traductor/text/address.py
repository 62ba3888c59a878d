"""How a translation addresses its reader: `read` says informal (tú, tu, du), formal (usted,
vous, Sie), mixed (both in one text: "Debes reiniciar su equipo", "Saisissez ton nom", "Bitte gib
Ihren Namen ein") or neutral (neither), for Spanish, French and German here, and for Italian,
Brazilian Portuguese, Dutch and Russian in address_more.py (tu/Lei, você/o senhor, je/u, ты/вы).

It reads the register of the whole output, not only its pronouns: verb forms (Spanish "puedes"
against a clause-opening "puede" when the English says "you", "introduce"/"introduzca", French
"-ez" forms, the imperatives "Saisis", "Appuie", "Gib", "Klicke"), possessives (Spanish "su"
where the English has "your" and no other owner, German "Ihr" opening a sentence where the
English has "your") and object pronouns ("te", "dich", "Ihnen"). The English source, when given,
decides what the words that are also something else mean (a Spanish third-person verb is "you"
only where the English says "you"; a sentence-initial "Sie" is "you" unless the English has
"she" or "they"). The word lists are in address_words.py (address_more_words.py, which takes
its pronouns from model/controls.ADDRESS); what the readers share in address_text.py.

    read("¿Quieres guardar tus cambios?", "es", "Do you want to save your changes?")  # "informal"
    read("Debes reiniciar su equipo.", "es", "You must restart your computer.")       # "mixed"

A text-layer module: it knows words, not tokens or models (scripts/measure/formality_eval.py
measures models with it; tests/test_address.py, tests/test_address_more.py).
"""

from __future__ import annotations

import re

from . import address_more
from . import address_words as W
from .address_text import Words as _Words
from .address_text import describes, plain, says_she_or_they, says_you, says_your

FORMAL, INFORMAL, MIXED, NEUTRAL = "formal", "informal", "mixed", "neutral"
LANGUAGES = ("es", "fr", "de", "it", "pt-BR", "nl", "ru")

_FR_ELIDED_T = re.compile(r"(?<![\w-])t['’](?=[^\W\d_])", re.IGNORECASE)  # "t'a", not "va-t-il"


_ES_TU = {plain(k): k for k in W.ES_IMPERATIVES}
_ES_USTED = {plain(v) for v in W.ES_IMPERATIVES.values()}


def _es_with_enclitic(bare: str, forms, enclitics) -> bool:
    """Whether `bare` is one of `forms` with a pronoun joined to its end ("intentalo", "asegurese")."""
    return any(bare.endswith(e) and len(bare) - len(e) >= 4 and bare[: -len(e)] in forms for e in enclitics)


def _es(w: _Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    you, your, imperative_source = says_you(source), says_your(source), not describes(source)
    for i, word in enumerate(w.lower):
        bare = plain(word)
        if word in W.ES_INFORMAL:
            informal.append(w.words[i])
        elif word in W.ES_FORMAL or word in W.ES_IMPERATIVES.values() or bare in _ES_USTED:
            formal.append(w.words[i])
        elif _es_with_enclitic(bare, _ES_USTED, W.ES_ENCLITICS):
            formal.append(w.words[i])
        elif _es_with_enclitic(bare, _ES_TU, [e for e in W.ES_ENCLITICS if "se" not in e]):
            informal.append(w.words[i])
        elif word in W.ES_IMPERATIVES and imperative_source and _es_imperative_place(w, i):
            informal.append(w.words[i])
        elif word in W.ES_THIRD_PERSON and you and _es_clause_start(w, i):
            formal.append(w.words[i])
        elif word in W.ES_POSSESSIVE_FORMAL and your:
            formal.append(w.words[i])
        elif (
            word in W.ES_USTED_OBJECT and you and i + 1 < len(w.lower) and w.lower[i + 1].startswith(("gust", "inter"))
        ):
            formal.append(w.words[i])
    return formal, informal


def _es_imperative_place(w: _Words, i: int) -> bool:
    """A place where a Spanish imperative stands: a sentence's or clause's start, after "por favor"."""
    if w.starts_sentence(i) or w.after_comma(i):
        return True
    before = w.lower[i - 1]
    return before in W.ES_IMPERATIVE_OPENERS or (before == "favor" and i >= 2 and w.lower[i - 2] == "por")


def _es_clause_start(w: _Words, i: int) -> bool:
    """Whether the verb at `i` opens a clause, so that its subject is the reader ("¿Desea...?",
    "Si no puede...", "...de que quiere..."), not a word before it ("El archivo no puede...")."""
    k = i
    while k > 0 and w.lower[k - 1] in W.ES_TRANSPARENT and not w.starts_sentence(k):
        k -= 1
    if w.starts_sentence(k) or w.after_comma(k) or "¿" in w.separator(k) or "¡" in w.separator(k):
        return True
    before = w.lower[k - 1]
    return before in W.ES_CLAUSE_OPENERS or before in ("usted", "favor")


def _fr(w: _Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    informal += [m.group(0) for m in _FR_ELIDED_T.finditer(w.text)]
    for i, word in enumerate(w.lower):
        if word in W.FR_FORMAL:
            formal.append(w.words[i])
        elif (
            word in W.FR_INFORMAL and word != "t" and not (word == "ton" and i and w.lower[i - 1] in ("le", "un", "du"))
        ):
            informal.append(w.words[i])
        elif word.endswith("ez") and len(word) >= 4 and word not in W.FR_EZ_NOT_VERBS:
            formal.append(w.words[i])  # "Saisissez", "Voulez", "pouvez"
        elif word in W.FR_IMPERATIVES_INFORMAL and _fr_imperative(w, i):
            informal.append(w.words[i])
    return formal, informal


def _fr_after_link(w: _Words, i: int) -> bool:
    return i > 0 and w.lower[i - 1] in ("et", "ou", "puis", "plaît", "ensuite")


_FR_INVERSION = re.compile(r"-(?:t-)?(?:il|elle|on|ils|elles)\b", re.IGNORECASE)  # "Va-t-il", "Est-il"


def _fr_imperative(w: _Words, i: int) -> bool:
    """Whether the word at `i` stands where an imperative does (and is no question: "Va-t-il")."""
    if _FR_INVERSION.match(w.text, w.spans[i][1]):
        return False
    return w.starts_sentence(i) or w.after_comma(i) or _fr_after_link(w, i)


def _de(w: _Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    you_sense = not source or not says_she_or_they(source)
    your_sense = not source or says_your(source)
    for i, word in enumerate(w.words):
        lower = w.lower[i]
        start = w.starts_sentence(i)
        if lower in W.DE_INFORMAL:
            informal.append(word)
        elif word in W.DE_FORMAL:
            if not start or (word == "Sie" and you_sense) or (word.startswith("Ihr") and your_sense):
                formal.append(word)
        elif word == "sie" and i == 1 and w.lower[0].endswith("en"):
            formal.append(word)  # "Wählen sie den Drucker": a formal imperative with a lowercase "sie"
        elif lower in W.DE_IMPERATIVES_INFORMAL and (start or w.after_comma(i) or _de_after_link(w, i)):
            informal.append(word)
    return formal, informal


def _de_after_link(w: _Words, i: int) -> bool:
    return i > 0 and w.lower[i - 1] in ("bitte", "und", "oder", "dann", "danach")


_READERS = {"es": _es, "fr": _fr, "de": _de, **address_more.READERS}


def _reader(language: str):
    """The reader of a language code ("de-DE", "pt_BR"); Portuguese only as Brazil's (pt, pt-BR):
    in Portugal "você" is no informal word."""
    code = language.replace("_", "-").lower()
    base = code.split("-")[0]
    if base == "pt" and code not in ("pt", "pt-br"):
        return None
    return _READERS.get(base)


def markers(text: str, language: str, source: str = "") -> dict[str, list[str]]:
    """The words of `text` (a translation into `language`, of the English `source` when given)
    that address the reader formally and informally, in order."""
    reader = _reader(language)
    if reader is None:
        raise ValueError(f"no register rules for {language!r} (known: {', '.join(LANGUAGES)})")
    formal, informal = reader(_Words(text), source)
    return {FORMAL: formal, INFORMAL: informal}


def read(text: str, language: str, source: str = "") -> str:
    """FORMAL, INFORMAL, MIXED (words of both) or NEUTRAL (neither) for a translation."""
    found = markers(text, language, source)
    if found[FORMAL] and found[INFORMAL]:
        return MIXED
    return FORMAL if found[FORMAL] else INFORMAL if found[INFORMAL] else NEUTRAL
