"""The first stages of a text's way through the serving path, before any model work: the text is
cut into segments and each segment's input to the engine is made and checked (`prepare`, giving a
`Prepared`, which service/texts.py translates, joins or streams).

A text is cut by the text layer (`traductor.text.plan`: lines, sentences, long sentences cut,
pass-through pieces kept, HTML markup kept outside and around), within `engine.text_limits`
(characters and segments; beyond them `LimitExceeded`) and the model's input limit, a segment's
(`max_input_tokens`: a longer sentence is cut, not refused). Each segment to translate is encoded
once (its placeholders and protected spans behind placeholder tokens: model/placeholders.py) with
its own decoding options (`options.for_segment`, resolved against the engine's limits).

Translation memory: a plain-text segment whose exact text is in `engine.memory` (the bundle's
memory.tsv, engine/memory.py; empty with --no-memory) is answered from it (`Prepared.known`), with
no model call, no tokens and zero usage. HTML segments always go to the model (their inline
markup would have to match the memory's), and so does a segment in a register or with
alternatives asked for.

Glossary (`glossary=`, traductor.glossary): a segment holding one of its terms skips the memory;
its terms are found here (`Prepared.terms`, glossed.segment_terms) for the glossary's two passes
(glossed.py); a model trained with term annotations reads them in pass 1 (`masking.annotate`).
Every other segment is encoded exactly as without a glossary.

Inline markup: a segment holding a pair of inline tags around words (`Check that <b>the disk</b>
has space`) has its pairs found here (`Prepared.pairs`, placed.pairs) for placed.py to check.

This module knows nothing about gRPC, HTTP, metrics, or how the segments are decoded and joined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.request import FinishEvent, FinishReason, Timings
from ..glossary import Glossary, masking
from ..options import DecodingOptions, for_segment, resolve
from ..text import Plan, TextError, plan
from . import glossed, placed
from .async_engine import AsyncEngine


@dataclass(frozen=True)
class Prepared:
    """A checked text: its plan and, per segment to translate, what the engine submits."""

    plan: Plan
    inputs: list[tuple]  # (source ids, placeholder values, resolved options), one per segment the model translates
    segments: list[int] = field(default_factory=list)  # the plan segment index of each of `inputs`
    known: dict[int, str] = field(default_factory=dict)  # plan segment index -> its translation from the memory
    terms: dict[int, glossed.SegmentTerms] = field(default_factory=dict)  # index in `inputs` -> its glossary terms
    options: DecodingOptions | None = None
    pairs: dict[int, list[placed.Pair]] = field(default_factory=dict)  # index in `inputs` -> its inline pairs to check

    @property
    def count(self) -> int:
        return len(self.inputs) + len(self.known)

    def events(self, model: list[FinishEvent]) -> list[FinishEvent]:
        """One finish event per plan segment, in text order: the model's and the memory's."""
        out: list = [None] * self.count
        for k, event in zip(self.segments, model, strict=True):
            out[k] = event
        for k, text in self.known.items():
            out[k] = remembered(text)
        return out


def remembered(text: str) -> FinishEvent:
    """A segment translated from the memory: no tokens, no usage, no time; a person's translation
    (confidence 1)."""
    return FinishEvent(FinishReason.EOS, text, [], [], 0, Timings(), confidence=1.0)


def prepare(
    engine: AsyncEngine, text: str, options: DecodingOptions, format: str = "text", glossary: Glossary | None = None
) -> Prepared:
    """Cut and check a text (empty, limits, format, options); raises InvalidInput for the caller."""
    if not text or not text.strip():
        raise TextError("text is empty")
    limit, encoded = engine.limits.max_input_tokens, {}

    def encode(s: str) -> tuple[list[int], list[str]]:  # each piece tokenized once
        if s not in encoded:
            encoded[s] = engine.encode(s, options)
        return encoded[s]

    too_long = lambda s: len(encode(s)[0]) > limit  # noqa: E731
    p = plan(text, format, too_long=too_long, limits=engine.text_limits, language=engine.language)
    memory = engine.memory if format == "text" else {}
    inputs, segments, known, terms, pairs = [], [], {}, {}, {}
    for segment in p.segments:
        found = masking.terms(glossary, segment.text) if glossary is not None else []
        if segment.text in memory and not found and not (options.register or options.alternatives):
            known[segment.index] = memory[segment.text]
            continue
        if found:
            terms[len(inputs)] = glossed.segment_terms(engine, segment.text, found, options, glossary)
        if wrapped := placed.pairs(segment.text):
            pairs[len(inputs)] = wrapped
        if found and engine.tokenizer.controls:  # a model trained with term annotations uses them in pass 1
            ids, values = engine.encode(masking.annotate(segment.text, found), options)
        else:
            ids, values = encode(segment.text)
        segment_options = for_segment(options, len(ids), engine.limits)
        inputs.append((ids, values, resolve(segment_options, len(ids), engine.limits)))
        segments.append(segment.index)
    if not inputs:  # nothing reaches the model, but bad options are still refused
        resolve(for_segment(options, limit, engine.limits), limit, engine.limits)
    return Prepared(p, inputs, segments, known, terms, options, pairs)
