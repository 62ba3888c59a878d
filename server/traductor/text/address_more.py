"""The register readers of Italian, Brazilian Portuguese, Dutch and Russian (text/address.py reads
es, fr, de and dispatches to these): each gives the words of a translation that address its
reader formally and informally, in order. Word lists: address_more_words.py.

- Italian: tu/ti/te/tuo... and "vuoi", "puoi", "hai", "stai", "sei sicuro" against Lei/Suo/Sua...
  with their capital inside a sentence (opening one where the English says "you"/"your"); tu and
  Lei imperatives of interface verbs ("Inserisci"/"Inserisca", "Fai"/"Faccia", "Seleziona"/
  "Selezioni") where an imperative stands and before an article, "qui", "clic"...; "Si assicuri",
  "Assicurati", "Contattaci"; "La preghiamo"/"Le consigliamo"; and, where the English says "you",
  a sentence-opening "Vuole", "Può", "Ha" ("Vuole salvare le modifiche?"). "voi"/"vostro" (the
  plural, an old formal) is neither. The article "La"/"Le" counts only in "La preghiamo..." and
  capitalised inside a sentence.
- Brazilian Portuguese: você/te/teu... against "o senhor"/"a senhora" (after an article).
  Imperatives ("Digite", "Clique") and "seu"/"sua" are shared by both, "lhe" is also him/her:
  neutral.
- Dutch: je/jij/jou/jouw against u/uw; imperatives ("Klik") are shared: neutral.
- Russian: ты/тебя/твой... and second-person singular verbs ("можешь", "хочешь") and ты
  imperatives ("нажми", "убедись") against вы/вас/ваш... (Вы too), "можете", вы imperatives
  ("нажмите", "убедитесь", any "-йте"/"-ите"/"-ьте" word where an imperative stands).
"""

from __future__ import annotations

from . import address_more_words as W
from .address_text import Words, describes, says_she_or_they, says_you, says_your

_IT_LEI = frozenset(W.IT_IMPERATIVES.values())
_IT_TU = frozenset(W.IT_IMPERATIVES)


def it_second_present(tu: str, lei: str) -> str | None:
    """The second-person present of a tu/Lei imperative pair's verb: the tu imperative of an
    -ere/-ire verb ("premi/prema": "premi"), the Lei one of an -are verb ("seleziona/selezioni":
    "selezioni"); None for another shape ("dì/dica")."""
    if not (tu.isalpha() and lei.isalpha()):
        return None
    return lei if tu.endswith("a") else tu if tu.endswith("i") else None


# the imperatives' verbs in the second-person present; not "dai" ("dai file": from the files)
_IT_TU_PRESENT = frozenset(
    p for tu, lei in W.IT_IMPERATIVES.items() if tu != "dai" and (p := it_second_present(tu, lei))
)


def _it_imperative_place(w: Words, i: int) -> bool:
    """Where an imperative stands: opening a sentence, or after "per favore"/"prego" (a comma
    between or not); in no question ("Salvi il file?" is "do you save..."). Not after "e" or a
    comma: "...azzeri la pagina e continui l'esecuzione" are subjunctives, "...e continua" a
    third person."""
    if w.in_question(i):
        return False
    return w.starts_sentence(i) or (i > 0 and w.lower[i - 1] in W.IT_IMPERATIVE_OPENERS)


def _it_formal_word(w: Words, i: int, source: str) -> bool:
    """Lei/Suo/Sua/Suoi/Sue with their capital: inside a sentence, or opening it where the
    English says "you" (Lei) or "your" with no other owner (Suo...)."""
    word = w.words[i]
    if not w.starts_sentence(i):
        return True
    if word == "Lei":
        return says_you(source) and not says_she_or_they(source)
    return says_your(source)


def _it_takes_object(w: Words, i: int) -> bool:
    """Whether what follows the word at `i` is what a verb takes (an article, "qui", "clic"), or
    "che" after a word that is no noun too ("Controlli che falliscono": checks that fail)."""
    following = w.next_lower(i)
    return following in W.IT_VERB_OBJECTS or (following == "che" and w.lower[i] not in W.IT_ALSO_NOUNS)


def _it_before_verb(w: Words, i: int) -> bool:
    """Whether a capital "La"/"Le" is the Lei object pronoun: inside a sentence before a lowercase
    word ("Vorremmo che La contattasse"; not "Irian Jaya e Le Molucche"), or opening "La preghiamo",
    "Le consiglio"."""
    following = w.words[i + 1] if i + 1 < len(w.words) else ""
    opening = following.endswith("iamo") or following in W.IT_AFTER_LA_LE
    return following.islower() and (w.inside_sentence(i) or opening)


def _it_lei_imperative(w: Words, i: int) -> bool:
    """A Lei imperative where it stands: opening a sentence or clause, maybe after an object
    pronoun ("Lo inserisca", "Si assicuri"), and before what a verb takes."""
    k = i - 1 if i > 0 and w.lower[i - 1] in W.IT_PRONOUNS_BEFORE and not w.after_comma(i) else i
    if not _it_imperative_place(w, k):
        return False
    if k < i and w.lower[k] == "si":  # "Si assicuri"; "Si prema un tasto" is impersonal
        return w.lower[i] in W.IT_LEI_REFLEXIVE
    if k < i and w.lower[k] in ("ci", "mi", "ne"):  # no article: a verb follows ("Ci contatti")
        return True
    return _it_takes_object(w, i)


