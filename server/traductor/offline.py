"""Translation without a server, for `traductor translate` and `traductor evaluate`: the engine
a command line asks for (`load_translator`), the bundle's translation memory (`bundle_memory`),
and whole texts through the service's text pipeline over it (`translate_texts`, `offline_engine`):
the same stages, each entered once, as a served call, without the server's metrics. A pair no
packaged model translates (`--from de --to fr`) goes through English as a served call does: two
packaged models (`Pivot`) run one after the other by the service's `PivotEngine`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import CommandError, require_torch
from .text import TextError, TextLimits

# `evaluate` scores a corpus as it is: no text is refused for its size.
UNLIMITED = TextLimits(max_chars=sys.maxsize, max_segments=sys.maxsize)


def load_translator(args):
    """The engine that `translate` and `evaluate` use: ONNX bundle (default), the bundle's model in
    PyTorch on a device (--device), or the PyTorch reference on a checkpoint (--engine pytorch)."""
    source, target = getattr(args, "source", None) or "", getattr(args, "to", None) or ""
    if args.model and (source or target):
        raise CommandError("--model and --from/--to are exclusive: --from/--to pick among the packaged models")
    if args.engine == "pytorch" and args.device:
        raise CommandError("--device runs a bundle's model, --engine pytorch the reference on a checkpoint: pick one")
    if args.engine == "pytorch":
        if source or target:
            raise CommandError("--from/--to pick a packaged bundle; --engine pytorch runs the checkpoint --model names")
        require_torch("the PyTorch engine (--engine pytorch)")
        from .model.translator import TorchTranslator

        return TorchTranslator.load(args.model)
    from .engine.bundle import packaged_route
    from .engine.translator import OnnxTranslator

    if args.weights and not args.device:
        raise CommandError("--weights are what --device runs: give --device too")
    route = [Path(args.model)] if args.model else packaged_route(source, target)
    if len(route) == 2:  # through English: both models in ONNX Runtime
        if args.device:
            raise CommandError(f"--from {source} --to {target} goes through English: --device runs one model only")
        first, second = (OnnxTranslator.load(bundle, threads=args.threads) for bundle in route)
        return Pivot(first, second)
    if args.device:  # the bundle's model in PyTorch (engine/torch_weights.py), checked before anything loads
        from .engine import torch_weights
        from .engine.bundle import load_bundle

        torch_weights.check_device(args.device, args.dtype)
        bundle = load_bundle(route[0])
        runner = torch_weights.torch_runner(bundle, args.device, args.dtype, args.weights or "", threads=args.threads)
        return OnnxTranslator(bundle, max_rows=max(args.batch_size, args.beam), runner=runner)
    return OnnxTranslator.load(route[0], threads=args.threads)


@dataclass
class Pivot:
    """Two packaged models through English, for a pair no packaged model translates: `first` into
    English, `second` out of it. What a command checks of its model (registers, target codes) is
    the second's; there is no translation memory (the first model's would answer in English)."""

    first: object  # engine/translator.OnnxTranslator
    second: object
    bundle = None

    @property
    def tokenizer(self):
        return self.second.tokenizer


def bundle_memory(translator, use: bool) -> dict[str, str]:
    """The bundle's translation memory when `use` (the PyTorch engine has no bundle: none)."""
    bundle = getattr(translator, "bundle", None)
    return bundle.memory() if use and bundle is not None else {}


class _Uncounted:
    """The metrics an offline engine reports to: none (the commands print their own report)."""

    model = "offline"

    def observe_finish(self, event) -> None: ...

    def observe_verdict(self, repaired, failed) -> None: ...


def _reference(translator, batch_size: int):
    """The decoder of --engine pytorch: the PyTorch reference's tokens as finish events."""
    from .engine.request import FinishEvent, FinishReason, Timings

    tokenizer = translator.tokenizer

    def decode(work: list[tuple]) -> list[FinishEvent]:
        tokens = translator.decode([(ids, o.beam_size, o.max_new_tokens) for ids, _, o in work], batch_size)
        return [
            FinishEvent(
                FinishReason.EOS if out and out[-1] == tokenizer.eos_id else FinishReason.LENGTH,
                tokenizer.decode(out, values),
                out,
                [],
                len(ids),
                Timings(),
            )
            for out, (ids, values, _) in zip(tokens, work, strict=True)
        ]

    return decode


