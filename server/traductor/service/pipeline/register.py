"""register: a segment's translation rewritten into the register the call asked, for a model that
delivers that register by rewriting its output in another (the stage between restore and verify).

A model's config.json may say so (`register_rewrites`, model/controls.Registers): the Italian model
writes "tu" well when asked, "Lei" too rarely for its tag to work, so a call asking the formal
register is decoded in the informal one (the protect stage puts that tag in: the tokenizer's
`check_register`) and each segment's text is rewritten here by the language's rules
(text/register_convert.formal: "Vuoi salvare le tue modifiche?" -> "Vuole salvare le Sue
modifiche?"). `Prepared.rewrite` names the register asked; "" for every other call, which passes
untouched. Per segment, as text/address reads its text:

    in the register it was decoded in   rewritten, when the rules convert every word of that
                                        register with certainty and the result reads in the
                                        register asked; otherwise left as it is and flagged
    mixed                               left as it is, flagged
    in the register asked, or neutral   (nothing addresses the reader) left as it is

A rewrite that would change a placeholder, a protected span or a glossary term's target words is
not made: the segment is flagged. A flagged segment fails the check FORMALITY (its event's
`failed_checks`, shown by every interface; the verify stage adds its own) and its confidence is at
most verify.FLAGGED_CONFIDENCE. The model's metrics count both outcomes as the verifier's are
counted (`traductor_verified_segments{check="formality"}`: repaired, flagged). Alternatives are
rewritten alike; one the rules cannot rewrite is dropped.

A stream holds such a segment's text to its end (stream.py): a rewrite may change any word.
Everything here depends only on the segment's source and its translation (the English source tells
the reader where a verb says "you"; for a segment translated through English, the English text
between the hops, `FinishEvent.middle`).

This module knows nothing about gRPC, HTTP, or which models deliver a register so (the tokenizer
and the engine do: `AsyncEngine.rewritten`)."""

from __future__ import annotations

from dataclasses import replace

from ...engine.request import FinishEvent
from ...languages import ENGLISH, known_base
from ...model import placeholders
from ...text import address, register_convert
from ..async_engine import AsyncEngine
from .protect import Prepared, SegmentTerms
from .verify import FLAGGED_CONFIDENCE

FORMALITY = "formality"  # the check a segment fails when its register could not be rewritten


def rewritten(
    engine: AsyncEngine, prepared: Prepared, k: int, event: FinishEvent, terms: SegmentTerms | None
) -> FinishEvent:
    """The k-th segment's finish event in the register its call asked (see the module docstring);
    `terms`: the segment's glossary terms, if any (decode's `Group.terms`)."""
    if not prepared.rewrite:
        return event
    asked = prepared.rewrite
    language = (prepared.options.target_language if prepared.options else "") or engine.target
    # the reader reads the English the translation was made from: the source, or a pivoted
    # segment's middle text (service/pivot.py)
    english = known_base(engine.language) == ENGLISH
    source = prepared.plan.segments[prepared.segments[k]].text if english else event.middle
    text = _rewrite(event.text, asked, language, source, terms)
    if text is None:
        engine.metrics.observe_verdict((), (FORMALITY,))
        confidence = min(event.confidence, FLAGGED_CONFIDENCE)
        return replace(event, failed_checks=(*event.failed_checks, FORMALITY), confidence=confidence)
    others = [t for t in (_rewrite(a, asked, language, source, terms) for a in event.alternatives) if t is not None]
    if text != event.text:
        engine.metrics.observe_verdict((FORMALITY,), ())
    return replace(event, text=text, alternatives=list(dict.fromkeys(t for t in others if t != text)))


def _rewrite(text: str, asked: str, language: str, source: str, terms: SegmentTerms | None) -> str | None:
    """`text` in register `asked` (itself when nothing in it needs rewriting), or None."""
    found = address.read(text, language, source)
    if found != register_convert.FROM[asked]:
        return None if found == address.MIXED else text
    out, _ = register_convert.rewrite(text, asked, language, source)
    if out is None or placeholders.find(out) != placeholders.find(text):
        return None
    if terms is not None and any(target in text and target not in out for _, target in terms.found):
        return None
    return out