def _it_tu_joined(w: Words, i: int) -> bool:
    """A tu imperative with its pronoun joined ("Assicurati", "Salvalo"), where one stands."""
    word = w.lower[i]
    if word in W.IT_NOT_JOINED:
        return False
    joined = word in W.IT_TU_JOINED or any(
        word.endswith(e) and len(word) - len(e) >= 3 and word[: -len(e)] in _IT_TU for e in W.IT_ENCLITICS
    )
    return joined and _it_imperative_place(w, i)


def _it_third_person(w: Words, i: int) -> bool:
    """A third-person verb that is the reader's: opening a question ("Vuole salvare...?", "Non
    può...?"), or a wish after "se" ("Se vuole, ..."). Elsewhere it is as often "it" ("Può
    succedere", "Potrebbe non essere possibile", "forse qualcos'altro ha...")."""
    k = i
    while k > 0 and w.lower[k - 1] in W.IT_TRANSPARENT and w.inside_sentence(k):
        k -= 1
    if w.starts_sentence(k) and w.in_question(i):
        return True
    return w.lower[i] in W.IT_WISHES and k > 0 and w.lower[k - 1] == "se" and w.inside_sentence(k)


def _it(w: Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    you, imperative_source = says_you(source), not describes(source)
    for i, word in enumerate(w.words):
        lower, following = w.lower[i], w.next_lower(i)
        if lower in W.IT_INFORMAL or (lower == "sei" and following in W.IT_SEI_PREDICATES):
            informal.append(word)
        elif word in W.IT_FORMAL:
            if _it_formal_word(w, i, source):
                formal.append(word)
        elif word in ("La", "Le") and _it_before_verb(w, i):
            formal.append(word)  # "Le consigliamo", "La preghiamo"; the article opens a sentence, names ("Le Molucche")
        elif lower.endswith("rai") and len(lower) >= 6:
            informal.append(word)  # a second-person future: "potrai", "riceverai"
        elif lower in _IT_TU_PRESENT and w.follows(i, W.IT_PRESENT_OPENERS, W.IT_CLITICS):
            informal.append(word)  # "Se premi il pulsante", "quando lo selezioni", "se non chiudi"
        elif lower in _IT_TU and imperative_source and _it_imperative_place(w, i):
            if _it_takes_object(w, i):
                informal.append(word)
        elif (lower in _IT_LEI or lower in W.IT_LEI_REFLEXIVE) and imperative_source and _it_lei_imperative(w, i):
            formal.append(word)
        elif _it_tu_joined(w, i) and imperative_source:
            informal.append(word)
        elif lower in W.IT_THIRD_PERSON and you and following not in W.IT_IMPERSONAL and _it_third_person(w, i):
            formal.append(word)  # not "Potrebbe essere necessario?": it may be
        elif lower == "è" and you and following in W.IT_SICURO and w.next_lower(i + 1) == "di":
            formal.append(word)  # "È sicuro di voler...?"
    return formal, informal


def _pt(w: Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    for i, word in enumerate(w.words):
        lower = w.lower[i]
        if lower in W.PT_INFORMAL:
            informal.append(word)
        elif lower in W.PT_FORMAL and i > 0 and w.lower[i - 1] in W.PT_ARTICLES:
            formal.append(word)
    return formal, informal


def _nl(w: Words, source: str) -> tuple[list[str], list[str]]:
    formal = [w.words[i] for i, lower in enumerate(w.lower) if lower in W.NL_FORMAL]
    informal = [w.words[i] for i, lower in enumerate(w.lower) if lower in W.NL_INFORMAL]
    return formal, informal


def _ru_imperative_place(w: Words, i: int) -> bool:
    return w.starts_sentence(i) or w.after_comma(i) or (i > 0 and w.lower[i - 1] in W.RU_IMPERATIVE_OPENERS)


def _yo(words) -> frozenset[str]:
    """Russian words with ё written е, as they often are ("щелкните")."""
    return frozenset(word.replace("ё", "е") for word in words)


_RU_INFORMAL = _yo(W.RU_INFORMAL_WORDS)
_RU_TY_IMPERATIVES = _yo(W.RU_TY_IMPERATIVES)
_RU_FORMAL = _yo(W.RU_FORMAL_WORDS | W.RU_VY_IMPERATIVES | W.RU_VY_VERBS)


def _ru(w: Words, source: str) -> tuple[list[str], list[str]]:
    formal, informal = [], []
    for i, word in enumerate(w.words):
        lower = w.lower[i].replace("ё", "е")
        if i and w.separator(i) == "-":
            continue  # part of a compound: "арг-ты" (arguments)
        if lower in _RU_INFORMAL and not (lower == "ты" and i and w.lower[i - 1] in W.RU_INTERJECTIONS):
            informal.append(word)
        elif lower in _RU_TY_IMPERATIVES and _ru_imperative_place(w, i):
            informal.append(word)  # "Нажми", not "выбранные подключи" (subkeys)
        elif lower in _RU_FORMAL:
            formal.append(word)
        elif lower.endswith(W.RU_2SG_ENDINGS) and len(lower) >= 5 and lower not in W.RU_NOT_2SG:
            informal.append(word)  # "можешь", "подключишься"
        elif lower.endswith(W.RU_VY_REFLEXIVE) or (
            lower.endswith(W.RU_IMPERATIVE_ENDINGS) and len(lower) >= 5 and _ru_imperative_place(w, i)
        ):
            formal.append(word)  # "Убедитесь"; "Нажмите", not "на сайте"
    return formal, informal


READERS = {"it": _it, "pt": _pt, "nl": _nl, "ru": _ru}
