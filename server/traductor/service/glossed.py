"""The two passes of a glossary call through the engine (texts.py's run_many and stream use it).

    pass 1   every segment as without a glossary (the same ids: the same tokens), in ONE group
             with each term's source alone ("file", "files") that this engine has not translated
             yet for the call's languages (`own`, kept per engine); then, per segment holding
             terms, the model's own words replaced by the glossary's (glossary.substitute)
    pass 2   the segments where a term's own word was not in the translation, again in one group,
             with their terms masked behind placeholder tokens (or written in, for a tokenizer
             without them): the decoder must produce each one (glossary.masking)

A segment holding terms streams its tokens with empty text deltas, and its text comes whole
when it is done (DeltaStream puts it in text order); a segment of pass 2 streams the tokens of
both passes, and its finish event carries both passes' tokens, log-probabilities, input tokens
and time (the work done for it), and pass 2's text. Segments without terms are untouched: their
events pass through as they come.

This module knows nothing about gRPC, HTTP or how texts are cut.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, replace

from ..engine.request import FinishEvent, TokenEvent
from ..errors import InvalidInput
from ..glossary import Glossary, masking
from ..glossary.substitute import sources, substitute
from ..options import DecodingOptions, resolve
from .async_engine import AsyncEngine

OWN_LIMIT = 4096  # own translations kept per engine and languages; beyond, the table starts again
_own: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class SegmentTerms:
    """What pass 1 and pass 2 need of a segment holding glossary terms."""

    found: list  # (matching.Found, target form) per occurrence, left to right
    fallback: tuple | None  # pass 2's (ids, values, resolved options): terms masked or written in
    language: str  # the glossary's target language (plurals)
    source: str = ""  # the segment's text

    @property
    def sources(self) -> set[str]:
        """The terms' source texts translated alone (substitute.sources: both numbers, both cases)."""
        return {text for f, _ in self.found for text in sources(f)}


def segment_terms(engine: AsyncEngine, text: str, found: list, options: DecodingOptions, glossary: Glossary):
    """A segment's SegmentTerms: pass 2's input holds its terms behind placeholder tokens, or, for
    a tokenizer without them (an imported model), written in their target form."""
    tokenizer = engine.tokenizer
    if tokenizer.placeholder_ids:
        m = masking.mask(text, found, marked=True)
        ids, values = tokenizer.encode_masked(m.text) + [tokenizer.eos_id], m.values
    else:
        ids, values = engine.encode(masking.switch(text, found), options)
    try:
        fallback = (ids, values, resolve(options, len(ids), engine.limits))
    except InvalidInput:  # terms written in made it longer than the model takes: pass 1 only
        fallback = None
    return SegmentTerms(found, fallback, glossary.target_language, text)


def alone_options(options: DecodingOptions) -> DecodingOptions:
    """How a text is translated on its own (`own_table`): greedy, in the call's languages and register."""
    return DecodingOptions(
        source_language=options.source_language, target_language=options.target_language, register=options.register
    )


def own_table(engine: AsyncEngine, options: DecodingOptions, kind: str = "term") -> dict[str, str]:
    """Texts translated on their own (a glossary's terms; `kind` "markup": placed.py's wrapped texts),
    per engine, languages, register and kind."""
    tables = _own.setdefault(engine, {})
    table = tables.setdefault((kind, options.source_language, options.target_language, options.register), {})
    if len(table) > OWN_LIMIT:
        table.clear()
    return table


def _merged(first: FinishEvent, second: FinishEvent, text: str) -> FinishEvent:
    timings = first.timings.then(second.timings, first_token=first.timings.first_token)
    return replace(
        second,
        text=text,
        alternatives=[],
        token_ids=first.token_ids + second.token_ids,
        logprobs=first.logprobs + second.logprobs,
        input_tokens=first.input_tokens + second.input_tokens,
        timings=timings,
    )


def quiet(event: TokenEvent) -> TokenEvent:
    """A token event that shows no text (its segment's text comes with its finish event)."""
    return TokenEvent(event.index, event.token_id, "", event.logprob)


async def decode(
    engine: AsyncEngine,
    inputs: list[tuple],
    request_ids: list[str],
    terms: dict[int, SegmentTerms],
    options: DecodingOptions,
    check,
    timeout: float | None = None,
    stream: bool = True,
) -> AsyncIterator[tuple[int, TokenEvent | FinishEvent]]:
    """(position in `inputs`, event) as engine.generate_many yields them, with the glossary
    applied to the segments in `terms` (position -> SegmentTerms). `check` turns a finish event
    into the error it stands for (texts.check_finish)."""
    deadline = time.monotonic() + timeout if timeout is not None else None
    own = own_table(engine, options)
    missing = sorted({s for t in terms.values() for s in t.sources} - set(own))
    n = len(inputs)
    # a term alone is translated greedily whatever the call's options (but in its register): its result is kept
    greedy = alone_options(options)
    extra = [engine.prepare(s, greedy) for s in missing]
    ids = request_ids + [f"{request_ids[0]}:term{i}" for i in range(len(missing))]
    held: dict[int, FinishEvent] = {}
    async with aclosing(engine.generate_many(inputs + extra, ids, timeout, stream)) as events:
        async for j, event in events:
            if j >= n:
                if isinstance(event, FinishEvent):
                    own[missing[j - n]] = check(event).text
            elif j not in terms:
                yield j, event
            elif isinstance(event, FinishEvent):
                held[j] = check(event)
            else:
                yield j, quiet(event)
    again: dict[int, FinishEvent] = {}
    for j, event in held.items():
        text = substitute(event.text, terms[j].found, own, terms[j].language)
        if text is not None and engine.tokenizer.controls:  # pass 1 was annotated (prepared.prepare)
            text = masking.starts_lower(terms[j].source, terms[j].found, text)
        if text is None and terms[j].fallback is not None:
            again[j] = event
        else:  # (no pass 2 possible: the translation as pass 1 made it)
            yield j, event if text is None else replace(event, text=text, alternatives=[])  # none hold the terms
    if not again:
        return
    order = list(again)
    retry, retry_ids = [terms[j].fallback for j in order], [f"{request_ids[j]}:glossary" for j in order]
    left = max(0.0, deadline - time.monotonic()) if deadline is not None else None  # the call's time, not anew
    async with aclosing(engine.generate_many(retry, retry_ids, left, stream)) as events:
        async for i, event in events:
            j = order[i]
            if isinstance(event, FinishEvent):
                event = check(event)
                yield j, _merged(again[j], event, masking.unmark(event.text))
            else:
                yield j, quiet(event)