def offline_engine(translator, beam: int, batch_size: int, memory: dict, limits: TextLimits):
    """An AsyncEngine over an offline translator, for the service's text pipeline: its core
    (service/engine_inline.py) decodes each group on the serving scheduler with at most
    `batch_size` rows (ONNX, --device), or with the PyTorch reference (--engine pytorch)."""
    from dataclasses import replace

    from .engine.confidence import bundle_calibration
    from .options import Limits
    from .service.async_engine import AsyncEngine
    from .service.engine_inline import InlineCore, scheduled
    from .service.pivot import PivotEngine

    if isinstance(translator, Pivot):
        first, second = (offline_engine(t, beam, batch_size, {}, limits) for t in (translator.first, translator.second))
        return PivotEngine(first, second, translator.second.target)
    if getattr(translator, "bundle", None) is not None:
        rows, calibration = max(1, min(batch_size, translator.max_rows)), bundle_calibration(translator.bundle.config)
        decode = scheduled(translator.runner, translator.tokenizer, rows, calibration)
        model_limits = translator.limits
    else:
        decode, n = _reference(translator, batch_size), translator.model.cfg.max_len
        model_limits = Limits(max_input_tokens=n, max_new_tokens=n - 1, max_beam_size=64)
    model_limits = replace(model_limits, max_beam_size=max(model_limits.max_beam_size, beam))
    engine = AsyncEngine(
        InlineCore(decode),
        translator.tokenizer,
        model_limits,
        limits.max_chars,
        _Uncounted(),
        limits.max_segments,
        memory,
        translator.source_language,
        translator.target,
    )
    engine.start()
    return engine


def translate_texts(
    translator,
    texts: list[str],
    beam: int,
    batch_size: int,
    format: str = "text",
    memory: dict | None = None,
    untranslated: list | None = None,
    limits: TextLimits = UNLIMITED,
    refused: dict[int, str] | None = None,
    flagged: list | None = None,
    glossary=None,
    **target,
) -> list[str]:
    """Whole texts through an offline translator along the service's text pipeline
    (service/pipeline: cut, protect, decode, restore, verify, join), every segment of every text in
    one engine group (`offline_engine`): a text is cut into segments (sentences; one too long for
    the model is cut; nothing to translate: kept), plain-text segments found in `memory` are answered
    from it, protected spans, inline markup pairs and the verifier's repairs are as a served call
    makes them, and each text is put back with its own separators. `target`: the calls'
    target_language, source_language and register (DecodingOptions' fields); `glossary`: a
    `glossary.Glossary` applied as a served call applies it. Greedy decoding of a
    segment of one or two pieces, or in a register asked for, is a beam of 4 (`options.for_segment`).
    A blank text comes back as it is.

    `untranslated`, when given, gets (text index, segment source) of each segment whose translation
    had nothing in it (it keeps its source, `Plan.finished`); `flagged` (text index, segment source,
    the checks it still fails) of each segment the verifier flagged (its translation is used all the
    same, as the server answers it).

    A text the text layer refuses (over `limits`, a control character: `text.TextError`) raises,
    unless `refused` is given: then it maps each refused text's index to the reason (its entries
    on entry are refused already, with no look at the text) and the text comes back as it is."""
    import asyncio

    from .engine.request import FinishReason
    from .options import DecodingOptions
    from .service.pipeline import translate_all

    engine = offline_engine(translator, beam, batch_size, memory or {}, limits)
    skipped = dict(refused or {})
    blank = {t for t, text in enumerate(texts) if t not in skipped and not text.strip()}
    skipped.update((t, "") for t in blank)
    options = DecodingOptions(beam_size=beam, **target)
    events = asyncio.run(translate_all(engine, texts, options, "offline", skipped, format, glossary))
    for t in sorted(set(skipped) - blank):
        if refused is None:
            raise TextError(skipped[t])
        refused[t] = skipped[t]
    for t, event in enumerate(events):
        for segment in event.segments if event is not None else []:
            if segment.reason is FinishReason.UNTRANSLATED:  # kept as its source: not flagged
                if untranslated is not None:
                    untranslated.append((t, segment.source))
            elif segment.failed_checks and flagged is not None:
                flagged.append((t, segment.source, segment.failed_checks))
    return [event.text if event is not None else text for event, text in zip(events, texts, strict=True)]
