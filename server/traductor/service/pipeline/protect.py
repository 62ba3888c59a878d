"""protect: what each segment must keep, and its input to the engine (the second stage).

Per segment of the cut, in text order:

    memory       a plain-text segment found in `engine.memory` (the bundle's memory.tsv; empty
                 with --no-memory: engine/memory.find, its exact text or its capitalised form) is
                 answered from it
                 (`Prepared.known`), with no model call; not an HTML segment (its inline markup would
                 have to match), nor one holding a glossary term, in a register or with
                 alternatives asked for
    terms alone  a segment that is nothing but glossary terms (with placeholders, spaces and
                 punctuation around: "artist", "Files:") is answered likewise with their target
                 forms (`masking.Protected.whole`): its masked input would be placeholders alone,
                 on which a model loops
    spans        placeholders and protected spans of every kind (model/placeholders.py, one table)
                 go behind placeholder tokens `<phK>` as the engine tokenizes the segment (the
                 cut's tokens are used)
    glossary     one call a segment (`glossary.masking.protect`, handed the spans found here):
                 its terms and its second pass's input, terms masked behind placeholder tokens
                 or, for a tokenizer without them (an imported model), written in
                 (`SegmentTerms`); for a model trained with term annotations, the annotated
                 input it reads in the first pass. A segment with no term is encoded exactly as
                 without a glossary
    register     the call's register tag goes in with the tokens (model/controls.py); for a
                 register the model delivers by a rewrite, the tag of the one it is rewritten
                 from, and `Prepared.rewrite` names the one asked (the register stage rewrites)
    markup       the pairs of inline tags around words whose placement the restore stage checks
                 (`pairs`: "Check that <b>the disk</b> has space"): an open tag and its close tag,
                 each once in the segment, words between them and no other tag, not wrapping the
                 whole segment
    options      the segment's own decoding options (`options.for_segment`), resolved against the
                 engine's limits: a bad option is refused here, before any model work

This module knows nothing about gRPC, HTTP, or how the segments are decoded and joined."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...engine.memory import find
from ...errors import InvalidInput
from ...glossary import Glossary, masking
from ...glossary.substitute import sources
from ...model import placeholders
from ...options import DecodingOptions, for_segment, resolve
from ...text import Plan
from ...text.pieces import needs_translation
from ..async_engine import AsyncEngine
from .cut import Cut

_OPEN = re.compile(r"<([A-Za-z][\w:-]*)(?:\s[^<>]*)?(?<!/)>$")
_CLOSE = re.compile(r"</([A-Za-z][\w:-]*)\s*>$")


@dataclass(frozen=True)
class SegmentTerms:
    """What a segment holding glossary terms needs for its two passes and their restoring."""

    found: list  # (matching.Found, target form) per occurrence, left to right
    fallback: tuple | None  # pass 2's (ids, values, resolved options): terms masked or written in
    language: str  # the glossary's target language (plurals)
    source: str = ""  # the segment's text

    @property
    def sources(self) -> set[str]:
        """The terms' source texts translated alone (substitute.sources: both numbers, both cases)."""
        return {text for f, _ in self.found for text in sources(f)}


@dataclass(frozen=True)
class Pair:
    open: str  # the start tag, as in the segment
    close: str  # its end tag
    inner: str  # the text it wraps in the source, translated on its own
    before: int  # how many markers (tags, entities) come before it in the source


@dataclass(frozen=True)
class Prepared:
    """A protected text: its plan and, per segment to translate, what the engine submits."""

    plan: Plan
    inputs: list[tuple]  # (source ids, placeholder values, resolved options), one per segment the model translates
    segments: list[int] = field(default_factory=list)  # the plan segment index of each of `inputs`
    known: dict[int, str] = field(default_factory=dict)  # plan segment index -> its translation (memory, glossary)
    terms: dict[int, SegmentTerms] = field(default_factory=dict)  # index in `inputs` -> its glossary terms
    options: DecodingOptions | None = None
    pairs: dict[int, list[Pair]] = field(default_factory=dict)  # index in `inputs` -> its inline pairs to check
    rewrite: str = ""  # the register the outputs are rewritten into (register.py); "": none

    @property
    def count(self) -> int:
        return len(self.inputs) + len(self.known)


