"""Russian, formal -> informal (вы -> ты), for data augmentation: `informal(text, source)` rewrites
a text the reader reads formal, or raises common.Skip. What it converts:

- вы/вас/вам/вами and ваш... (ваш -> твой, вашем -> твоём), imperatives where they
  stand (Нажмите -> Нажми, Убедитесь -> Убедись), 2nd plural verbs that agree with вы (вы можете
  -> ты можешь, Хотите -> Хочешь; -ите -> -ишь only for listed 2nd-conjugation verbs). Skipped:
  past tense and short adjectives (вы выбрали, Вы уверены, Будьте внимательны: gender), вас after
  в/на (case), вы + все (a group), a 2nd plural form whose use is uncertain (an -ите word inside
  a sentence: imperative, verb or noun).
"""

from __future__ import annotations

from ..address_text import Words
from . import common as C
from . import words as W
from .common import Skip


def _yo(word: str) -> str:
    return word.lower().replace("ё", "е")


def _second_singular(word: str) -> str | None:
    """The 2nd singular of a 2nd plural present/future ("можете" -> "можешь", "найдёте" ->
    "найдёшь", "хотите" -> "хочешь", "передадите" -> "передашь"), None for no such form."""
    lower = word.lower()
    for plural, singular in W.RU_IRREGULAR_2SG:
        if lower.endswith(plural) and (lower == plural or plural.startswith("дад")):
            return C.case(word, lower[: -len(plural)] + singular, True)
    if lower.endswith(("ите", "итесь")) and lower not in W.RU_SECOND_CONJUGATION:
        return None
    for plural, singular in W.RU_2SG_ENDINGS:
        if lower.endswith(plural) and len(lower) >= len(plural) + 2:
            return word[: -len(plural)] + (singular.upper() if word.isupper() else singular)
    return None


def _imperative(word: str) -> str | None:
    """The ты imperative of a вы one: drop "те" ("Нажмите" -> "Нажми"), reflexive "тесь" -> "сь"
    after a vowel, "ся" after й/ь ("Убедитесь" -> "Убедись", "Зарегистрируйтесь" -> "...руйся")."""
    lower = word.lower()
    if lower.endswith(("итесь", "йтесь", "ьтесь")):
        end = "сь" if lower.endswith("итесь") else "ся"
        return word[:-4] + (end.upper() if word.isupper() else end)
    if lower.endswith(("ите", "йте", "ьте")):
        return word[:-2]
    return None


def _imperative_place(w: Words, i: int) -> bool:
    return w.starts_sentence(i) or w.after_comma(i) or (i > 0 and w.lower[i - 1] in W.RU_IMPERATIVE_OPENERS)


def _agreeing(w: Words, j: int) -> int:
    """The index of the verb that agrees with a вы at `j` (after it, or before it in "Хотите ли
    вы"), the transparent words skipped; Skip when it is past tense, short or missing."""
    k = j + 1
    while k < len(w.words) and _yo(w.words[k]) in W.RU_TRANSPARENT and w.inside_sentence(k):
        k += 1
    after = _yo(w.words[k]) if k < len(w.words) and w.inside_sentence(k) else ""
    if after and _second_singular(w.words[k]) and after.endswith(W.RU_2PL_ENDINGS):
        return k
    b = j - 1
    while b >= 0 and w.lower[b] in ("ли", "же", "не") and w.inside_sentence(b + 1):
        b -= 1
    before = _yo(w.words[b]) if b >= 0 and w.inside_sentence(j) else ""
    if before.endswith(W.RU_2PL_ENDINGS) and _second_singular(w.words[b]):
        return b
    for word in (after, before):
        if word.endswith(("ите", "итесь")):
            raise Skip("ru: -ите verb after вы of no known conjugation")
        if word in W.RU_GROUP:
            raise Skip("ru: вы + все (a group)")
        if word.endswith(("ли", "лись")) and word not in W.RU_NOT_PAST:
            raise Skip("ru: past tense with вы (gender)")
        if word.endswith("ы") or word in W.RU_SHORT:
            raise Skip("ru: short adjective with вы (gender)")
    raise Skip("ru: вы without a verb the rules convert")


