"""How a translation addresses its reader: `read` says informal (tú, tu, du), formal (usted,
vous, Sie), mixed (both in one text: "Debes reiniciar su equipo", "Saisissez ton nom", "Bitte gib
Ihren Namen ein") or neutral (neither), for Spanish, French and German.

It reads the register of the whole output, not only its pronouns: verb forms (Spanish "puedes"
against a clause-opening "puede" when the English says "you", "introduce"/"introduzca", French
"-ez" forms, the imperatives "Saisis", "Appuie", "Gib", "Klicke"), possessives (Spanish "su"
where the English has "your" and no other owner, German "Ihr" opening a sentence where the
English has "your") and object pronouns ("te", "dich", "Ihnen"). The English source, when given,
decides what the words that are also something else mean (a Spanish third-person verb is "you"
only where the English says "you"; a sentence-initial "Sie" is "you" unless the English has
"she" or "they"). The word lists are in address_words.py.

    read("¿Quieres guardar tus cambios?", "es", "Do you want to save your changes?")  # "informal"
    read("Debes reiniciar su equipo.", "es", "You must restart your computer.")       # "mixed"

A text-layer module: it knows words, not tokens or models (scripts/measure/formality_eval.py
measures models with it; tests/test_address.py).
"""

from __future__ import annotations

import re
import unicodedata

from . import address_words as W

FORMAL, INFORMAL, MIXED, NEUTRAL = "formal", "informal", "mixed", "neutral"
LANGUAGES = ("es", "fr", "de")

_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?:;…\n]")
_YOU = re.compile(r"\byou\b", re.IGNORECASE)
_YOUR = re.compile(r"\byours?\b", re.IGNORECASE)
_OTHER_OWNER = re.compile(r"\b(?:his|her|hers|its|their|theirs)\b", re.IGNORECASE)
_SHE_THEY = re.compile(r"\b(?:she|they)\b", re.IGNORECASE)
_FR_ELIDED_T = re.compile(r"(?<![\w-])t['’](?=[^\W\d_])", re.IGNORECASE)  # "t'a", not "va-t-il"
_EN_DESCRIBES = re.compile(r"^\W*[a-z]+(?:(?<!s)s|ing|ed)\b", re.IGNORECASE)  # "Saves the file": no imperative


class _Words:
    """A text's words with what stands before each: the separator and the word before it."""

    def __init__(self, text: str):
        self.text = text
        self.spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        self.words = [text[a:b] for a, b in self.spans]
        self.lower = [w.lower() for w in self.words]

    def separator(self, i: int) -> str:
        start = self.spans[i - 1][1] if i else 0
        return self.text[start : self.spans[i][0]]

    def starts_sentence(self, i: int) -> bool:
        return i == 0 or bool(_SENTENCE_END.search(self.separator(i)))

    def after_comma(self, i: int) -> bool:
        return i > 0 and "," in self.separator(i)


def _plain(word: str) -> str:
    """`word` without its accents ("inténtalo" -> "intentalo"), ñ kept."""
    out = unicodedata.normalize("NFD", word.replace("ñ", "\0"))
    return "".join(c for c in out if unicodedata.category(c) != "Mn").replace("\0", "ñ")


_ES_TU = {_plain(k): k for k in W.ES_IMPERATIVES}
_ES_USTED = {_plain(v) for v in W.ES_IMPERATIVES.values()}


def _es_with_enclitic(plain: str, forms, enclitics) -> bool:
    """Whether `plain` is one of `forms` with a pronoun joined to its end ("intentalo", "asegurese")."""
    return any(plain.endswith(e) and len(plain) - len(e) >= 4 and plain[: -len(e)] in forms for e in enclitics)


def _es(w: _Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    you = bool(_YOU.search(source)) if source else False
    your = bool(source) and bool(_YOUR.search(source)) and not _OTHER_OWNER.search(source)
    imperative_source = not source or not _EN_DESCRIBES.match(source)
    for i, word in enumerate(w.lower):
        plain = _plain(word)
        if word in W.ES_INFORMAL:
            informal.append(w.words[i])
        elif word in W.ES_FORMAL or word in W.ES_IMPERATIVES.values() or plain in _ES_USTED:
            formal.append(w.words[i])
        elif _es_with_enclitic(plain, _ES_USTED, W.ES_ENCLITICS):
            formal.append(w.words[i])
        elif _es_with_enclitic(plain, _ES_TU, [e for e in W.ES_ENCLITICS if "se" not in e]):
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
    you_sense = not source or not _SHE_THEY.search(source)
    your_sense = not source or (bool(_YOUR.search(source)) and not _OTHER_OWNER.search(source))
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


_READERS = {"es": _es, "fr": _fr, "de": _de}


def markers(text: str, language: str, source: str = "") -> dict[str, list[str]]:
    """The words of `text` (a translation into `language`, of the English `source` when given)
    that address the reader formally and informally, in order."""
    reader = _READERS.get(language.split("-")[0].split("_")[0].lower())
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
