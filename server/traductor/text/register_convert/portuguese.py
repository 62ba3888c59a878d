"""Brazilian Portuguese, informal -> formal (você -> o senhor), for `formality=more` by a rewrite:
`formal(text, source)` rewrites a text the reader reads informal, or raises common.Skip. What it
converts:

- você/vocês -> o senhor/os senhores, the article joined to a preposition
  before it ("de você" -> "do senhor", "a você" -> "ao senhor", "para você" -> "para o senhor"),
  "contigo" -> "com o senhor"; verbs and seu/sua are the same in both registers. Skipped: the tu
  forms (te, teu, tua), rare in Brazil. The masculine stands for both (no gender is known).
"""

from __future__ import annotations

from ..address_text import Words
from . import common as C
from . import words as W
from .common import Skip


def formal(text: str, source: str = "") -> str:
    w = Words(text)
    changes: dict[int, str] = {}
    for i, word in enumerate(w.words):
        x = w.lower[i]
        if x in W.PT_TU_FORMS:
            raise Skip("pt: tu forms (te, teu) the rules do not convert")
        if x == "contigo":
            changes[i] = C.case(word, "com o senhor", True)
        elif x in W.PT_FORMAL:
            article, senhor = W.PT_FORMAL[x]
            before = w.lower[i - 1] if i and w.inside_sentence(i) else ""
            if (before, article) in W.PT_JOINED:  # "de você" -> "do senhor"
                changes[i - 1] = C.case(w.words[i - 1], W.PT_JOINED[before, article], True)
                changes[i] = C.case(word, senhor, False)
            else:
                changes[i] = C.case(word, f"{article} {senhor}", True)
    return C.apply(text, w, changes)
