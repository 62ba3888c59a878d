"""Formal -> informal rewrites of Russian and Dutch interface messages (вы -> ты, u -> je), for
data augmentation: corpora of these languages address the reader formally far more often than
informally, so a model sees too few informal references to learn the register on request
(scripts/model/register_augment.py, docs/register-augment.md). `formal` also serves Italian and
Brazilian Portuguese `formality=more`, rewriting a model's informal output (the text pipeline's
register stage: service/pipeline/register.py).

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

`formal(text, language)` is the other way, for Italian and Brazilian Portuguese, whose catalogs
address the reader with tu / você and almost never with Lei / o senhor, with the same contract:
(text, CONVERTED), or (None, reason) where a word of the informal register is one the rules do
not cover, or the reader does not read the result as formal.

- Italian: tuo/tua... -> Suo/Sua... (the polite capital), tu/te -> Lei, "ti" -> "La" or "Le" by
  the verb after it ("La preghiamo", "Le consigliamo") or "si" with a second-person verb ("ti sei
  registrato" -> "si è registrato"), tu imperatives where they stand -> Lei ("Inserisci" ->
  "Inserisca", "Assicurati" -> "Si assicuri", "Salvalo" -> "Lo salvi", "Non spegnere" -> "Non
  spenga"), second-person verbs -> third ("vuoi" -> "vuole", "se selezioni" -> "se seleziona",
  "potrai" -> "potrà", "potresti" -> "potrebbe"), "ti" joined to an infinitive or a gerund
  ("per registrarti" -> "per registrarsi", "aiutarti" -> "aiutarla"); "Lei" before the first
  verb put in the third person when nothing else says whom the text addresses ("Hai 3 nuovi
  messaggi" -> "Lei ha 3 nuovi messaggi"). Skipped: "ti" or a joined
  "ti" before a verb the tables do not know, "te lo" (glielo), "non" + an unknown infinitive, a tu
  verb the rules leave where they do not know its use.
- Brazilian Portuguese: você/vocês -> o senhor/os senhores, the article joined to a preposition
  before it ("de você" -> "do senhor", "a você" -> "ao senhor", "para você" -> "para o senhor"),
  "contigo" -> "com o senhor"; verbs and seu/sua are the same in both registers. Skipped: the tu
  forms (te, teu, tua), rare in Brazil. The masculine stands for both (no gender is known).
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
NOT_INFORMAL_TEXT = "not read informal"
LEFT_INFORMAL = "informal word left after the rules"
NOT_FORMAL_RESULT = "result not read formal"

_ACCELERATOR = re.compile(r"(?<=\w)&(?=\w)")


class Skip(Exception):
    """A word the rules do not convert with certainty; the message is the reason."""


def informal(text: str, language: str, source: str = "") -> tuple[str | None, str]:
    """(the informal rewrite, CONVERTED) of a text the reader reads as formal, else (None, reason)."""
    return _rewrite(text, language, source, address.FORMAL, address.INFORMAL)


def formal(text: str, language: str, source: str = "") -> tuple[str | None, str]:
    """(the formal rewrite, CONVERTED) of a text the reader reads as informal, else (None, reason)."""
    return _rewrite(text, language, source, address.INFORMAL, address.FORMAL)


FROM = {address.FORMAL: address.INFORMAL, address.INFORMAL: address.FORMAL}  # a register -> the one rewritten into it


def rewrite(text: str, register: str, language: str, source: str = "") -> tuple[str | None, str]:
    """`formal` or `informal`, by the `register` wanted (a model's register_rewrites name it)."""
    return _rewrite(text, language, source, FROM[register], register)


# why a text is not rewritten, by the register it is read in ("not read formal"), or left in
# after the rules ("formal word left"), or by the register the rewrite failed to reach
_NOT_READ = {address.FORMAL: NOT_FORMAL, address.INFORMAL: NOT_INFORMAL_TEXT}
_LEFT = {address.FORMAL: LEFT_FORMAL, address.INFORMAL: LEFT_INFORMAL}
_NOT_REACHED = {address.INFORMAL: NOT_INFORMAL, address.FORMAL: NOT_FORMAL_RESULT}


def _rewrite(text: str, language: str, source: str, have: str, want: str) -> tuple[str | None, str]:
    """A text the reader reads in register `have`, rewritten into `want` by its language's rules."""
    rules = _RULES if want == address.INFORMAL else _FORMAL_RULES
    base = language.replace("_", "-").lower().split("-")[0]
    if base not in rules:
        known = ", ".join(sorted(INFORMAL_LANGUAGES if want == address.INFORMAL else FORMAL_LANGUAGES))
        raise ValueError(f"no conversion rules to the {want} register for {language!r} (known: {known})")
    if address.read(text, language, source) != have:
        return None, _NOT_READ[have]
    if _ACCELERATOR.search(text) or _glued_words(text, language, source, have):
        return None, ACCELERATOR
    try:
        out = rules[base](text, source)
    except Skip as e:
        return None, str(e)
    found = address.read(out, language, source)
    if found != want:
        return None, _LEFT[have] if found in (have, address.MIXED) else _NOT_REACHED[want]
    return out, CONVERTED


def _glued(text: str, a: int, b: int) -> bool:
    """Whether the word at text[a:b] is glued to an accelerator or an escape ("Вы_брать", "\\nheeft")."""
    return text[a - 1 : a] in ("&", "_", "\\") or text[b : b + 1] in ("&", "_")


def _glued_words(text: str, language: str, source: str, register: str) -> bool:
    """Whether a word of `register` is glued to an accelerator or an escape."""
    words = set(address.markers(text, language, source)[register])
    w = Words(text)
    return any(word in words and _glued(text, *w.spans[i]) for i, word in enumerate(w.words))


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


def _russian(text: str, source: str = "") -> str:
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


def _dutch(text: str, source: str = "") -> str:
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


# ---- Italian (tu -> Lei)

# "non" + infinitive -> Lei: the -are verbs of the imperatives by rule ("seleziona" -> "selezionare":
# "selezioni"), the others by hand
_IT_INFINITIVE_LEI = {
    **{tu[:-1] + "are": lei for tu, lei in W.IT_IMPERATIVES.items() if tu.endswith("a") and tu.isalpha()},
    **W.IT_INFINITIVE_LEI,
}


def _it_third(tu: str, lei: str) -> tuple[str, str] | None:
    """(second-person present, third person) of a tu/Lei imperative pair: "seleziona/selezioni" ->
    ("selezioni", "seleziona"); "premi/prema" -> ("premi", "preme"), "inserisci" -> "inserisce"."""
    if not (tu.isalpha() and lei.isalpha()):
        return None
    if tu.endswith("a"):
        return lei, tu
    if tu.endswith("i"):
        return tu, W.IT_THIRD_IRREGULAR.get(tu, tu[:-1] + "e")
    return None


# second-person present -> third; not "dai" ("dai file": from the files)
_IT_PRESENT = dict(p for tu, lei in W.IT_IMPERATIVES.items() if tu != "dai" and (p := _it_third(tu, lei))) | W.IT_2SG
# a second-person present that is nothing else in an informal text ("chiudi", "inserisci"): one the
# rules leave makes the text skipped; "selezioni", "usi" (-are verbs) and "premi" (prizes) are nouns too
_IT_ONLY_VERB = frozenset(tu for tu in _IT_PRESENT if tu in W.IT_IMPERATIVES and tu.endswith("i")) - {"premi"}
_IT_CHAINS = frozenset("e ed o oppure poi quindi infine ora adesso allora semplicemente".split())
_IT_CLAUSE_OPENERS = frozenset(
    "per se quando dopo prima appena una nel nella ora adesso qui quindi poi infine allora".split()
)
_IT_AMBIGUOUS = W.reader.IT_ALSO_NOUNS | frozenset("modifica verifica conferma ricarica registra cerca scarica".split())


def _it_clause_opened(w: Words, i: int) -> bool:
    """Whether the sentence of word `i` opens with a clause that leads to a command ("Per
    continuare, premi...", "Se vuoi, seleziona...")."""
    s = i
    while s > 0 and not w.starts_sentence(s):
        s -= 1
    return w.lower[s] in _IT_CLAUSE_OPENERS


def _it_command_place(w: Words, i: int, commanded: bool) -> bool:
    """Where a tu imperative stands: opening a sentence, after "per favore"/"prego", or after a
    comma or "e"/"poi" once the sentence has a command or opens with a clause that leads to one;
    never in a question."""
    if w.in_question(i):
        return False
    if w.starts_sentence(i) or w.lower[i - 1] in W.reader.IT_IMPERATIVE_OPENERS:
        return True
    chained = w.after_comma(i) or (w.inside_sentence(i) and w.lower[i - 1] in _IT_CHAINS)
    return chained and (commanded or _it_clause_opened(w, i))


def _it_subject_before(w: Words, i: int) -> bool:
    """Whether a second-person present at `i` follows "se", "quando", "che"... (pronouns and
    "non" between): "se selezioni", "quando lo premi"."""
    k = i - 1
    while k >= 0 and w.lower[k] in W.IT_CLITICS and w.inside_sentence(k + 1):
        k -= 1
    return k >= 0 and w.inside_sentence(k + 1) and w.lower[k] in W.IT_SUBJECT_OPENERS


def _it_joined_ti(word: str) -> str | None:
    """An infinitive or gerund with "ti" joined, rewritten ("registrarti" -> "registrarsi",
    "aiutarti" -> "aiutarla", "mostrarti" -> "mostrarle", "connettendoti" -> "connettendosi");
    None for no such word; Skip where the verb is none the tables know."""
    lower = word.lower()
    if not lower.endswith(("rti", "ndoti")) or len(lower) < 6 or lower in W.IT_NOT_JOINED_TI:
        return None
    if lower.endswith("orti"):
        return None  # "porti", "supporti", "importi": no infinitive in -orre here
    stem = word[:-2]
    if lower.endswith("rti"):
        infinitives = [lower[:-2] + "e"]
    else:
        base = lower[: -len("ndoti")]  # "registra", "connette"
        infinitives = [base + "re"] if base.endswith("a") else [base[:-1] + "ere", base[:-1] + "ire"]
    for infinitive in infinitives:
        for verbs, pronoun in ((W.IT_REFLEXIVE_VERBS, "si"), (W.IT_OBJECT_VERBS, "la"), (W.IT_TO_VERBS, "le")):
            if infinitive in verbs:
                return stem + (pronoun.upper() if word.isupper() else pronoun)
    raise Skip("it: ti joined to a verb the rules do not know")


def _it_ti(w: Words, i: int, changes: dict[int, str]) -> None:
    """ "ti" -> "si" before a second-person verb (reflexive), "La" before a verb that takes an
    object, "Le" before one that takes "to you"."""
    following = w.next_lower(i) if i + 1 < len(w.words) and w.inside_sentence(i + 1) else ""
    if following in W.IT_REFLEXIVE_2SG:
        changes[i] = _case(w.words[i], "si", True)
        changes[i + 1] = _case(w.words[i + 1], W.IT_REFLEXIVE_2SG[following], False)
    elif following in W.IT_TI_OBJECT or following in W.IT_TI_TO:
        changes[i] = _case(w.words[i], "La" if following in W.IT_TI_OBJECT else "Le", True)
    else:
        raise Skip("it: ti before a verb the rules do not know")


def _it_command(w: Words, i: int) -> str | None:
    """The Lei form of a tu imperative at `i`, its pronoun first ("Salvalo" -> "Lo salvi",
    "Assicurati" -> "Si assicuri"); None where the word is none."""
    x = w.lower[i]
    if x in W.IT_JOINED:
        return W.IT_JOINED[x]
    if x in W.IT_IMPERATIVES:
        following = w.next_lower(i) if i + 1 < len(w.words) else ""
        if x in _IT_AMBIGUOUS and following not in W.reader.IT_VERB_OBJECTS:
            return None  # "Prova gratuita", "Modifica del file": nouns
        return W.IT_IMPERATIVES[x]
    for e in W.reader.IT_ENCLITICS:
        if x.endswith(e) and x[: -len(e)] in W.IT_IMPERATIVES and x not in W.reader.IT_NOT_JOINED:
            return f"{e} {W.IT_IMPERATIVES[x[: -len(e)]]}"
    return None


def _it_not_infinitive(w: Words, i: int, changes: dict[int, str]) -> None:
    """ "Non" + infinitive, a tu command: "Non spegnere" -> "Non spenga", "Non preoccuparti" ->
    "Non si preoccupi"."""
    word = w.words[i + 1]
    x = word.lower()
    if x in _IT_INFINITIVE_LEI:
        changes[i + 1] = _case(word, _IT_INFINITIVE_LEI[x], False)
    elif x.endswith("rti") and x[:-2] + "e" in _IT_INFINITIVE_LEI and x[:-2] + "e" in W.IT_REFLEXIVE_VERBS:
        changes[i + 1] = _case(word, "si " + _IT_INFINITIVE_LEI[x[:-2] + "e"], False)
    elif x.endswith(("are", "ere", "ire", "rti")):
        raise Skip("it: non + an infinitive the rules do not know")


def _italian(text: str, source: str = "") -> str:
    w = Words(text)
    sentence = _sentences(w)
    changes: dict[int, str] = {}
    commanded: set[int] = set()  # the sentences with a command rewritten
    for i, word in enumerate(w.words):
        x = w.lower[i]
        if i in changes:
            continue
        following = w.next_lower(i) if i + 1 < len(w.words) and w.inside_sentence(i + 1) else ""
        if x in W.IT_POSSESSIVES:
            changes[i] = _case(word, W.IT_POSSESSIVES[x], True)
        elif x == "tu":
            changes[i] = _case(word, "Lei", True)
        elif x == "te":
            if following in ("lo", "la", "li", "le", "ne"):
                raise Skip("it: te + pronoun (glielo)")
            changes[i] = _case(word, "Lei", True)
        elif x == "ti":
            _it_ti(w, i, changes)
        elif x == "non" and following and _it_command_place(w, i, sentence[i] in commanded):
            _it_not_infinitive(w, i, changes)
        elif _it_command_place(w, i, sentence[i] in commanded) and (lei := _it_command(w, i)):
            changes[i] = _case(word, lei, True)
            commanded.add(sentence[i])
        elif x in W.IT_2SG and (x != "sei" or _it_sei_is_verb(w, i, following)):
            changes[i] = _case(word, W.IT_2SG[x], True)
        elif x in _IT_PRESENT and (_it_subject_before(w, i) or (w.starts_sentence(i) and w.in_question(i))):
            changes[i] = _case(word, _IT_PRESENT[x], True)  # "se selezioni" -> "se seleziona"
        elif x.endswith("rai") and len(x) >= 6:
            changes[i] = word[:-3] + ("RÀ" if word.isupper() else "rà")  # "potrai" -> "potrà"
        elif x.endswith("resti") and len(x) >= 7 and x not in W.IT_NOT_CONDITIONAL:
            changes[i] = word[:-5] + ("REBBE" if word.isupper() else "rebbe")  # "potresti" -> "potrebbe"
        elif (joined := _it_joined_ti(word)) is not None:
            changes[i] = joined
        elif x in _IT_ONLY_VERB:
            raise Skip("it: a tu verb where the rules do not know its use")
    out = _apply(text, w, changes)
    if address.read(out, "it", source) == address.NEUTRAL:
        _it_subject(w, changes)
        out = _apply(text, w, changes)
    return out


def _it_subject(w: Words, changes: dict[int, str]) -> None:
    """ "Lei" before the first verb rewritten, where the rewrite reads as addressing no one and
    every change put a verb in the third person (or made "ti" "si"): "Hai 3 nuovi messaggi" ->
    "Lei ha 3 nuovi messaggi" ("Ha 3 nuovi messaggi" may be anyone's; "Vuole uscire?" of "Do you
    want to quit?" is read formal as it stands). It goes before "non" and the pronouns in front of
    the verb ("Non puoi" -> "Lei non può", "Ti sei registrato" -> "Lei si è registrato")."""
    if not changes or not all(_it_third_person(w.lower[i], new.lower()) for i, new in changes.items()):
        return
    k = min(changes)
    while k > 0 and w.inside_sentence(k) and w.lower[k - 1] in _IT_BEFORE_VERB:
        k -= 1
    word = changes.get(k, w.words[k])
    if w.starts_sentence(k) and not (len(word) > 1 and word.isupper()):
        word = word[:1].lower() + word[1:]
    changes[k] = "Lei " + word  # (in capitals, "LEI" would be no polite capital: such a text is skipped)


_IT_BEFORE_VERB = W.IT_CLITICS | {"si", "mi"}


def _it_third_person(tu: str, lei: str) -> bool:
    """Whether a change (lower-case) puts a second-person verb in the third person ("hai" -> "ha",
    "potrai" -> "potrà", "ti sei" -> "si è"), which alone does not say "you"."""
    if (tu, lei) == ("ti", "si"):
        return True
    if lei in (W.IT_2SG.get(tu), _IT_PRESENT.get(tu), W.IT_REFLEXIVE_2SG.get(tu)):
        return True
    return (tu.endswith("rai") and lei == tu[:-3] + "rà") or (tu.endswith("resti") and lei == tu[:-5] + "rebbe")


def _it_sei_is_verb(w: Words, i: int, following: str) -> bool:
    """Whether "sei" is "you are" (not six): before a predicate or a participle, or after "tu",
    "non", "se"... ("Sei sicuro", "sei stato", "se sei connesso")."""
    before = w.lower[i - 1] if i and w.inside_sentence(i) else ""
    return (
        following in W.reader.IT_SEI_PREDICATES or following.endswith(W.IT_PARTICIPLE_ENDS) or before in W.IT_SEI_AFTER
    )


# ---- Brazilian Portuguese (você -> o senhor)


def _portuguese(text: str, source: str = "") -> str:
    w = Words(text)
    changes: dict[int, str] = {}
    for i, word in enumerate(w.words):
        x = w.lower[i]
        if x in W.PT_TU_FORMS:
            raise Skip("pt: tu forms (te, teu) the rules do not convert")
        if x == "contigo":
            changes[i] = _case(word, "com o senhor", True)
        elif x in W.PT_FORMAL:
            article, senhor = W.PT_FORMAL[x]
            before = w.lower[i - 1] if i and w.inside_sentence(i) else ""
            if (before, article) in W.PT_JOINED:  # "de você" -> "do senhor"
                changes[i - 1] = _case(w.words[i - 1], W.PT_JOINED[before, article], True)
                changes[i] = _case(word, senhor, False)
            else:
                changes[i] = _case(word, f"{article} {senhor}", True)
    return _apply(text, w, changes)


_FORMAL_RULES = {"it": _italian, "pt": _portuguese}

INFORMAL_LANGUAGES = frozenset(_RULES)  # `informal` rewrites these
FORMAL_LANGUAGES = frozenset({"it", "pt-BR"})  # `formal` rewrites these (Portuguese as Brazil's)


def check(register: str, language: str) -> None:
    """ValueError unless the rules rewrite texts of `language` into `register` ("formal":
    `formal`, "informal": `informal`), as a model that delivers a register by a rewrite needs
    (model/controls.Registers)."""
    rules, known = (_FORMAL_RULES, FORMAL_LANGUAGES) if register == address.FORMAL else (_RULES, INFORMAL_LANGUAGES)
    if register not in FROM or language.replace("_", "-").lower().split("-")[0] not in rules:
        raise ValueError(
            f"no rules rewrite {language or 'its target'!r} into the {register} register "
            f"(known: {', '.join(sorted(known))})"
        )
