"""Formal -> informal rewrites of Russian and Dutch interface messages (вы -> ты, u -> je), for
data augmentation: corpora of these languages address the reader formally far more often than
informally, so a model sees too few informal references to learn the register on request
(scripts/model/register_augment.py, docs/register-augment.md).

`informal(text, language)` rewrites only what its rules convert with certainty and returns
(text, CONVERTED), or (None, reason) when any word of the formal register is one they do not
cover, or when the text/address reader (the one scripts/measure/formality_eval.py measures with)
does not read the result as informal. Word tables: register_convert_words.py.

- Russian: вы/вас/вам/вами and ваш... (ваш -> твой, вашем -> твоём), imperatives where they
  stand (Нажмите -> Нажми, Убедитесь -> Убедись), 2nd plural verbs that agree with вы (вы можете
  -> ты можешь, Хотите -> Хочешь; -ите -> -ишь only for listed 2nd-conjugation verbs). Skipped:
  past tense and short adjectives (вы выбрали, Вы уверены, Будьте внимательны: gender), вас after
  в/на (case), вы + все (a group), a 2nd plural form whose use is uncertain (an -ите word inside
  a sentence: imperative, verb or noun).
- Dutch: u/uw/uzelf -> je/je/jezelf, "a.u.b."/"alstublieft" -> "alsjeblieft", "u heeft" ->
  "je hebt", the verb before an inverted subject without its -t (kunt u -> kun je, heeft u ->
  heb je). Skipped: "u zelf", "zich", "heeft" away from u, "u" as a letter or unit (km/u), an
  inverted verb the rules do not know or that may have u as its object ("Dit geeft u...").
"""

from __future__ import annotations

import re

from . import address
from . import register_convert_words as W
from .address_text import SENTENCE_END, Words

CONVERTED = "converted"
NOT_FORMAL = "not read formal"
ACCELERATOR = "accelerator or escape inside a word"
LEFT_FORMAL = "formal word left after the rules"
NOT_INFORMAL = "result not read informal"

_ACCELERATOR = re.compile(r"(?<=\w)&(?=\w)")


class Skip(Exception):
    """A word the rules do not convert with certainty; the message is the reason."""


def informal(text: str, language: str, source: str = "") -> tuple[str | None, str]:
    """(the informal rewrite, CONVERTED) of a text the reader reads as formal, else (None, reason)."""
    base = language.replace("_", "-").lower().split("-")[0]
    if base not in _RULES:
        raise ValueError(f"no conversion rules for {language!r} (known: ru, nl)")
    if address.read(text, language, source) != address.FORMAL:
        return None, NOT_FORMAL
    if _ACCELERATOR.search(text) or _glued_formal(text, language, source):
        return None, ACCELERATOR
    try:
        out = _RULES[base](text)
    except Skip as e:
        return None, str(e)
    found = address.read(out, language, source)
    if found != address.INFORMAL:
        return None, LEFT_FORMAL if found in (address.FORMAL, address.MIXED) else NOT_INFORMAL
    return out, CONVERTED


def _glued(text: str, a: int, b: int) -> bool:
    """Whether the word at text[a:b] is glued to an accelerator or an escape ("Вы_брать", "\\nheeft")."""
    return text[a - 1 : a] in ("&", "_", "\\") or text[b : b + 1] in ("&", "_")


def _glued_formal(text: str, language: str, source: str) -> bool:
    formal = set(address.markers(text, language, source)[address.FORMAL])
    w = Words(text)
    return any(word in formal and _glued(text, *w.spans[i]) for i, word in enumerate(w.words))


def _case(original: str, new: str, capital: bool) -> str:
    """`new` written as `original` is: all capitals, or its capital where `capital` allows."""
    if len(original) > 1 and original.isupper():
        return new.upper()
    return new[:1].upper() + new[1:] if original[:1].isupper() and capital else new


def _opens(w: Words, i: int) -> bool:
    """Whether word `i` opens a sentence or a quoted/marked-up part, where a capital stays ("Вы",
    "«Ваш", "<p>U"); a polite capital inside a sentence ("проверьте Ваши данные") does not."""
    if w.starts_sentence(i):
        return True
    return w.separator(i).strip(" \u00a0,") != ""


def _apply(text: str, w: Words, changes: dict[int, str]) -> str:
    out, last = [], 0
    for i in sorted(changes):
        a, b = w.spans[i]
        if _glued(text, a, b):
            raise Skip(ACCELERATOR)  # the word is another's part
        out += [text[last:a], changes[i]]
        last = b
    return "".join(out) + text[last:]


