"""Two models one after the other, through English, for a pair no served model translates.

    es -> fr   is   es-en (first hop)  then  en-fr (second hop)

`PivotEngine` stands where a model's `AsyncEngine` stands, so every edge (gRPC, both HTTP APIs,
files, the page) and every stage of the text pipeline (service/pipeline: cut, protect, decode,
restore, verify, join) work on a pivoted call exactly as on a direct one: a segment is encoded by
the first model, `generate_many` decodes the whole group on the first engine, then the English
results as one group on the second, and the verifier checks the final text against the original
segment.

What must be copied survives both hops untouched: with the project's own tokenizers the English
middle text is never restored. The second hop reads the first hop's output ids with their
placeholder tokens still in them (`<ph0>`, ...) and takes the first hop's placeholder values, so a
placeholder, a protected span or a glossary term masked by the glossary's second pass is put back
once, at the very end, from the source's own text. An imported model's tokenizer has no such
tokens: the second hop then reads the English text (its spans found again by its own rules).

Per hop: the first hop has no register, no alternatives and English as its target; the second
has the call's target, register and alternatives, and a length limit of its own (from the English
source's length, as for a direct call). A stream sends the second hop's tokens only. The finish
event of a segment: the second hop's text, tokens and scores; its confidence the product of the
two hops'; its reason the second hop's, unless the first was cut short; input tokens and timings
of both hops added (each engine also counts its own hop in its model's metrics); the English text
between them as `middle` (the register stage reads its "you": service/pipeline/register.py).

It does not know which models exist or when a pivot is used (routing.py), nor what a text is
(service/pipeline).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import AsyncIterator

from ..engine.bundle import describe
from ..engine.bundle_config import Languages
from ..engine.request import FinishEvent, FinishReason, TokenEvent
from ..languages import ENGLISH
from ..options import DecodingOptions, for_segment, resolve
from .async_engine import AsyncEngine
from .models import Model

# A first hop that ended so is not decoded again: the segment's event is the first hop's.
ENDED = (FinishReason.ERROR, FinishReason.DEADLINE)


def first_options(options: DecodingOptions) -> DecodingOptions:
    """What the first hop decodes with: the call's search, into English, no register or alternatives."""
    return replace(options, target_language="", register="", alternatives=0)


class PivotEngine:
    """The `AsyncEngine` surface of two engines run one after the other (see the module docstring)."""

    def __init__(self, first: AsyncEngine, second: AsyncEngine, target: str):
        self.first, self.second = first, second
        self.tokenizer = first.tokenizer  # the pipeline's protect stage encodes for the first hop
        self.limits = first.limits
        self.text_limits = first.text_limits
        self.language = first.language  # the source's sentence rules cut the text
        self.target = target  # the verifier reads the output's punctuation by it
        self.memory: dict[str, str] = {}  # the first model's memory answers in English, not the target
        self.metrics = second.metrics  # a stream's messages carry the second hop's tokens
        # both tokenizers keep placeholders as tokens: the middle text stays masked
        self.masked = all(hasattr(t, "encode_input") and hasattr(t, "decode_masked") for t in self.tokenizers)

    @property
    def tokenizers(self) -> tuple:
        return self.first.tokenizer, self.second.tokenizer

    @property
    def model(self) -> str:
        return f"{self.first.model}+{self.second.model}"

    @property
    def draining(self) -> bool:
        return self.first.draining or self.second.draining

    def rewritten(self, register: str) -> bool:
        """The second model's: the register stage rewrites the final text (service/pipeline/register.py)."""
        return self.second.rewritten(register)

    def encode(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str]]:
        if options.register:  # refused as a direct call would be, before any work
            self.second.tokenizer.check_register(options.register)
        return self.first.encode(text, first_options(options))

    def prepare(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str], DecodingOptions]:
        ids, values = self.encode(text, options)
        return ids, values, resolve(options, len(ids), self.limits)

    def second_input(self, middle: FinishEvent, values: list[str], options: DecodingOptions) -> tuple:
        """The second hop's (ids, placeholder values, resolved options) for one first-hop result."""
        base = replace(options, max_new_tokens=0, source_language="")
        if self.masked:
            text = self.first.tokenizer.decode_masked(middle.token_ids)
            ids = self.second.tokenizer.encode_input(text, options.register)
        else:
            ids, values = self.second.encode(middle.text, base)
        limits = self.second.limits
        return ids, values, resolve(for_segment(base, len(ids), limits), len(ids), limits)

    async def generate_many(
        self, inputs: list[tuple], request_ids: list[str], timeout: float | None = None, stream: bool = True
    ) -> AsyncIterator[tuple[int, TokenEvent | FinishEvent]]:
        """Every input through the first engine (one group, no token events), then the English
        results through the second (one group; its token events when `stream`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        firsts = [(ids, values, first_options(options)) for ids, values, options in inputs]
        middle: list[FinishEvent | None] = [None] * len(inputs)
        async for i, event in self.first.generate_many(firsts, request_ids, timeout, stream=False):
            if isinstance(event, FinishEvent):
                middle[i] = event
        todo = []
        for i, event in enumerate(middle):
            if event.reason in ENDED or not event.token_ids:
                yield i, event
            else:
                todo.append(i)
        if not todo:
            return
        seconds = [self.second_input(middle[i], inputs[i][1], inputs[i][2]) for i in todo]
        hop_ids = [f"{request_ids[i]}:en" for i in todo]
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        async for j, event in self.second.generate_many(seconds, hop_ids, left, stream):
            i = todo[j]
            yield i, (combined(middle[i], event) if isinstance(event, FinishEvent) else event)


def combined(first: FinishEvent, second: FinishEvent) -> FinishEvent:
    """A segment's finish event after both hops (see the module docstring)."""
    cut = first.reason in (FinishReason.LENGTH, FinishReason.LOOP) and second.reason is FinishReason.EOS
    timings = first.timings.then(second.timings, first_token=first.timings.total + second.timings.first_token)
    return replace(
        second,
        reason=first.reason if cut else second.reason,
        input_tokens=first.input_tokens + second.input_tokens,
        timings=timings,
        confidence=first.confidence * second.confidence,
        middle=first.text,
    )


@dataclass
class PivotModel:
    """What routing hands an edge for a pivoted pair: the `Model` surface the edges read."""

    first: Model
    second: Model
    pair: Languages
    engine: PivotEngine

    @classmethod
    def of(cls, first: Model, second: Model, source: str, target: str) -> PivotModel:
        return cls(first, second, Languages(source, target), PivotEngine(first.engine, second.engine, target))

    @property
    def name(self) -> str:
        return f"{self.first.name}+{self.second.name}"

    @property
    def hops(self) -> tuple[Model, Model]:
        return self.first, self.second

    @property
    def languages(self) -> list[Languages]:
        return [self.pair]

    @property
    def registers(self) -> tuple[str, ...]:
        return self.second.registers

    @property
    def formality(self) -> bool:
        return self.second.formality

    @property
    def serving(self) -> bool:
        return self.first.serving and self.second.serving

    def translates(self, source: str, target: str) -> bool:
        return self.pair.matches(source, target)

    def describe(self) -> str:
        return describe(self.name, self.languages) + f" through {ENGLISH}"
