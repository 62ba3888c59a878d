"""Whole texts through the engine: the segmentation of the serving path, shared by every protocol.

The gRPC servicer (Translate, TranslateStream, TranslateBatch) and the HTTP API call these
functions with plain Python values, with the engine of the model the call goes to. A text is cut into
segments by the text layer (`traductor.text.plan`: lines, sentences, long sentences cut,
pass-through pieces kept, HTML markup kept outside and around); all segments of a request (of
every text of a batch) go to the engine as ONE group (`AsyncEngine.generate_many`), so the
engine admits them in the same step and decodes them as rows of the same batch: a paragraph
of ten sentences takes about as long as its longest sentence. The translations are put back
with the original separators (`Plan.assemble`), or streamed in text order (`DeltaStream`).

    prepare(engine, text, options, format)    prepared.py's: checks everything before any model work
    translate(...), translate_many(...)       one FinishEvent per text: the segments joined
    stream(engine, prepared, request_id)      TokenEvents of the whole text, then its FinishEvent

Per segment: the decoding options (beam, sampling and its seed, max/min new tokens) apply to
each segment on its own (greedy decoding of a segment of one or two pieces is a beam of 4:
`options.for_segment`), and the model's input limit (`max_input_tokens`) is a segment's: a
longer sentence is cut by the text layer, not refused. Per text: `engine.text_limits`
(characters and segments; beyond them `LimitExceeded`, INVALID_ARGUMENT naming the limit).

The joined result of a text: the assembled text; its finish reason: `untranslated` when a
segment came back with nothing in it (no letter outside placeholders: its source is kept in its
place, `Plan.finished`), else `loop` when a segment was stopped looping, else `length` when a
segment was cut at the length limit, else `eos`; token ids and log-probabilities concatenated in
segment order; usage summed; timings of the request (queue, encode, decode, total: the
longest segment's, as the segments run side by side; first token: the earliest); `segments`, each
segment's own event in text order (its reason `untranslated` when it came back with nothing, its
confidence then 0), and the text's confidence, the lowest of its segments' (1 with none). A text with
nothing to translate (only numbers, punctuation, placeholders) comes back as it is, with no
model call and zero usage.

What a text's segments are, before any model work (cut, memory, glossary terms, inline pairs,
encoding, options), is prepared.py's: `prepare` and `Prepared`, which these functions take. A
segment from the memory is put in place like a translated one; in a stream its text is sent when
it becomes the head. A segment holding a glossary term goes through the glossary's two passes
(glossed.py), one holding a pair of inline tags around words has them checked (placed.py), and
every segment the model translates is verified against its source (verified.py) before it is
joined or streamed.

This module knows nothing about gRPC, HTTP, metrics or logging (the engine records those).
"""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import replace
from typing import AsyncIterator

from ..engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from ..errors import DeadlinePassed, EngineDown, EngineFailure, InvalidInput, ItemRefused
from ..glossary import Glossary
from ..options import DecodingOptions
from ..text import DeltaStream, Plan, TextError
from ..text.pieces import Kind
from . import glossed, hypotheses, placed, verified
from .async_engine import AsyncEngine
from .prepared import Prepared, prepare


def check_finish(event: FinishEvent) -> FinishEvent:
    """The engine's finish event, or the error a caller sees instead of it."""
    if event.reason is FinishReason.ERROR:
        if isinstance(event.error, EngineDown):
            raise event.error
        raise EngineFailure("engine error") from event.error
    if event.reason is FinishReason.DEADLINE:
        raise DeadlinePassed("the deadline passed before the translation was done")
    return event


# A text's finish reason: the first of these that one of its segments has, else EOS.
JOINED_REASONS = (FinishReason.UNTRANSLATED, FinishReason.LOOP, FinishReason.LENGTH)


def segment_id(request_id: str, index: int, count: int) -> str:
    """A segment's request id in the engine (and its log line): the text's own when it is alone."""
    return request_id if count == 1 else f"{request_id}:{index}"


def joined(p: Plan, events: list[FinishEvent]) -> FinishEvent:
    """The segments' finish events as the text's one (see the module docstring)."""
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
        alternatives=hypotheses.alternatives(p, events),
    )


def _generate(engine: AsyncEngine, inputs, ids, terms, options, timeout, stream: bool, pairs=None):
    """engine.generate_many, through the glossary's two passes (glossed.py) when a segment holds a
    term, and with inline pairs checked (placed.py) when a segment holds one."""

    def generate(inputs, ids, timeout, stream):
        if not terms:
            return engine.generate_many(inputs, ids, timeout, stream)
        return glossed.decode(engine, inputs, ids, terms, options, check_finish, timeout, stream)

    if not pairs:
        return generate(inputs, ids, timeout, stream)
    return placed.decode(engine, inputs, ids, pairs, options, check_finish, generate, timeout, stream)