def informal(text: str, source: str = "") -> str:
    w = Words(text)
    lower = [_yo(x) for x in w.words]
    sentence = C.sentences(w)
    changes: dict[int, str] = {}
    with_vy = {sentence[i] for i, x in enumerate(lower) if x == "вы"}
    for i, word in enumerate(w.words):
        x, prev = lower[i], (lower[i - 1] if i and w.inside_sentence(i) else "")
        if i and w.separator(i) == "-":
            if x in W.RU_POSSESSIVES and lower[i - 1] == "по":
                changes[i] = C.case(word, W.RU_POSSESSIVES[x].replace("ё", "е"), False)  # по-вашему
            continue  # a compound's part, as the reader has it
        if x in W.RU_COPULAS and w.next_lower(i).endswith(("ы", "ыми", "ими")) and w.inside_sentence(i + 1):
            raise Skip("ru: short adjective with вы (gender)")  # "Будьте внимательны", "Станьте первыми"
        if x in W.RU_PRONOUNS or x in W.RU_POSSESSIVES:
            if w.next_lower(i) in W.RU_GROUP:
                raise Skip("ru: вы + все (a group)")
            if x == "вас" and prev in ("в", "во", "на"):
                raise Skip("ru: вас after в/на (case)")
            new = "тебе" if x == "вас" and prev in ("о", "об", "обо", "при") else W.RU_PRONOUNS.get(x)
            new = new or W.RU_POSSESSIVES[x]
            if "ё" in new and "ё" not in text.lower():
                new = new.replace("ё", "е")  # a text that writes ё as е
            changes[i] = C.case(word, new, C.opens(w, i))
            if x == "вы":
                k = _agreeing(w, i)
                changes[k] = _second_singular(w.words[k])
        elif x in W.RU_SHORT and with_vy:
            raise Skip("ru: short adjective with вы (gender)")
        elif x.endswith(("ли", "лись")) and len(x) >= 4 and x not in W.RU_NOT_PAST:
            if with_vy or _imperative_place(w, i) or prev in W.RU_CLAUSE_OPENERS:
                raise Skip("ru: past tense with вы (gender)")
    for i, word in enumerate(w.words):
        x, prev = lower[i], (lower[i - 1] if i and w.inside_sentence(i) else "")
        if i in changes or not x.endswith(W.RU_2PL_ENDINGS + W.RU_IMPERATIVE_ENDINGS) or len(x) < 5:
            continue
        if prev in W.RU_PREPOSITIONS or x in W.RU_NOT_VERBS or (i and w.separator(i) == "-"):
            continue  # "на сайте", "в пакете": nouns
        if x in W.RU_VY_VERBS or (x.endswith(("ете", "етесь")) and w.starts_sentence(i)):
            changes[i] = _second_singular(word)  # "Хотите...?", "Желаете продолжить?"
        elif x.endswith(W.RU_IMPERATIVE_ENDINGS) and (_imperative_place(w, i) or x in W.RU_VY_IMPERATIVES):
            plain_place = w.starts_sentence(i) or w.after_comma(i) or prev == "пожалуйста"
            if sentence[i] in with_vy and not plain_place:
                raise Skip("ru: imperative or verb after вы (uncertain)")  # "если вы откроете файл и измените"
            changes[i] = _imperative(word)
        elif x.endswith(W.RU_ONLY_IMPERATIVE) and word.islower() and sentence[i] not in with_vy:
            changes[i] = _imperative(word)  # "Просто позвольте...", "– удостоверьтесь"
        elif x.endswith(W.RU_ONLY_IMPERATIVE + ("итесь",)) or (with_vy and not prev.endswith(W.RU_ADJECTIVE_ENDS)):
            raise Skip("ru: 2nd plural form inside a sentence (uncertain)")  # "Если вы ступите... или выползете"
    return C.apply(text, w, changes)
