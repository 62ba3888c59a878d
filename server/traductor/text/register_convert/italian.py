"""Italian, informal -> formal (tu -> Lei), for `formality=more` by a rewrite of the model's output:
`formal(text, source)` rewrites a text the reader reads informal, or raises common.Skip. What it
converts:

- tuo/tua... -> Suo/Sua... (the polite capital), tu/te -> Lei, "ti" -> "La" or "Le" by
  the verb after it ("La preghiamo", "Le consigliamo") or "si" with a second-person verb ("ti sei
  registrato" -> "si è registrato"), tu imperatives where they stand -> Lei ("Inserisci" ->
  "Inserisca", "Assicurati" -> "Si assicuri", "Salvalo" -> "Lo salvi", "Non spegnere" -> "Non
  spenga"), second-person verbs -> third ("vuoi" -> "vuole", "se selezioni" -> "se seleziona",
  "potrai" -> "potrà", "potresti" -> "potrebbe"), "ti" joined to an infinitive or a gerund
  ("per registrarti" -> "per registrarsi", "aiutarti" -> "aiutarla"); "Lei" before the first
  verb put in the third person when nothing else says whom the text addresses ("Hai 3 nuovi
  messaggi" -> "Lei ha 3 nuovi messaggi"). Skipped: "ti" or a joined
  "ti" before a verb the tables do not know, "te lo" (glielo), "non" + an unknown infinitive, a tu
  verb the rules leave where they do not know its use (not a label: "il pulsante Converti" stays).
"""

from __future__ import annotations

from .. import address, address_more
from ..address_text import Words
from . import common as C
from . import words as W
from .common import Skip

# "non" + infinitive -> Lei: the -are verbs of the imperatives by rule ("seleziona" -> "selezionare":
# "selezioni"), the others by hand
_INFINITIVE_LEI = {
    **{tu[:-1] + "are": lei for tu, lei in W.IT_IMPERATIVES.items() if tu.endswith("a") and tu.isalpha()},
    **W.IT_INFINITIVE_LEI,
}


def _third(tu: str, lei: str) -> tuple[str, str] | None:
    """(second-person present, third person) of a tu/Lei imperative pair: "seleziona/selezioni" ->
    ("selezioni", "seleziona"); "premi/prema" -> ("premi", "preme"), "inserisci" -> "inserisce"."""
    present = address_more.it_second_present(tu, lei)
    if present is None:
        return None
    return present, tu if tu.endswith("a") else W.IT_THIRD_IRREGULAR.get(tu, tu[:-1] + "e")


# second-person present -> third; not "dai" ("dai file": from the files)
_PRESENT = dict(p for tu, lei in W.IT_IMPERATIVES.items() if tu != "dai" and (p := _third(tu, lei))) | W.IT_2SG
# a second-person present that is nothing else in an informal text ("chiudi", "inserisci"): one the
# rules leave makes the text skipped; "selezioni", "usi" (-are verbs) and "premi" (prizes) are nouns too
_ONLY_VERB = frozenset(tu for tu in _PRESENT if tu in W.IT_IMPERATIVES and tu.endswith("i")) - {"premi"}
_CHAINS = frozenset("e ed o oppure poi quindi infine ora adesso allora semplicemente".split())
_CLAUSE_OPENERS = frozenset(
    "per se quando dopo prima appena una nel nella ora adesso qui quindi poi infine allora".split()
)
_AMBIGUOUS = W.reader.IT_ALSO_NOUNS | frozenset("modifica verifica conferma ricarica registra cerca scarica".split())


def _clause_opened(w: Words, i: int) -> bool:
    """Whether the sentence of word `i` opens with a clause that leads to a command ("Per
    continuare, premi...", "Se vuoi, seleziona...")."""
    s = i
    while s > 0 and not w.starts_sentence(s):
        s -= 1
    return w.lower[s] in _CLAUSE_OPENERS


