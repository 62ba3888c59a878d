"""`/detect` and `source=auto`, honestly: the model reads English only, so the answer is always
"en"; the confidence (0 to 100, LibreTranslate's scale) says how English the text looks.

    confidence = 100 x (share of letters that are ASCII)
                     x (1/2 + 1/2 x min(1, 4 x share of words that are English function words))

- A text in another script (Greek, Cyrillic, CJK...) has few ASCII letters: near 0.
- A Latin-script text with no English function word ("Permission denied", "archivo no
  encontrado") gets 50: it may be English (software messages are often that short) or not; the
  heuristic cannot tell and says so.
- A sentence where a quarter or more of the words are English function words ("the", "is",
  "of", ...) gets 100. Running English prose is about half function words.
- A text with no letters at all (numbers, punctuation) gets 0.

This is a heuristic, not a language identifier: it never answers another language, because
translating from another language is not something this service can do anyway.
"""

from __future__ import annotations

import re

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


def detect(text: str) -> dict:
    """LibreTranslate's detection shape: {"confidence": ..., "language": "en"}."""
    return {"confidence": english_confidence(text), "language": "en"}
