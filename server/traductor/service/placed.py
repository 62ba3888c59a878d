"""Inline markup on the right words: a paired element wraps the translation of what it wrapped.

The model carries inline tags (`<b>`, `</b>`, `<a href="..">`) as placeholder tokens, and the
structure always comes back (`text.html.restore_markup`), but the model may put a pair on the
wrong words: "Check that <b>the disk</b> has space" -> "Compruebe que <b>el</b> disco tiene
espacio". So, for each segment holding a checkable pair (`pairs`: an open tag and its close tag,
each once in the segment, with words between them and no other tag, not wrapping the whole
segment), the wrapped source text is translated on its own, in the SAME engine group as the
segments (the own translations are kept per engine and languages, like glossed.py's terms), and
the translation's wrapped text is compared with it (`place`):

    agree     the wrapped text is like the text's own translation (difflib ratio >= AGREE, on
              lower-cased words without the punctuation at their ends, in their order or
              sorted): kept
    moved     it is not, but a run of words elsewhere in the translation is (ratio >= MOVE): the
              pair moves to wrap that run ("Compruebe que <b>el disco</b> tiene espacio"); a pair
              the model dropped altogether is put around such a run too
    unsure    neither: the model's placement is kept, the segment's event says `markup_unsure`
              and its confidence is at most UNSURE_CONFIDENCE (under engine/confidence.LOW, so
              every interface marks it low and file translation lists it for review)

Everything here depends only on the segment's source, its translation and the wrapped text's
own translation (greedy, per engine and languages), never on what else is in the batch. A
segment holding a pair streams its tokens with empty text deltas and its text comes whole when
it and its own translations are done (as glossed.py does for glossary segments).

This module knows nothing about gRPC, HTTP or how texts are cut.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, replace

from ..engine.confidence import LOW
from ..engine.request import FinishEvent, TokenEvent
from ..model import placeholders
from ..options import DecodingOptions, for_segment, resolve
from ..text.pieces import needs_translation
from . import glossed
from .async_engine import AsyncEngine

AGREE = 0.6  # the wrapped text is (close to) the wrapped source's own translation
MOVE = 0.75  # a run of words elsewhere is, clearly enough to move the pair there
UNSURE_CONFIDENCE = round(LOW - 0.05, 4)  # the most a segment whose markup is unsure is trusted

_OPEN = re.compile(r"<([A-Za-z][\w:-]*)(?:\s[^<>]*)?(?<!/)>$")
_CLOSE = re.compile(r"</([A-Za-z][\w:-]*)\s*>$")
_WORD = re.compile(r"\S+")
_EDGE = "\"'.,;:!?()[]{}«»“”‘’¿¡"


@dataclass(frozen=True)
class Pair:
    open: str  # the start tag, as in the segment
    close: str  # its end tag
    inner: str  # the text it wraps in the source, translated on its own
    before: int  # how many markers (tags, entities) come before it in the source


def _markers(text: str) -> list[re.Match]:
    return [m for m in placeholders.finditer(text) if m.lastgroup == "markup"]


def _tags(text: str) -> list[re.Match]:
    return [m for m in _markers(text) if m.group(0).startswith("<")]


def pairs(text: str) -> list[Pair]:
    """The pairs of `text` whose placement can be checked (see the module docstring)."""
    tags = _tags(text)
    strings = [m.group(0) for m in tags]
    found, stack = [], []
    for i, m in enumerate(tags):
        if o := _OPEN.match(m.group(0)):
            stack.append((o.group(1).lower(), i))
        elif (c := _CLOSE.match(m.group(0))) and stack and stack[-1][0] == c.group(1).lower():
            _, k = stack.pop()
            opened, closed = tags[k], m
            inner = text[opened.end() : closed.start()].strip()
            outside = text[: opened.start()] + " " + text[closed.end() :]
            if (
                i == k + 1  # no other tag inside
                and strings.count(opened.group(0)) == 1
                and strings.count(closed.group(0)) == 1
                and needs_translation(inner)
                and needs_translation(outside)
            ):
                before = sum(1 for x in _markers(text) if x.start() < opened.start())
                found.append(Pair(opened.group(0), closed.group(0), inner, before))
    return found


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
    marks = _markers(text)
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
            if _tags(run) or "<ph" in run:
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


async def decode(
    engine: AsyncEngine,
    inputs: list[tuple],
    request_ids: list[str],
    segment_pairs: dict[int, list[Pair]],
    options: DecodingOptions,
    check,
    generate: Callable,
    timeout: float | None = None,
    stream: bool = True,
) -> AsyncIterator[tuple[int, TokenEvent | FinishEvent]]:
    """(position in `inputs`, event) as `generate(inputs, ids, timeout, stream)` yields them (the
    engine's generate_many, or glossed.decode), with the segments in `segment_pairs` (position ->
    their pairs) checked: their own texts are added to the group, and each such segment's finish
    event comes once it and its own texts are done. `check` is texts.check_finish."""
    own = glossed.own_table(engine, options, "markup")
    needed = {p.inner for ps in segment_pairs.values() for p in ps}
    alone = {s: own[s] for s in needed if s in own}  # this call's: the shared table may be cleared meanwhile
    missing = sorted(needed - set(alone))
    # the wrapped text alone is translated greedily whatever the call's options (but in its register, so
    # that one register runs through the message): its result is kept
    greedy = glossed.alone_options(options)
    extra = []
    for s in missing:
        ids, values = engine.encode(s, greedy)
        extra.append((ids, values, resolve(for_segment(greedy, len(ids), engine.limits), len(ids), engine.limits)))
    n = len(inputs)
    ids = request_ids + [f"{request_ids[0]}:markup{i}" for i in range(len(missing))]
    held: dict[int, FinishEvent] = {}

    def ready() -> list[int]:
        return sorted(j for j in held if all(p.inner in alone for p in segment_pairs[j]))

    async with aclosing(generate(inputs + extra, ids, timeout, stream)) as events:
        async for j, event in events:
            if j >= n:
                if isinstance(event, FinishEvent):
                    event, source = check(event), missing[j - n]
                    alone[source] = "" if event.cut_short else event.text  # nothing to compare with
                    if not event.cut_short:
                        own[source] = event.text
            elif j not in segment_pairs:
                yield j, event
                continue
            elif isinstance(event, FinishEvent):
                held[j] = check(event)
            else:
                yield j, glossed.quiet(event)
                continue
            for k in ready():
                yield k, checked(held.pop(k), segment_pairs[k], alone)
