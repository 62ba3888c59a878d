"""verify: each segment the model translated, checked against its source (the fifth stage), before
it is joined or streamed, whatever the model, the interface or the file format (text/verify.py:
spans, special spaces, edges, markup, numbers, translate-toolkit's checks).

    checked(engine, prepared, k, event, repair)   the k-th model segment's finish event, verified
    streamable(prepared, k, partial)               what a stream may send of its output so far
    held(prepared, k)                              whether a stream holds the segment's text to its
                                                   end: a repair may change it (the source holds a
                                                   span, a tag or a special space); asked once a segment

A repaired segment's event carries the repaired text; a flagged one keeps the text it has, says
which checks it failed (`FinishEvent.failed_checks`: every interface shows them, the file report
names them) and its confidence is at most FLAGGED_CONFIDENCE (under engine/confidence.LOW: every
interface marks it low and file translation marks it for review, or keeps the source where the
format cannot mark it). The model's metrics count both, by check (`traductor_verified_segments`).
A segment whose text was already streamed (`repair=STREAM_REPAIRS`) was sent as `streamable` left
it: its runs of spaces are made one, every other failure is only flagged.

This module knows nothing about gRPC, HTTP or how texts are cut."""

from __future__ import annotations

from dataclasses import replace

from ...engine.confidence import LOW
from ...engine.request import FinishEvent
from ...languages import known_base
from ...text import verify
from ..async_engine import AsyncEngine
from .protect import Prepared

FLAGGED_CONFIDENCE = round(LOW - 0.05, 4)  # the most a segment that failed a check is trusted


def held(prepared: Prepared, k: int) -> bool:
    """Whether the k-th segment's text is held to its end in a stream (a repair may change it)."""
    return verify.holds_anything(prepared.plan.segments[prepared.segments[k]].text)


def streamable(prepared: Prepared, k: int, partial: str) -> str:
    """What of the k-th segment's output decoded so far a stream may send (text/verify.streamable)."""
    return verify.streamable(prepared.plan.segments[prepared.segments[k]].text, partial)


def checked(
    engine: AsyncEngine, prepared: Prepared, k: int, event: FinishEvent, repair: bool | frozenset[str] = True
) -> FinishEvent:
    """The k-th segment's finish event with its output verified (see the module docstring)."""
    options = prepared.options
    language = known_base((options.target_language if options else "") or engine.target)  # as the checks read it
    source = prepared.plan.segments[prepared.segments[k]].text
    verdict = verify.verify(source, event.text, language, repair)
    engine.metrics.observe_verdict(verdict.repaired, verdict.failed)
    if verdict.failed:
        confidence = min(event.confidence, FLAGGED_CONFIDENCE)
        failed = tuple(dict.fromkeys(event.failed_checks + verdict.failed))  # with an earlier stage's (register.py)
        return replace(event, text=verdict.text, failed_checks=failed, confidence=confidence)
    return replace(event, text=verdict.text) if verdict.text != event.text else event
