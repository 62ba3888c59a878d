"""join: a text's segments put back together (the last stage of a unary call; a stream's last
event too).

The joined result of a text: the assembled text, with the source's separators (`Plan.assemble`);
its finish reason: `untranslated` when a segment came back with nothing in it (no letter outside
placeholders: its source is kept in its place, `Plan.finished`), else `loop` when a segment was
stopped looping, else `length` when a segment was cut at the length limit, else `eos`; token ids
and log-probabilities concatenated in segment order; usage summed; timings of the request (queue,
encode, decode, total: the longest segment's, as the segments run side by side; first token: the
earliest); `segments`, each segment's own event in text order (its reason `untranslated` when it
came back with nothing, its confidence then 0), and the text's confidence, the lowest of its
segments' (1 with none). A segment from the memory is put in place like a translated one (no
tokens, no usage, no time, confidence 1). A text with nothing to translate (only numbers,
punctuation, placeholders) comes back as it is, with zero usage.

Alternatives: the engine gives each segment decoded with `options.alternatives` N its search's
other hypotheses, best first (FinishEvent.alternatives). A text's i-th alternative is the text
assembled with each segment's i-th hypothesis in its place (a segment with fewer, or from the
memory, keeps its translation); those equal to the text's translation or to an earlier
alternative are left out."""

from __future__ import annotations

from dataclasses import replace

from ...engine.request import FinishEvent, FinishReason, Timings
from ...text import Plan
from ...text.pieces import Kind
from .protect import Prepared

# A text's finish reason: the first of these that one of its segments has, else EOS.
JOINED_REASONS = (FinishReason.UNTRANSLATED, FinishReason.LOOP, FinishReason.LENGTH)


def remembered(text: str) -> FinishEvent:
    """A segment translated from the memory: no tokens, no usage, no time; a person's translation
    (confidence 1)."""
    return FinishEvent(FinishReason.EOS, text, [], [], 0, Timings(), confidence=1.0)


def result(prepared: Prepared, model: list[FinishEvent]) -> FinishEvent:
    """A text's one event from its model segments' (the stage's entry): the memory's segments put
    in their places, then `joined`."""
    return joined(prepared.plan, in_order(prepared, model))


def in_order(prepared: Prepared, model: list[FinishEvent]) -> list[FinishEvent]:
    """One finish event per plan segment, in text order: the model's and the memory's."""
    out: list = [None] * prepared.count
    for k, event in zip(prepared.segments, model, strict=True):
        out[k] = event
    for k, text in prepared.known.items():
        out[k] = remembered(text)
    return out


def alternatives(p: Plan, events: list[FinishEvent]) -> list[str]:
    """The text's alternatives from its segments' events (in plan order, as `Plan.assemble` takes them)."""
    text = p.assemble([e.text for e in events])
    n = max((len(e.alternatives) for e in events), default=0)
    found = [p.assemble([(e.alternatives + [e.text] * n)[i] for e in events]) for i in range(n)]
    return [t for i, t in enumerate(found) if t != text and t not in found[:i]]


def joined(p: Plan, events: list[FinishEvent]) -> FinishEvent:
    """The segments' finish events (in plan order) as the text's one (see the module docstring)."""
    empty = set(p.untranslated([e.text for e in events]))
    todo = [piece for piece in p.pieces if piece.kind is Kind.TRANSLATE]
    segments = [
        replace(e, source=piece.original, text=p.finished(piece, e.text))
        if i not in empty
        else replace(
            e,
            source=piece.original,
            text=piece.original,
            reason=FinishReason.UNTRANSLATED,
            confidence=0.0,
            markup_unsure=False,
        )
        for i, (e, piece) in enumerate(zip(events, todo, strict=True))
    ]
    reasons = {e.reason for e in segments}
    reason = next((r for r in JOINED_REASONS if r in reasons), FinishReason.EOS)
    slowest = {
        name: max((getattr(e.timings, name) for e in events), default=0.0)
        for name in ("queue", "encode", "decode", "total")
    }
    first = min((e.timings.first_token for e in events if e.token_ids), default=0.0)
    return FinishEvent(
        reason,
        p.assemble([e.text for e in events]),
        [t for e in events for t in e.token_ids],
        [x for e in events for x in e.logprobs],
        sum(e.input_tokens for e in events),
        Timings(first_token=first, **slowest),
        confidence=min((e.confidence for e in segments), default=1.0),
        segments=segments,
        markup_unsure=any(e.markup_unsure for e in segments),
        alternatives=alternatives(p, events),
    )
