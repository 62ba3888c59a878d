"""The verify stage of the serving path: each segment the model translated is checked against its
source (text/verify.py) before it is joined or streamed, whatever the model, the interface or the
file format.

    checked(engine, prepared, k, event, repair)   the k-th model segment's finish event, verified
    held(prepared, k)                              whether a stream holds the segment's text to its
                                                   end: a repair may change it (the source holds a
                                                   span, a tag or a special space); asked once a segment

A repaired segment's event carries the repaired text; a flagged one keeps the text it has, says
which checks it failed (`FinishEvent.failed_checks`: every interface shows them, the file report
names them) and its confidence is at most FLAGGED_CONFIDENCE (under engine/confidence.LOW: every
interface marks it low and file translation marks it for review, or keeps the source where the
format cannot mark it). The model's metrics count both, by check (`traductor_verified_segments`).
A segment whose text was already streamed (`repair=False`) is only flagged.

This module knows nothing about gRPC, HTTP or how texts are cut.
"""

from __future__ import annotations

from dataclasses import replace

from ..engine.confidence import LOW
from ..engine.request import FinishEvent
from ..languages import known_base
from ..text import verify
from .async_engine import AsyncEngine

FLAGGED_CONFIDENCE = round(LOW - 0.05, 4)  # the most a segment that failed a check is trusted


def _language(engine: AsyncEngine, prepared) -> str:
    """The call's target language as translate-toolkit's checks read it (`fr`), "" when unknown."""
    return known_base((prepared.options.target_language if prepared.options else "") or engine.target)


def source_of(prepared, k: int) -> str:
    """The source text of the k-th segment the model translates."""
    return prepared.plan.segments[prepared.segments[k]].text


def held(prepared, k: int) -> bool:
    """Whether the k-th segment's text is held to its end in a stream (a repair may change it)."""
    return verify.holds_anything(source_of(prepared, k))


def checked(engine: AsyncEngine, prepared, k: int, event: FinishEvent, repair: bool = True) -> FinishEvent:
    """The k-th segment's finish event with its output verified (see the module docstring)."""
    verdict = verify.verify(source_of(prepared, k), event.text, _language(engine, prepared), repair)
    engine.metrics.observe_verdict(verdict.repaired, verdict.failed)
    if verdict.failed:
        confidence = min(event.confidence, FLAGGED_CONFIDENCE)
        return replace(event, text=verdict.text, failed_checks=verdict.failed, confidence=confidence)
    return replace(event, text=verdict.text) if verdict.text != event.text else event
