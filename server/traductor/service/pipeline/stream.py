"""stream: a text's translation as it is decoded (the last stage of a streamed call), the same
line as a unary call's (decode -> restore -> register -> verify) with deltas in text order instead of one
joined text.

One TokenEvent per generated token of any segment, numbered 0, 1, 2, ... in the order they come,
whose `text_delta` is the text that became ready in text order (text/stream.py's DeltaStream;
often "" for a segment behind the head); then the text's FinishEvent (join.py), whose
`final_delta` is the rest. The concatenation of every delta is the unary text exactly. A segment
from the memory is sent when it becomes the head; a segment the verifier may repair (its source
holds a span, a tag or a special space: `verify.held`), that decode holds (glossary terms,
markup pairs), or whose register is rewritten (register.py) comes whole when it is done. Any
other is sent as the verifier will leave it (`verify.streamable`: no run of spaces its source
lacks, its last spaces held until a word follows).
A segment none of whose text went out before it finished is repaired as a unary call repairs it;
one that was partly sent, only where that sent text allows (STREAM_REPAIRS)."""

from __future__ import annotations

from contextlib import aclosing
from typing import AsyncIterator

from ...engine.request import FinishEvent, TokenEvent
from ...text import DeltaStream
from ...text.verify import STREAM_REPAIRS
from ..async_engine import AsyncEngine
from . import decode, join, register, restore, verify
from .protect import Prepared


async def stream(
    engine: AsyncEngine, prepared: Prepared, request_id: str, timeout: float | None = None
) -> AsyncIterator[TokenEvent | FinishEvent]:
    """The events of a whole text `prepare`d (see the module docstring)."""
    p, segments = prepared.plan, prepared.segments
    deltas = DeltaStream(p)
    ready, count = deltas.begin(), 0
    for k, text in sorted(prepared.known.items()):  # from the memory: sent when it becomes the head
        ready += deltas.finish(k, text)
    finished: list = [None] * len(segments)
    # once a segment, not once a token; a register rewrite may change any word: every segment held
    held = [bool(prepared.rewrite) or verify.held(prepared, j) for j in range(len(segments))]
    decoded = [""] * len(segments)  # each segment's output so far
    group = decode.Group(engine, [prepared], [request_id], timeout, stream=True)
    async with aclosing(group.events()) as events:
        async for j, event in events:
            if isinstance(event, FinishEvent):
                event = restore.restored(group, j, event)
                event = register.rewritten(engine, prepared, j, event, group.terms.get(j))
                repair = STREAM_REPAIRS if deltas.sent(segments[j]) else True  # what went out stays
                finished[j] = verify.checked(engine, prepared, j, event, repair)
                ready += deltas.finish(segments[j], finished[j].text)
                continue
            if not held[j] and event.text_delta:
                decoded[j] += event.text_delta
                ready += deltas.partial(segments[j], verify.streamable(prepared, j, decoded[j]))
            yield TokenEvent(count, event.token_id, ready, event.logprob)
            ready, count = "", count + 1
    event = join.result(prepared, finished)
    event.final_delta = ready
    yield event
