"""`/detect` and `source=auto`, honestly: the answer is one of the languages the served models
translate from, chosen by a heuristic that knows English only (the language of software
messages and of gettext's msgids: languages.ENGLISH).

    English's confidence = 100 x (share of letters that are ASCII)
                               x (1/2 + 1/2 x min(1, 4 x share of words that are English function words))

- A text in another script (Greek, Cyrillic, CJK...) has few ASCII letters: near 0.
- A Latin-script text with no English function word ("Permission denied", "archivo no
  encontrado") gets 50: it may be English (software messages are often that short) or not; the
  heuristic cannot tell and says so.
- A sentence where a quarter or more of the words are English function words ("the", "is",
  "of", ...) gets 100. Running English prose is about half function words.
- A text with no letters at all (numbers, punctuation) gets 0.

Every other source language a model translates from gets 0: the heuristic cannot tell it. The
answer lists the served sources best first (ties keep their order), LibreTranslate's shape; with
one source language served (an English-only server), it is always that one. This is not a
language identifier: it never names a language no model translates from, because translating
from it is not something this server can do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...languages import ENGLISH

# English function words that are not also common words of Spanish, French, German, Italian,
# Portuguese, Dutch or the Scandinavian languages ("a", "no", "in", "on", "an", "was", "will",
# "me", "he", "so" are left out: they would make "archivo no encontrado" look English).
FUNCTION_WORDS = frozenset(
    "about above after again against all any are be been before being below between both but by "
    "cannot could did does doing down during each few from further had having here hers him his how "
    "if into is it its itself just more most my myself nor not now of off only other our ours out own same "
    "she should some such than that the their theirs them then there these they this those through too "
    "until up very we were what when where which while who whom whose why with would you your yours".split()
)
_WORD = re.compile(r"[^\W\d_]+")


def english_confidence(text: str) -> float:
    """How English `text` looks, from 0 to 100 (see the module docstring), rounded to 0.1."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    ascii_share = sum(c.isascii() for c in letters) / len(letters)
    words = _WORD.findall(text.lower())
    function_share = sum(w in FUNCTION_WORDS for w in words) / len(words)
    return round(100 * ascii_share * (0.5 + 0.5 * min(1.0, 4 * function_share)), 1)


# How much a text looks like each language the heuristic knows (0 to 100)
SCORES = {ENGLISH: english_confidence}


def detect(text: str, sources: Sequence[str]) -> list[dict]:
    """LibreTranslate's detection answer over `sources` (the served models' source languages): one
    {"confidence": 0..100, "language": code} each, the most likely first (see the module docstring)."""
    found = [{"confidence": SCORES[s](text) if s in SCORES else 0.0, "language": s} for s in sources]
    return sorted(found, key=lambda d: -d["confidence"])