def _sentences(w: Words) -> list[int]:
    """The sentence number of each word."""
    n, out = 0, []
    for i in range(len(w.words)):
        n += bool(i and SENTENCE_END.search(w.separator(i)))
        out.append(n)
    return out


# ---- Russian


def _yo(word: str) -> str:
    return word.lower().replace("ё", "е")


def _ru_second_singular(word: str) -> str | None:
    """The 2nd singular of a 2nd plural present/future ("можете" -> "можешь", "найдёте" ->
    "найдёшь", "хотите" -> "хочешь", "передадите" -> "передашь"), None for no such form."""
    lower = word.lower()
    for plural, singular in W.RU_IRREGULAR_2SG:
        if lower.endswith(plural) and (lower == plural or plural.startswith("дад")):
            return _case(word, lower[: -len(plural)] + singular, True)
    if lower.endswith(("ите", "итесь")) and lower not in W.RU_SECOND_CONJUGATION:
        return None
    for plural, singular in W.RU_2SG_ENDINGS:
        if lower.endswith(plural) and len(lower) >= len(plural) + 2:
            return word[: -len(plural)] + (singular.upper() if word.isupper() else singular)
    return None


def _ru_imperative(word: str) -> str | None:
    """The ты imperative of a вы one: drop "те" ("Нажмите" -> "Нажми"), reflexive "тесь" -> "сь"
    after a vowel, "ся" after й/ь ("Убедитесь" -> "Убедись", "Зарегистрируйтесь" -> "...руйся")."""
    lower = word.lower()
    if lower.endswith(("итесь", "йтесь", "ьтесь")):
        end = "сь" if lower.endswith("итесь") else "ся"
        return word[:-4] + (end.upper() if word.isupper() else end)
    if lower.endswith(("ите", "йте", "ьте")):
        return word[:-2]
    return None


def _ru_imperative_place(w: Words, i: int) -> bool:
    return w.starts_sentence(i) or w.after_comma(i) or (i > 0 and w.lower[i - 1] in W.RU_IMPERATIVE_OPENERS)


def _ru_agreeing(w: Words, j: int) -> int:
    """The index of the verb that agrees with a вы at `j` (after it, or before it in "Хотите ли
    вы"), the transparent words skipped; Skip when it is past tense, short or missing."""
    k = j + 1
    while k < len(w.words) and _yo(w.words[k]) in W.RU_TRANSPARENT and w.inside_sentence(k):
        k += 1
    after = _yo(w.words[k]) if k < len(w.words) and w.inside_sentence(k) else ""
    if after and _ru_second_singular(w.words[k]) and after.endswith(W.RU_2PL_ENDINGS):
        return k
    b = j - 1
    while b >= 0 and w.lower[b] in ("ли", "же", "не") and w.inside_sentence(b + 1):
        b -= 1
    before = _yo(w.words[b]) if b >= 0 and w.inside_sentence(j) else ""
    if before.endswith(W.RU_2PL_ENDINGS) and _ru_second_singular(w.words[b]):
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


