"""Dutch, formal -> informal (u -> je), for data augmentation: `informal(text, source)` rewrites a
text the reader reads formal, or raises common.Skip. What it converts:

- u/uw/uzelf -> je/je/jezelf, "a.u.b."/"alstublieft" -> "alsjeblieft", "u heeft" ->
  "je hebt", the verb before an inverted subject without its -t (kunt u -> kun je, heeft u ->
  heb je). Skipped: "u zelf", "zich", "heeft" away from u, "u" as a letter or unit (km/u), an
  inverted verb the rules do not know or that may have u as its object ("Dit geeft u...").
"""

from __future__ import annotations

from ..address_text import Words
from . import common as C
from . import words as W
from .common import Skip


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


def informal(text: str, source: str = "") -> str:
    text = W.NL_PLEASE.sub(lambda m: C.case(m.group(0), "alsjeblieft", True), text)
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
                changes[i - 1] = C.case(w.words[i - 1], verb, C.opens(w, i - 1))
            if w.next_lower(i) == "heeft" and w.inside_sentence(i + 1):
                changes[i + 1] = C.case(w.words[i + 1], "hebt", False)
        changes[i] = C.case(word, W.NL_WORDS[x], C.opens(w, i))
    if any(x == "heeft" and i not in changes for i, x in enumerate(w.lower)):
        raise Skip("nl: heeft away from u (je hebt?)")
    return C.apply(text, w, changes)
