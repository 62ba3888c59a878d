"""`/detect` and `source=auto`: which of the languages the served models translate FROM a text
is in. The answer lists the served sources best first (LibreTranslate's shape), each with a
confidence from 0 to 100; it never names a language no model translates from, because
translating from it is not something this server can do.

One source served (a server of the project's English models): the answer is that language,
with a confidence that says how English the text looks (below; another single source gets 0).

    English's confidence = 100 x (share of letters that are ASCII)
                               x (1/2 + 1/2 x min(1, 4 x share of words that are English function words))

- A text in another script (Greek, Cyrillic, CJK...) has few ASCII letters: near 0.
- A Latin-script text with no English function word ("Permission denied") gets 50: it may be
  English (software messages are often that short) or not; the heuristic cannot tell and says so.
- A sentence where a quarter or more of the words are English function words gets 100.
- A text with no letters at all (numbers, punctuation) gets 0.

Several sources served (an NLLB or M2M100 bundle, or models from several languages): a language
identifier, py3langid (a naive Bayes model over byte n-grams of 97 languages, shipped inside the
package, about 20 microseconds a text), ranks the text over its languages. Each of its labels
counts for the served source a caller naming that label would get (languages.CodeTable: its `no`
for `nb`; its `arz` for Egyptian Arabic where that is served, else for `ar`), and the counts are
made to sum to 1 over the sources; each is then multiplied by the share of the text's letters
written in the source's usual script (languages.script), so Cyrillic text is never German and a
text with no letters is nothing. A source the identifier does not know gets 0. How well this does
on software messages is measured in docs/languages.md (scripts/measure/detect_accuracy.py).

This module does not know which models are served: the caller passes their sources.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from ...languages import ENGLISH, script
from .params import served_table

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

# ISO 15924 script -> the first word of the Unicode names of its letters, where the two differ
# (langcodes names the rest as Unicode does: Latin, Cyrillic, Arabic, Devanagari, Tamil, ...)
UNICODE_SCRIPT_NAMES = {
    "Hans": ("CJK",),
    "Hant": ("CJK",),
    "Jpan": ("CJK", "HIRAGANA", "KATAKANA"),
    "Kore": ("HANGUL", "CJK"),
    "Beng": ("BENGALI",),
    "Orya": ("ORIYA",),
}


def english_confidence(text: str) -> float:
    """How English `text` looks, from 0 to 100 (see the module docstring), rounded to 0.1."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    ascii_share = sum(c.isascii() for c in letters) / len(letters)
    words = _WORD.findall(text.lower())
    function_share = sum(w in FUNCTION_WORDS for w in words) / len(words)
    return round(100 * ascii_share * (0.5 + 0.5 * min(1.0, 4 * function_share)), 1)


@functools.cache
def _identifier():
    """py3langid's identifier with normalised probabilities, read once (about a second)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@functools.lru_cache(maxsize=1024)
def _letter_names(source: str) -> tuple[str, ...]:
    """The first words of the Unicode names of the letters `source` is usually written in (empty:
    the data does not know its script, and every letter counts)."""
    written = script(source)
    if written is None:
        return ()
    if written in UNICODE_SCRIPT_NAMES:
        return UNICODE_SCRIPT_NAMES[written]
    from langcodes import Language

    return (Language.get(f"und-{written}").script_name().upper(),)


def script_share(text: str, source: str) -> float:
    """The share of `text`'s letters written in `source`'s usual script (0 with no letters)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    names = _letter_names(source)
    if not names:
        return 1.0
    return sum(unicodedata.name(c, "").startswith(names) for c in letters) / len(letters)


def identified(text: str, sources: Sequence[str]) -> dict[str, float]:
    """Each source's confidence (0 to 100) when several are served (see the module docstring)."""
    table, raw = served_table(frozenset(sources)), dict.fromkeys(sources, 0.0)
    for label, probability in _identifier().rank(text):
        source = table.own(label)  # the source a caller naming the label would get (`no` -> nb, `arz`)
        if source is not None:
            raw[source] += probability
    total = sum(raw.values())
    return {s: round(100 * p / total * script_share(text, s), 1) if total else 0.0 for s, p in raw.items()}


def detect(text: str, sources: Sequence[str]) -> list[dict]:
    """LibreTranslate's detection answer over `sources` (the served models' source languages): one
    {"confidence": 0..100, "language": code} each, the most likely first (ties keep their order)."""
    if len(sources) > 1:
        scores = identified(text, sources)
    else:
        scores = {s: english_confidence(text) if s == ENGLISH else 0.0 for s in sources}
    found = [{"confidence": scores[s], "language": s} for s in sources]
    return sorted(found, key=lambda d: -d["confidence"])
