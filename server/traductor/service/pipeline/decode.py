"""decode: the engine (the third stage), every segment of a call in ONE group.

All segments of a request (of every text of a batch) go to the engine as one group
(`AsyncEngine.generate_many`, or a pivot's `PivotEngine` standing in its place), so the engine
admits them in the same step and decodes them as rows of the same batch: a paragraph of ten
sentences takes about as long as its longest sentence. The decodes the later stages need join
that group:

    round 1   the segments; the words a markup pair wraps, alone ("the disk"); each glossary
              term's source alone ("file", "files"). A text translated alone is translated greedily
              in the call's languages and register, and kept per engine, languages, register and
              kind (`own_table`): a later call does not decode it again
    round 2   the segments holding glossary terms whose round-1 translation does not hold the
              model's own word for a term (`glossary.substitute` answers None): again, in one group,
              their terms masked (protect's `SegmentTerms.fallback`), within the call's time left.
              `substitute` is asked once a segment; its answer (`Group.substituted`) goes to restore

`Group.events` yields (position in the group, event) as the engine gives them, and a segment's
finish event once everything it needs is decoded: its own, its wrapped words alone, its second
pass. A segment held so (glossary terms, markup pairs) streams its tokens with empty text
deltas; its text comes whole with its finish event. A segment of round 2 streams the tokens of
both rounds, and its finish event carries both rounds' tokens, log-probabilities, input tokens and
time (the work done for it), and round 2's text (its terms still marked: restore unmarks them).
A finish event is checked (`check_finish`): an engine error or a passed deadline is raised, and
leaving (an error, a cancel) cancels the rest of the group. Everything depends only on the
segment's source and the texts translated alone, never on what else is in the batch.

This module knows nothing about gRPC, HTTP or how texts are cut."""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import replace

from ...engine.request import FinishEvent, FinishReason, TokenEvent
from ...errors import DeadlinePassed, EngineDown, EngineFailure
from ...glossary.substitute import substitute
from ...options import DecodingOptions, for_segment, resolve
from ..async_engine import AsyncEngine
from .protect import Prepared

OWN_LIMIT = 4096  # own translations kept per engine and languages; beyond, the table starts again
_own: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def check_finish(event: FinishEvent) -> FinishEvent:
    """The engine's finish event, or the error a caller sees instead of it."""
    if event.reason is FinishReason.ERROR:
        if isinstance(event.error, EngineDown):
            raise event.error
        raise EngineFailure("engine error") from event.error
    if event.reason is FinishReason.DEADLINE:
        raise DeadlinePassed("the deadline passed before the translation was done")
    return event


def segment_id(request_id: str, index: int, count: int) -> str:
    """A segment's request id in the engine (and its log line): the text's own when it is alone."""
    return request_id if count == 1 else f"{request_id}:{index}"


def alone_options(options: DecodingOptions) -> DecodingOptions:
    """How a text is translated on its own (`own_table`): greedy, in the call's languages and register."""
    return DecodingOptions(
        source_language=options.source_language, target_language=options.target_language, register=options.register
    )


def own_table(engine: AsyncEngine, options: DecodingOptions, kind: str = "term") -> dict[str, str]:
    """Texts translated on their own (a glossary's terms; `kind` "markup": the words pairs wrap),
    per engine, languages, register and kind."""
    tables = _own.setdefault(engine, {})
    table = tables.setdefault((kind, options.source_language, options.target_language, options.register), {})
    if len(table) > OWN_LIMIT:
        table.clear()
    return table


def quiet(event: TokenEvent) -> TokenEvent:
    """A token event that shows no text (its segment's text comes with its finish event)."""
    return TokenEvent(event.index, event.token_id, "", event.logprob)


def merged(first: FinishEvent, second: FinishEvent) -> FinishEvent:
    """A segment's finish event after two rounds: the work of both, round 2's text."""
    timings = first.timings.then(second.timings, first_token=first.timings.first_token)
    return replace(
        second,
        alternatives=[],
        token_ids=first.token_ids + second.token_ids,
        logprobs=first.logprobs + second.logprobs,
        input_tokens=first.input_tokens + second.input_tokens,
        timings=timings,
    )


