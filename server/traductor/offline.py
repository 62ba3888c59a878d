"""Translation without a server, for `traductor translate` and `traductor evaluate`: the engine
a command line asks for (`load_translator`), the bundle's translation memory (`bundle_memory`),
and whole texts through it as the service does them (`translate_texts`: cut, decode, verify, join;
the server's stages without its metrics, glossaries or inline markup pairs).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import CommandError, require_torch
from .text import TextError, TextLimits

# `evaluate` scores a corpus as it is: no text is refused for its size.
UNLIMITED = TextLimits(max_chars=sys.maxsize, max_segments=sys.maxsize)


def load_translator(args):
    """The engine that `translate` and `evaluate` use: ONNX bundle (default), the bundle's model in
    PyTorch on a device (--device), or the PyTorch reference on a checkpoint (--engine pytorch)."""
    if args.engine == "pytorch" and args.device:
        raise CommandError("--device runs a bundle's model, --engine pytorch the reference on a checkpoint: pick one")
    if args.engine == "pytorch":
        require_torch("the PyTorch engine (--engine pytorch)")
        from .model.translator import TorchTranslator

        return TorchTranslator.load(args.model)
    from .engine.bundle import packaged_bundle
    from .engine.translator import OnnxTranslator

    source, target = getattr(args, "source", None) or "", getattr(args, "to", None) or ""
    if args.model and (source or target):
        raise CommandError("--model and --from/--to are exclusive: --from/--to pick among the packaged models")
    if args.weights and not args.device:
        raise CommandError("--weights are what --device runs: give --device too")
    if args.device:  # the bundle's model in PyTorch (engine/torch_weights.py), checked before anything loads
        from .engine import torch_weights
        from .engine.bundle import load_bundle

        torch_weights.check_device(args.device, args.dtype)
        bundle = load_bundle(Path(args.model) if args.model else packaged_bundle(source, target))
        runner = torch_weights.torch_runner(bundle, args.device, args.dtype, args.weights or "", threads=args.threads)
        return OnnxTranslator(bundle, max_rows=max(args.batch_size, args.beam), runner=runner)
    bundle = Path(args.model) if args.model else packaged_bundle(source, target)
    return OnnxTranslator.load(bundle, threads=args.threads)


def bundle_memory(translator, use: bool) -> dict[str, str]:
    """The bundle's translation memory when `use` (the PyTorch engine has no bundle: none)."""
    bundle = getattr(translator, "bundle", None)
    return bundle.memory() if use and bundle is not None else {}


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
    **target,
) -> list[str]:
    """Whole texts through an offline translator, as the service does them: each text is cut into
    segments by the text layer (sentences; one too long for the model is cut; nothing to translate:
    kept), plain-text segments found in `memory` are answered from it, the other segments of all
    texts are translated in one call (rows of the same batches), and each text is put back with
    its own separators. `target` is a multilingual model's target_language (ONNX engine). A
    segment whose translation has nothing in it keeps its source (`Plan.finished`);
    `untranslated`, when given, gets (text index, segment) of each.

    Every segment the model translated is checked against its source by the verifier of the
    serving path (`text/verify.py`, as `service/pipeline/verify.py` runs it): its certain repairs are
    made, and `flagged`, when given, gets (text index, segment, the checks it still fails) of each
    segment that failed one (its translation is used all the same, as the server answers it).

    A text the text layer refuses (over `limits`, a control character: `text.TextError`) raises,
    unless `refused` is given: then it maps each refused text's index to the reason (its entries
    on entry are refused already, with no look at the text) and the text comes back as it is.
    Greedy decoding of a segment of one or two pieces, or in a register asked for, is a beam of 4
    (`options.for_segment`)."""
    from .languages import known_base
    from .options import DecodingOptions, Limits, for_segment
    from .text import plan, verify

    bundle = getattr(translator, "bundle", None)  # ONNX: the bundle's length; PyTorch: the model's
    limit = bundle.max_len if bundle is not None else translator.model.cfg.max_len
    too_long = lambda s: len(translator.tokenizer.encode(s)[0]) > limit  # noqa: E731
    language = translator.source_language
    plans = {}
    for t, text in enumerate(texts):
        if refused is not None and t in refused:
            continue
        try:
            plans[t] = plan(text, format, too_long=too_long, limits=limits, language=language)
        except TextError as error:
            if refused is None:
                raise
            refused[t] = str(error)
    memory = memory if memory and format == "text" else {}
    segments = {t: [s.text for s in p.segments] for t, p in plans.items()}
    flat = [s for group in segments.values() for s in group if s not in memory]
    done = {}  # segment -> its translation; greedy is a beam of 4 for a short one, as in the service
    languages = target.get("target_language"), target.get("source_language"), target.get("register", "")
    tokens = lambda s: len(translator.tokenizer.encode(s, *languages)[0])  # noqa: E731
    beams = {
        s: for_segment(DecodingOptions(beam_size=beam, register=languages[2]), tokens(s), Limits()).beam_size
        for s in flat
    }
    for size in sorted(set(beams.values())):
        group = [s for s in flat if beams[s] == size]
        done.update(zip(group, translator.translate(group, beam_size=size, batch_size=batch_size, **target)))
    language = known_base(target.get("target_language") or translator.target)
    verdicts = {s: verify.verify(s, out, language) for s, out in done.items()}
    outs = {t: [memory[s] if s in memory else verdicts[s].text for s in group] for t, group in segments.items()}
    empty = {t: p.untranslated(outs[t]) for t, p in plans.items()}  # kept as their source: not flagged
    if untranslated is not None:
        untranslated.extend((t, segments[t][k]) for t in plans for k in empty[t])
    if flagged is not None:
        flagged.extend(
            (t, s, verdicts[s].failed)
            for t, group in segments.items()
            for k, s in enumerate(group)
            if s in verdicts and verdicts[s].failed and k not in empty[t]
        )
    return [plans[t].assemble(outs[t]) if t in plans else text for t, text in enumerate(texts)]