async def run_many(
    engine: AsyncEngine, texts: list[Prepared], request_ids: list[str], timeout: float | None = None
) -> list[FinishEvent]:
    """Translate prepared texts, every segment of every text in one engine group; one event per text.

    If a segment fails (or its deadline passes), the error is raised and the others are cancelled."""
    where = [(t, k) for t, p in enumerate(texts) for k in range(len(p.inputs))]
    inputs = [texts[t].inputs[k] for t, k in where]
    ids = [segment_id(request_ids[t], texts[t].segments[k], texts[t].count) for t, k in where]
    results: list[list] = [[None] * len(p.inputs) for p in texts]
    terms = {j: texts[t].terms[k] for j, (t, k) in enumerate(where) if k in texts[t].terms}
    pairs = {j: texts[t].pairs[k] for j, (t, k) in enumerate(where) if k in texts[t].pairs}
    generate = _generate(engine, inputs, ids, terms, texts[0].options, timeout, False, pairs)
    async with aclosing(generate) as events:
        async for j, event in events:
            if isinstance(event, FinishEvent):
                t, k = where[j]
                results[t][k] = verified.checked(engine, texts[t], k, check_finish(event))
    return [joined(p.plan, p.events(r)) for p, r in zip(texts, results)]


async def translate(
    engine: AsyncEngine,
    text: str,
    options: DecodingOptions,
    request_id: str,
    timeout: float | None = None,
    format: str = "text",
    glossary: Glossary | None = None,
) -> FinishEvent:
    """Translate one text (gRPC `Translate`, HTTP `/translate` with a string `q`)."""
    (event,) = await run_many(engine, [prepare(engine, text, options, format, glossary)], [request_id], timeout)
    return event


async def translate_many(
    engine: AsyncEngine,
    texts: list[str],
    options: DecodingOptions,
    request_id: str,
    timeout: float | None = None,
    format: str = "text",
    max_texts: int = 64,
    glossary: Glossary | None = None,
    field: str = "texts",
) -> list[FinishEvent]:
    """Translate texts together (gRPC `TranslateBatch`, HTTP `/translate` with a list `q`).

    Every text is checked before any work: one refused for what it holds (`text.TextError`) is
    `ItemRefused`, its message naming it as the request's `field` (texts, q, text) and its index.
    Text i gets the request id `{request_id}-{i}`."""
    if not texts or len(texts) > max_texts:
        raise InvalidInput(f"texts must hold between 1 and {max_texts} texts (--max-batch-texts), got {len(texts)}")
    prepared = []
    for index, text in enumerate(texts):
        try:
            prepared.append(prepare(engine, text, options, format, glossary))
        except TextError as refused:
            raise ItemRefused(index, refused, field) from refused
    return await run_many(engine, prepared, [f"{request_id}-{i}" for i in range(len(texts))], timeout)


async def stream(
    engine: AsyncEngine, prepared: Prepared, request_id: str, timeout: float | None = None
) -> AsyncIterator[TokenEvent | FinishEvent]:
    """The events of a whole text: one TokenEvent per generated token of any segment, numbered
    0, 1, 2, ... in the order they come, whose `text_delta` is the text that became ready in text
    order (often "" for a segment behind the head); then the text's FinishEvent, whose
    `final_delta` is the rest. The concatenation of every delta is the unary text exactly."""
    p, segments = prepared.plan, prepared.segments
    deltas = DeltaStream(p)
    ready, count = deltas.begin(), 0
    for k, text in sorted(prepared.known.items()):  # from the memory: sent when it becomes the head
        ready += deltas.finish(k, text)
    finished: list = [None] * len(segments)
    held = [verified.held(prepared, j) for j in range(len(segments))]  # once a segment, not once a token
    ids = [segment_id(request_id, k, prepared.count) for k in segments]
    generate = _generate(engine, prepared.inputs, ids, prepared.terms, prepared.options, timeout, True, prepared.pairs)
    async with aclosing(generate) as events:
        async for j, event in events:
            if isinstance(event, FinishEvent):
                finished[j] = verified.checked(engine, prepared, j, check_finish(event), held[j])
                ready += deltas.finish(segments[j], finished[j].text)
                continue
            ready += deltas.push(segments[j], "" if held[j] else event.text_delta)
            yield TokenEvent(count, event.token_id, ready, event.logprob)
            ready, count = "", count + 1
    event = joined(p, prepared.events(finished))
    event.final_delta = ready
    yield event