def _russian(text: str) -> str:
    w = Words(text)
    lower = [_yo(x) for x in w.words]
    sentence = _sentences(w)
    changes: dict[int, str] = {}
    with_vy = {sentence[i] for i, x in enumerate(lower) if x == "вы"}
    for i, word in enumerate(w.words):
        x, prev = lower[i], (lower[i - 1] if i and w.inside_sentence(i) else "")
        if i and w.separator(i) == "-":
            if x in W.RU_POSSESSIVES and lower[i - 1] == "по":
                changes[i] = _case(word, W.RU_POSSESSIVES[x].replace("ё", "е"), False)  # по-вашему
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
            changes[i] = _case(word, new, _opens(w, i))
            if x == "вы":
                k = _ru_agreeing(w, i)
                changes[k] = _ru_second_singular(w.words[k])
        elif x in W.RU_SHORT and with_vy:
            raise Skip("ru: short adjective with вы (gender)")
        elif x.endswith(("ли", "лись")) and len(x) >= 4 and x not in W.RU_NOT_PAST:
            if with_vy or _ru_imperative_place(w, i) or prev in W.RU_CLAUSE_OPENERS:
                raise Skip("ru: past tense with вы (gender)")
    for i, word in enumerate(w.words):
        x, prev = lower[i], (lower[i - 1] if i and w.inside_sentence(i) else "")
        if i in changes or not x.endswith(W.RU_2PL_ENDINGS + W.RU_IMPERATIVE_ENDINGS) or len(x) < 5:
            continue
        if prev in W.RU_PREPOSITIONS or x in W.RU_NOT_VERBS or (i and w.separator(i) == "-"):
            continue  # "на сайте", "в пакете": nouns
        if x in W.RU_VY_VERBS or (x.endswith(("ете", "етесь")) and w.starts_sentence(i)):
            changes[i] = _ru_second_singular(word)  # "Хотите...?", "Желаете продолжить?"
        elif x.endswith(W.RU_IMPERATIVE_ENDINGS) and (_ru_imperative_place(w, i) or x in W.RU_VY_IMPERATIVES):
            plain_place = w.starts_sentence(i) or w.after_comma(i) or prev == "пожалуйста"
            if sentence[i] in with_vy and not plain_place:
                raise Skip("ru: imperative or verb after вы (uncertain)")  # "если вы откроете файл и измените"
            changes[i] = _ru_imperative(word)
        elif x.endswith(W.RU_ONLY_IMPERATIVE) and word.islower() and sentence[i] not in with_vy:
            changes[i] = _ru_imperative(word)  # "Просто позвольте...", "– удостоверьтесь"
        elif x.endswith(W.RU_ONLY_IMPERATIVE + ("итесь",)) or (with_vy and not prev.endswith(W.RU_ADJECTIVE_ENDS)):
            raise Skip("ru: 2nd plural form inside a sentence (uncertain)")  # "Если вы ступите... или выползете"
    return _apply(text, w, changes)


# ---- Dutch


def _dutch_inverted(w: Words, i: int) -> str | None:
    """The je form of the verb before an inverted "u" at `i` ("kunt u" -> "kun"), None where the
    word before is no verb or keeps its form ("kan u", "mag u", "Meld u aan"); Skip where unsure."""
    if not w.inside_sentence(i):
        return None
    verb = w.lower[i - 1]
    if verb in W.NL_NOT_VERBS or not verb.endswith("t") or verb in W.NL_KEEP_T:
        return None
    if verb in W.NL_SECOND_ONLY:
        return W.NL_INVERTED[verb]
    new = W.NL_INVERTED.get(verb)
    if new is None and (verb.endswith("cht") or verb[-2] not in "bdfgklmnprsvwz"):
        raise Skip("nl: inverted verb the rules do not know")
    # a 3rd singular too: "Dit geeft u de keuze" has u as its object, "Hier geeft u ... in" as subject
    if i >= 2 and w.inside_sentence(i - 1) and w.lower[i - 2] not in W.NL_ADVERBS:
        raise Skip("nl: verb before u may have u as its object")
    return new or verb[:-1]


def _dutch(text: str) -> str:
    text = W.NL_PLEASE.sub(lambda m: _case(m.group(0), "alsjeblieft", True), text)
    w = Words(text)
    if any(x == "zich" for x in w.lower):
        raise Skip("nl: zich (reflexive of u or of another)")
    changes: dict[int, str] = {}
    for i, word in enumerate(w.words):
        x = w.lower[i]
        if x not in W.NL_WORDS:
            continue
        a, b = w.spans[i]
        if x == "u":
            if text[a - 1 : a] in W.NL_NOT_PRONOUN_NEXT or text[b : b + 1] in W.NL_NOT_PRONOUN_NEXT:
                raise Skip("nl: u as a letter or unit")
            if text[b : b + 1] == "." and text[b + 1 : b + 2].isalpha():
                raise Skip("nl: u as a letter or unit")
            if w.next_lower(i) == "zelf" and w.inside_sentence(i + 1):
                raise Skip("nl: u zelf")
            verb = _dutch_inverted(w, i)
            if verb is not None and verb != w.lower[i - 1]:
                changes[i - 1] = _case(w.words[i - 1], verb, _opens(w, i - 1))
            if w.next_lower(i) == "heeft" and w.inside_sentence(i + 1):
                changes[i + 1] = _case(w.words[i + 1], "hebt", False)
        changes[i] = _case(word, W.NL_WORDS[x], _opens(w, i))
    if any(x == "heeft" and i not in changes for i, x in enumerate(w.lower)):
        raise Skip("nl: heeft away from u (je hebt?)")
    return _apply(text, w, changes)


_RULES = {"ru": _russian, "nl": _dutch}