class Group:
    """The segments of prepared texts as one engine group, and the texts decoded alone for them."""

    def __init__(self, engine: AsyncEngine, texts: list[Prepared], request_ids: list[str], timeout=None, stream=False):
        self.engine, self.timeout, self.stream = engine, timeout, stream
        self.where = [(t, k) for t, p in enumerate(texts) for k in range(len(p.inputs))]  # position -> (text, k)
        self.inputs = [texts[t].inputs[k] for t, k in self.where]
        self.ids = [segment_id(request_ids[t], texts[t].segments[k], texts[t].count) for t, k in self.where]
        self.terms = {j: texts[t].terms[k] for j, (t, k) in enumerate(self.where) if k in texts[t].terms}
        self.pairs = {j: texts[t].pairs[k] for j, (t, k) in enumerate(self.where) if k in texts[t].pairs}
        self.options = texts[0].options
        self.controls = bool(engine.tokenizer.controls)  # round 1 read annotated terms (protect)
        self.own: dict[str, str] = {}  # a term's source -> its translation alone
        self.alone: dict[str, str] = {}  # the words a pair wraps -> their translation alone ("": none to use)
        self.again: set[int] = set()  # the positions decoded in round 2
        # a round-1 translation with the glossary's terms in place of the model's own words, or None
        # where it lacks one (glossary.substitute, asked once: it decides round 2, restore uses it)
        self.substituted: dict[int, str | None] = {}

    def _markup(self) -> tuple[list[str], list[tuple], dict[str, str]]:
        """The wrapped words to decode alone (not kept yet), their inputs, and the markup table."""
        own = own_table(self.engine, self.options, "markup")
        needed = {p.inner for ps in self.pairs.values() for p in ps}
        self.alone = {s: own[s] for s in needed if s in own}  # this call's: the table may be cleared meanwhile
        missing, greedy, limits = sorted(needed - set(self.alone)), alone_options(self.options), self.engine.limits
        extra = []
        for s in missing:
            ids, values = self.engine.encode(s, greedy)
            extra.append((ids, values, resolve(for_segment(greedy, len(ids), limits), len(ids), limits)))
        return missing, extra, own

    def _ready(self, held: dict[int, FinishEvent]) -> list[int]:
        return sorted(j for j in held if all(p.inner in self.alone for p in self.pairs[j]))

    async def events(self) -> AsyncIterator[tuple[int, TokenEvent | FinishEvent]]:
        """(position, event) as the engine gives them; a segment's finish event once it is whole."""
        deadline = time.monotonic() + self.timeout if self.timeout is not None else None
        n, engine, first = len(self.inputs), self.engine, self.ids[0] if self.ids else ""
        wrapped, wrapped_inputs, markup_own = self._markup() if self.pairs else ([], [], {})
        if self.terms:
            self.own = own_table(engine, self.options)
        terms = sorted({s for t in self.terms.values() for s in t.sources} - set(self.own))
        term_inputs = [engine.prepare(s, alone_options(self.options)) for s in terms]  # greedy, as the words of a pair
        m = n + len(wrapped)
        group = self.inputs + wrapped_inputs + term_inputs
        ids = self.ids + [f"{first}:markup{i}" for i in range(len(wrapped))]
        ids += [f"{first}:term{i}" for i in range(len(terms))]
        held, paired = {}, {}  # position -> its round-1 finish event: glossary terms, markup pairs
        async with aclosing(engine.generate_many(group, ids, self.timeout, self.stream)) as events:
            async for j, event in events:
                if not isinstance(event, FinishEvent):
                    if j < n:
                        yield j, (quiet(event) if j in self.terms or j in self.pairs else event)
                    continue
                event = check_finish(event)
                if j >= m:  # a term alone
                    self.own[terms[j - m]] = event.text
                    continue
                if j >= n:  # the words of a pair alone
                    source = wrapped[j - n]
                    self.alone[source] = "" if event.cut_short else event.text  # nothing to compare with
                    if not event.cut_short:
                        markup_own[source] = event.text
                elif j in self.terms:
                    held[j] = event
                    continue
                elif j in self.pairs:
                    paired[j] = event
                else:
                    yield j, event
                    continue
                for k in self._ready(paired):
                    yield k, paired.pop(k)
        for j, event in held.items():
            t = self.terms[j]
            self.substituted[j] = substitute(event.text, t.found, self.own, t.language)  # restore puts it in
            if t.fallback is not None and self.substituted[j] is None:
                self.again.add(j)
            else:
                yield j, event
        if not self.again:
            return
        order = [j for j in held if j in self.again]
        retry, retry_ids = [self.terms[j].fallback for j in order], [f"{self.ids[j]}:glossary" for j in order]
        left = max(0.0, deadline - time.monotonic()) if deadline is not None else None  # the call's time, not anew
        async with aclosing(engine.generate_many(retry, retry_ids, left, self.stream)) as events:
            async for i, event in events:
                j = order[i]
                if isinstance(event, FinishEvent):
                    yield j, merged(held[j], check_finish(event))
                else:
                    yield j, quiet(event)