def _command_place(w: Words, i: int, commanded: bool) -> bool:
    """Where a tu imperative stands: opening a sentence, after "per favore"/"prego", or after a
    comma or "e"/"poi" once the sentence has a command or opens with a clause that leads to one;
    never in a question."""
    if w.in_question(i):
        return False
    if w.starts_sentence(i) or w.lower[i - 1] in W.reader.IT_IMPERATIVE_OPENERS:
        return True
    chained = w.after_comma(i) or (w.inside_sentence(i) and w.lower[i - 1] in _CHAINS)
    return chained and (commanded or _clause_opened(w, i))


def _joined_ti(word: str) -> str | None:
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


def _ti(w: Words, i: int, changes: dict[int, str]) -> None:
    """ "ti" -> "si" before a second-person verb (reflexive), "La" before a verb that takes an
    object, "Le" before one that takes "to you"."""
    following = w.next_lower(i) if i + 1 < len(w.words) and w.inside_sentence(i + 1) else ""
    if following in W.IT_REFLEXIVE_2SG:
        changes[i] = C.case(w.words[i], "si", True)
        changes[i + 1] = C.case(w.words[i + 1], W.IT_REFLEXIVE_2SG[following], False)
    elif following in W.IT_TI_OBJECT or following in W.IT_TI_TO:
        changes[i] = C.case(w.words[i], "La" if following in W.IT_TI_OBJECT else "Le", True)
    else:
        raise Skip("it: ti before a verb the rules do not know")


def _command(w: Words, i: int) -> str | None:
    """The Lei form of a tu imperative at `i`, its pronoun first ("Salvalo" -> "Lo salvi",
    "Assicurati" -> "Si assicuri"); None where the word is none."""
    x = w.lower[i]
    if x in W.IT_JOINED:
        return W.IT_JOINED[x]
    if x in W.IT_IMPERATIVES:
        following = w.next_lower(i) if i + 1 < len(w.words) else ""
        if x in _AMBIGUOUS and following not in W.reader.IT_VERB_OBJECTS:
            return None  # "Prova gratuita", "Modifica del file": nouns
        return W.IT_IMPERATIVES[x]
    for e in W.reader.IT_ENCLITICS:
        if x.endswith(e) and x[: -len(e)] in W.IT_IMPERATIVES and x not in W.reader.IT_NOT_JOINED:
            return f"{e} {W.IT_IMPERATIVES[x[: -len(e)]]}"
    return None


def _not_infinitive(w: Words, i: int, changes: dict[int, str]) -> None:
    """ "Non" + infinitive, a tu command: "Non spegnere" -> "Non spenga", "Non preoccuparti" ->
    "Non si preoccupi"."""
    word = w.words[i + 1]
    x = word.lower()
    if x in _INFINITIVE_LEI:
        changes[i + 1] = C.case(word, _INFINITIVE_LEI[x], False)
    elif x.endswith("rti") and x[:-2] + "e" in _INFINITIVE_LEI and x[:-2] + "e" in W.IT_REFLEXIVE_VERBS:
        changes[i + 1] = C.case(word, "si " + _INFINITIVE_LEI[x[:-2] + "e"], False)
    elif x.endswith(("are", "ere", "ire", "rti")):
        raise Skip("it: non + an infinitive the rules do not know")