def pairs(text: str, spans: list[re.Match]) -> list[Pair]:
    """The pairs of `text` whose placement can be checked (see the module docstring); `spans`: its
    placeholders (`placeholders.finditer`), found once by the caller."""
    markup = [m for m in spans if m.lastgroup == "markup"]
    found_tags = [m for m in markup if m.group(0).startswith("<")]
    strings = [m.group(0) for m in found_tags]
    found, stack = [], []
    for i, m in enumerate(found_tags):
        if o := _OPEN.match(m.group(0)):
            stack.append((o.group(1).lower(), i))
        elif (c := _CLOSE.match(m.group(0))) and stack and stack[-1][0] == c.group(1).lower():
            _, k = stack.pop()
            opened, closed = found_tags[k], m
            inner = text[opened.end() : closed.start()].strip()
            outside = text[: opened.start()] + " " + text[closed.end() :]
            if (
                i == k + 1  # no other tag inside
                and strings.count(opened.group(0)) == 1
                and strings.count(closed.group(0)) == 1
                and needs_translation(inner)
                and needs_translation(outside)
            ):
                before = sum(1 for x in markup if x.start() < opened.start())
                found.append(Pair(opened.group(0), closed.group(0), inner, before))
    return found


def segment_terms(engine: AsyncEngine, held: masking.Protected, options: DecodingOptions, language: str, text: str):
    """A segment's SegmentTerms: pass 2's input (`held.second`) as ids, its terms behind placeholder
    tokens or, for a tokenizer without them (an imported model), written in their target form."""
    tokenizer = engine.tokenizer
    if tokenizer.placeholder_ids:
        ids, values = tokenizer.encode_input(held.second.text, options.register), held.second.values
    else:
        ids, values = engine.encode(held.second.text, options)
    try:
        fallback = (ids, values, resolve(options, len(ids), engine.limits))
    except InvalidInput:  # terms written in made it longer than the model takes: pass 1 only
        fallback = None
    return SegmentTerms(held.found, fallback, language, text)


def protect(engine: AsyncEngine, cut: Cut, options: DecodingOptions, glossary: Glossary | None = None) -> Prepared:
    """The cut text's segments protected and encoded (see the module docstring); InvalidInput for
    options or languages the model refuses."""
    limit, tokenizer = engine.limits.max_input_tokens, engine.tokenizer
    tokens, annotations = bool(tokenizer.placeholder_ids), bool(tokenizer.controls)  # how terms go in
    memory = engine.memory if cut.format == "text" and not (options.register or options.alternatives) else {}
    inputs, segments, known, terms, wrapped = [], [], {}, {}, {}
    for segment in cut.plan.segments:
        text = segment.text
        remembered = find(memory, text, engine.target)
        if remembered is not None and glossary is None:  # a memory hit scans nothing
            known[segment.index] = remembered
            continue
        spans = list(placeholders.finditer(text))  # found once: the glossary and markup pairs read them
        held = masking.protect(glossary, text, spans, tokens, annotations) if glossary is not None else None
        if remembered is not None and not held:
            known[segment.index] = remembered
            continue
        if held and held.whole is not None:  # nothing but glossary terms: nothing left for the model
            known[segment.index] = held.whole
            continue
        if held:
            terms[len(inputs)] = segment_terms(engine, held, options, glossary.target_language, text)
        source = held.annotated if held and held.annotated else text  # annotated: pass 1 reads the terms
        ids, values = cut.encoded.get(source) or engine.encode(source, options)  # a piece measured: tokenized once
        if segment_pairs := pairs(text, spans):
            wrapped[len(inputs)] = segment_pairs
        segment_options = for_segment(options, len(ids), engine.limits)
        inputs.append((ids, values, resolve(segment_options, len(ids), engine.limits)))
        segments.append(segment.index)
    if not inputs:  # nothing reaches the model, but bad options are still refused
        resolve(for_segment(options, limit, engine.limits), limit, engine.limits)
    rewrite = options.register if options.register and engine.rewritten(options.register) else ""
    return Prepared(cut.plan, inputs, segments, known, terms, options, wrapped, rewrite)
