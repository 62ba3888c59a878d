"""restore: what the protect stage took aside, put back into each segment's translation (the
fourth stage). A placeholder's or protected span's value is put back by the engine's detokenizer
(engine/request.py) already; here:

    glossary   round 1: the model's own word for each term (its translation alone) replaced by the
               glossary's (`glossary.substitute`: number, capitals, a determiner agreeing (es, it, pt);
               decode asked it once and hands its answer on, `Group.substituted`);
               a model trained with term annotations keeps the source's lower-case start
               (`masking.starts_lower`). Round 2: the masked terms unmarked (`masking.unmark`). A
               segment whose translation holds none of the terms keeps it (its alternatives do not
               hold the terms, and are dropped)
    markup     a paired element wraps the translation of what it wrapped (`place`). The model
               carries inline tags as placeholder tokens, and the structure always comes back
               (text.html.restore_markup), but it may put a pair on the wrong words: "Check that
               <b>the disk</b> has space" -> "Compruebe que <b>el</b> disco tiene espacio". The
               translation's wrapped text is compared with the wrapped source's own translation:

        agree     like it (difflib ratio >= AGREE, on lower-cased words without the punctuation
                  at their ends, in their order or sorted): kept
        moved     not, but a run of words elsewhere is (ratio >= MOVE): the pair moves to wrap
                  that run ("Compruebe que <b>el disco</b> tiene espacio"); a pair the model
                  dropped altogether is put around such a run too
        unsure    neither: the model's placement is kept, the segment's event says
                  `markup_unsure` and its confidence is at most UNSURE_CONFIDENCE (under
                  engine/confidence.LOW, so every interface marks it low and file translation
                  lists it for review)

Everything here depends only on the segment's source, its translation and the texts translated
alone (decode's `Group`), never on what else is in the batch.

This module knows nothing about gRPC, HTTP or how texts are cut."""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from ...engine.confidence import LOW
from ...engine.request import FinishEvent
from ...glossary import masking
from ...model.placeholders import markup
from .decode import Group
from .protect import Pair, SegmentTerms

AGREE = 0.6  # the wrapped text is (close to) the wrapped source's own translation
MOVE = 0.75  # a run of words elsewhere is, clearly enough to move the pair there
UNSURE_CONFIDENCE = round(LOW - 0.05, 4)  # the most a segment whose markup is unsure is trusted

_WORD = re.compile(r"\S+")
_EDGE = "\"'.,;:!?()[]{}«»“”‘’¿¡"


def restored(group: Group, j: int, event: FinishEvent) -> FinishEvent:
    """The finish event of the group's j-th segment with its glossary terms and markup pairs put back."""
    if (terms := group.terms.get(j)) is not None:
        event = _glossary(event, terms, group.substituted.get(j), group.controls, j in group.again)
    if segment_pairs := group.pairs.get(j):
        event = checked(event, segment_pairs, group.alone)
    return event


def _glossary(event: FinishEvent, terms: SegmentTerms, text: str | None, controls: bool, again: bool):
    """`text`: round 1's translation with the terms substituted (decode asked `substitute`), or None."""
    if again:
        return replace(event, text=masking.unmark(event.text))
    if text is None:  # the translation as round 1 made it (no round 2 possible)
        return event
    if controls:  # round 1 was annotated (protect)
        text = masking.starts_lower(terms.source, terms.found, text)
    return replace(event, text=text, alternatives=[])  # none hold the terms


def _norm(text: str) -> str:
    return " ".join(w.strip(_EDGE) for w in text.lower().split()).strip()


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def similarity(a: str, b: str) -> float:
    """How alike two short texts are, 0..1: difflib's ratio of their lower-cased words, as they
    stand or sorted (the same words in another order: "versión nueva", "nueva versión")."""
    a, b = _norm(a), _norm(b)
    if not a or not b:
        return 0.0
    return max(_ratio(a, b), _ratio(" ".join(sorted(a.split())), " ".join(sorted(b.split()))))


def _gap(text: str, before: int) -> tuple[int, int] | None:
    """Where in `text` (a translation without the pair) the pair may go: between the same markers
    as in the source (an HTML segment's markers are put back in source order, text.html), or None
    when the translation does not have that many."""
    marks = markup(text)
    if len(marks) < before:
        return None
    return (marks[before - 1].end() if before else 0), (marks[before].start() if before < len(marks) else len(text))


def _best_run(text: str, alone: str, before: int) -> tuple[int, int, float] | None:
    """(start, end, ratio) of the run of words of `text` most like `alone` (between the markers the
    pair has around it in the source, the punctuation at its ends left out); the leftmost of the best."""
    gap = _gap(text, before)
    if gap is None:
        return None
    words = [(w.start(), w.end()) for w in _WORD.finditer(text) if gap[0] <= w.start() and w.end() <= gap[1]]
    n = max(1, len(alone.split()))
    best = None
    for size in sorted({max(1, n - 1), n, n + 1}):
        for i in range(len(words) - size + 1):
            start, end = words[i][0], words[i + size - 1][1]
            run = text[start:end]
            if markup(run, tags=True) or "<ph" in run:
                continue
            core = run.strip(_EDGE)
            if not core:
                continue
            start += run.index(core)
            end = start + len(core)
            ratio = similarity(core, alone)
            if best is None or ratio > best[2] or (ratio == best[2] and start < best[0]):
                best = (start, end, ratio)
    return best


def place(translation: str, pair: Pair, alone: str) -> tuple[str, bool]:
    """The translation with `pair` on the words that translate its source text (`alone`: that
    text's own translation), and whether the placement is sure (see the module docstring)."""
    opens, closes = translation.count(pair.open), translation.count(pair.close)
    if opens == closes == 1 and translation.index(pair.open) < translation.index(pair.close):
        o = translation.index(pair.open)
        c = translation.index(pair.close)
        wrapped = translation[o + len(pair.open) : c]
        if similarity(wrapped, alone) >= AGREE:
            return translation, True
        bare = translation[:o] + wrapped + translation[c + len(pair.close) :]
    elif opens == closes == 0:
        bare = translation
    else:
        return translation, False
    best = _best_run(bare, alone, pair.before)
    if best is None or best[2] < MOVE:
        return translation, False
    start, end, _ = best
    return bare[:start] + pair.open + bare[start:end] + pair.close + bare[end:], True


def checked(event: FinishEvent, segment_pairs: list[Pair], alone: dict[str, str]) -> FinishEvent:
    """A segment's finish event with its pairs placed (`place`), marked when one is unsure."""
    text, sure = event.text, True
    for pair in segment_pairs:
        text, ok = place(text, pair, alone[pair.inner])
        sure = sure and ok
    if sure:
        return event if text == event.text else replace(event, text=text)
    return replace(event, text=text, markup_unsure=True, confidence=min(event.confidence, UNSURE_CONFIDENCE))