def formal(text: str, source: str = "") -> str:
    w = Words(text)
    sentence = C.sentences(w)
    changes: dict[int, str] = {}
    commanded: set[int] = set()  # the sentences with a command rewritten
    for i, word in enumerate(w.words):
        x = w.lower[i]
        if i in changes:
            continue
        following = w.next_lower(i) if i + 1 < len(w.words) and w.inside_sentence(i + 1) else ""
        if x in W.IT_POSSESSIVES:
            changes[i] = C.case(word, W.IT_POSSESSIVES[x], True)
        elif x == "tu":
            changes[i] = C.case(word, "Lei", True)
        elif x == "te":
            if following in ("lo", "la", "li", "le", "ne"):
                raise Skip("it: te + pronoun (glielo)")
            changes[i] = C.case(word, "Lei", True)
        elif x == "ti":
            _ti(w, i, changes)
        elif x == "non" and following and _command_place(w, i, sentence[i] in commanded):
            _not_infinitive(w, i, changes)
        elif _command_place(w, i, sentence[i] in commanded) and (lei := _command(w, i)):
            changes[i] = C.case(word, lei, True)
            commanded.add(sentence[i])
        elif x in W.IT_2SG and (x != "sei" or _sei_is_verb(w, i, following)):
            changes[i] = C.case(word, W.IT_2SG[x], True)
        elif x in _PRESENT and (
            w.follows(i, W.IT_SUBJECT_OPENERS, W.IT_CLITICS) or (w.starts_sentence(i) and w.in_question(i))
        ):
            changes[i] = C.case(word, _PRESENT[x], True)  # "se selezioni" -> "se seleziona", "Vuoi...?"
        elif x.endswith("rai") and len(x) >= 6:
            changes[i] = word[:-3] + ("RÀ" if word.isupper() else "rà")  # "potrai" -> "potrà"
        elif x.endswith("resti") and len(x) >= 7 and x not in W.IT_NOT_CONDITIONAL:
            changes[i] = word[:-5] + ("REBBE" if word.isupper() else "rebbe")  # "potresti" -> "potrebbe"
        elif (joined := _joined_ti(word)) is not None:
            changes[i] = joined
        elif x in _ONLY_VERB and not _label(w, i):
            raise Skip("it: a tu verb where the rules do not know its use")
    out = C.apply(text, w, changes)
    if address.read(out, "it", source) == address.NEUTRAL:
        _subject(w, changes)
        out = C.apply(text, w, changes)
    return out


def _label(w: Words, i: int) -> bool:
    """Whether a tu verb is a label the text names, left as it is: capitalised inside a sentence
    ("il pulsante Converti", "la voce Apri"), as the reader reads it (text/address)."""
    return w.words[i][:1].isupper() and not w.starts_sentence(i)


def _subject(w: Words, changes: dict[int, str]) -> None:
    """ "Lei" before the first verb rewritten, where the rewrite reads as addressing no one and
    every change put a verb in the third person (or made "ti" "si"): "Hai 3 nuovi messaggi" ->
    "Lei ha 3 nuovi messaggi" ("Ha 3 nuovi messaggi" may be anyone's; "Vuole uscire?" of "Do you
    want to quit?" is read formal as it stands). It goes before "non" and the pronouns in front of
    the verb ("Non puoi" -> "Lei non può", "Ti sei registrato" -> "Lei si è registrato")."""
    if not changes or not all(_third_person(w.lower[i], new.lower()) for i, new in changes.items()):
        return
    k = min(changes)
    while k > 0 and w.inside_sentence(k) and w.lower[k - 1] in _BEFORE_VERB:
        k -= 1
    word = changes.get(k, w.words[k])
    if w.starts_sentence(k) and not (len(word) > 1 and word.isupper()):
        word = word[:1].lower() + word[1:]
    changes[k] = "Lei " + word  # (in capitals, "LEI" would be no polite capital: such a text is skipped)


_BEFORE_VERB = W.IT_CLITICS | {"si", "mi"}


def _third_person(tu: str, lei: str) -> bool:
    """Whether a change (lower-case) puts a second-person verb in the third person ("hai" -> "ha",
    "potrai" -> "potrà", "ti sei" -> "si è"), which alone does not say "you"."""
    if (tu, lei) == ("ti", "si"):
        return True
    if lei in (W.IT_2SG.get(tu), _PRESENT.get(tu), W.IT_REFLEXIVE_2SG.get(tu)):
        return True
    return (tu.endswith("rai") and lei == tu[:-3] + "rà") or (tu.endswith("resti") and lei == tu[:-5] + "rebbe")


def _sei_is_verb(w: Words, i: int, following: str) -> bool:
    """Whether "sei" is "you are" (not six): before a predicate or a participle, or after "tu",
    "non", "se"... ("Sei sicuro", "sei stato", "se sei connesso")."""
    before = w.lower[i - 1] if i and w.inside_sentence(i) else ""
    return (
        following in W.reader.IT_SEI_PREDICATES or following.endswith(W.IT_PARTICIPLE_ENDS) or before in W.IT_SEI_AFTER
    )
