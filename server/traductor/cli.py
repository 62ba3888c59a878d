"""The `traductor` command. Each subcommand is a small function; heavy imports happen inside
them so that `traductor serve` never imports torch and `--help` is instant.

    corpus     Debian packages' gettext catalogs -> train/dev/test TSV (training/corpus_cli.py)
    train      corpus -> checkpoint (model + tokenizer)
    average    training states -> one checkpoint of their mean weights (training/average.py)
    evaluate   checkpoint/bundle + TSV -> BLEU, chrF, placeholder rate (JSON)
    translate  stdin -> stdout, one translation per line (each line cut into sentences and put back)
    export     checkpoint -> ONNX bundle (encoder, decoder step, tokenizer, config): registered by
               the traductor-export distribution (export/), as is `import` (plugins.py)
    serve      bundle -> gRPC service with Prometheus metrics
    bench      engine throughput against other engines
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .errors import CommandError, MissingDependency, TraductorError, require_torch
from .model.controls import REGISTERS


def cmd_train(args) -> None:
    from .training.config import TrainConfig

    require_torch("train")
    from .training.train import train

    cfg = TrainConfig.from_flat({f.name: getattr(args, f.name) for f in TrainConfig.flat_fields()})
    print(json.dumps(train(Path(args.corpus), Path(args.out), cfg, resume=not args.restart), indent=2))


def _read_lines(stream) -> list[str]:
    return [line.rstrip("\n") for line in stream]


def _translator(args):
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


def _memory(translator, use: bool) -> dict[str, str]:
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
    **target,
) -> list[str]:
    """Whole texts through an offline translator, as the service does them: each text is cut into
    segments by the text layer (sentences; one too long for the model is cut; nothing to translate:
    kept), plain-text segments found in `memory` are answered from it, the other segments of all
    texts are translated in one call (rows of the same batches), and each text is put back with
    its own separators. No text-level limits: this is not a server. `target` is a multilingual
    model's target_language (ONNX engine). A segment whose translation has nothing in it keeps
    its source (`Plan.finished`); `untranslated`, when given, gets (text index, segment) of each.
    Greedy decoding of a segment of one or two pieces, or in a register asked for, is a beam of 4
    (`options.for_segment`)."""
    from .options import DecodingOptions, Limits, for_segment
    from .text import TextLimits, plan

    bundle = getattr(translator, "bundle", None)  # ONNX: the bundle's length; PyTorch: the model's
    limit = bundle.max_len if bundle is not None else translator.model.cfg.max_len
    unlimited = TextLimits(max_chars=sys.maxsize, max_segments=sys.maxsize)
    too_long = lambda s: len(translator.tokenizer.encode(s)[0]) > limit  # noqa: E731
    language = translator.source_language
    plans = [plan(t, format, too_long=too_long, limits=unlimited, language=language) for t in texts]
    memory = memory if memory and format == "text" else {}
    segments = [[s.text for s in p.segments] for p in plans]
    flat = [s for group in segments for s in group if s not in memory]
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
    outs = [[memory[s] if s in memory else done[s] for s in group] for group in segments]
    if untranslated is not None:
        untranslated.extend((t, segments[t][k]) for t, p in enumerate(plans) for k in p.untranslated(outs[t]))
    return [p.assemble(out) for p, out in zip(plans, outs)]


def cmd_translate(args) -> None:
    texts = _read_lines(sys.stdin)  # each line is a text: one output line per input line
    translator = _translator(args)
    # --device decodes every line with the model, as --engine pytorch does (comparable line for line)
    memory = _memory(translator, not args.no_memory and not args.device)
    languages = translator.tokenizer.languages  # a multilingual model's codes (none: one target)
    if args.target_language and (not languages or translator.tokenizer.own_language(args.target_language) is None):
        shown = sorted(translator.tokenizer.codes.shown(c) for c in languages) if languages else []
        known = ", ".join(shown) or "none: it has one target language"
        raise CommandError(f"--target-language {args.target_language!r} is not one of the model's ({known})")
    target = {"target_language": args.target_language} if args.target_language else {}
    sources = translator.tokenizer.source_languages  # a many-to-many model's (NLLB): one is picked
    if args.source_language:
        if len(sources) < 2 or translator.tokenizer.own_language(args.source_language) not in sources:
            raise CommandError(f"--source-language {args.source_language!r} is not one of the model's sources")
        target["source_language"] = args.source_language
    if args.formality:  # a register the model was trained with (model/controls.py); memory entries have none
        target["register"] = translator.tokenizer.check_register(args.formality)
        memory = {}
    kept: list = []
    lines = translate_texts(translator, texts, args.beam, args.batch_size, args.format, memory, kept, **target)
    for line in lines:
        print(line, flush=False)
    for index, segment in kept:  # never silently: the line holds its source there
        print(
            f"traductor translate: line {index + 1}: no translation came for {segment!r}; its source is kept",
            file=sys.stderr,
        )


def cmd_evaluate(args) -> None:
    """Scores as the service would give them: each source is a text, cut into sentences and put
    back (--no-segment: the whole source as one model input), per kind of program when the TSV
    says, and exact matches on the common messages with --common."""
    from .training.corpus import load_split
    from .training.evaluate import common_match, score_by_kind

    translator = _translator(args)
    pairs = load_split(Path(args.corpus))
    if args.limit:
        pairs = pairs[: args.limit]

    memory = _memory(translator, args.memory)

    def run(sources: list[str]) -> list[str]:
        if args.no_segment:
            todo = [s for s in sources if s not in memory]
            done = iter(translator.translate(todo, beam_size=args.beam, batch_size=args.batch_size) if todo else [])
            return [memory[s] if s in memory else next(done) for s in sources]
        return translate_texts(translator, sources, args.beam, args.batch_size, memory=memory)

    hyps = run([p.source for p in pairs])
    if args.hypotheses:
        Path(args.hypotheses).write_text("".join(h + "\n" for h in hyps))
    sources, refs, kinds = [p.source for p in pairs], [p.target for p in pairs], [p.kind for p in pairs]
    report = {"corpus": args.corpus, "engine": args.engine, "beam": args.beam, "segment": not args.no_segment}
    if args.device:  # the bundle's model in PyTorch on this device, not its graphs
        report["device"] = args.device
    report["memory_entries"] = len(memory)  # 0: model-only scores (the default)
    report.update(score_by_kind(sources, hyps, refs, kinds))
    if args.common:
        common = load_split(Path(args.common))
        report["common"] = common_match(run([p.source for p in common]), [p.target for p in common])
    print(json.dumps(report, indent=2))


def _add_engine_args(p) -> None:
    p.add_argument(
        "--model", help="ONNX bundle (onnx engine) or checkpoint (pytorch engine); default: the bundled model"
    )
    p.add_argument("--engine", choices=["onnx", "pytorch"], default="onnx")
    p.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: all cores)")
    p.add_argument(
        "--device",
        help="run the bundle's model in PyTorch on this device (cpu, cuda, cuda:N) instead of ONNX Runtime "
        "(docs/gpu.md); translate: without the translation memory",
    )
    p.add_argument("--dtype", help="with --device cuda: fp16 (default), bf16 or fp32")
    p.add_argument(
        "--weights",
        help="with --device: the checkpoint or Hugging Face folder of the bundle's model (default: the bundle's "
        "weights/ folder, or a packaged model's checkpoint)",
    )


def build_parser() -> argparse.ArgumentParser:
    from .training import average, corpus_cli
    from .training.config import INIT_VOCABS, PRECISIONS, TrainConfig

    parser = argparse.ArgumentParser(
        prog="traductor", description="English->Spanish translation: train, export, serve."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    corpus_cli.register(sub)

    p = sub.add_parser("train", help="train a model on a corpus directory")
    p.add_argument("--corpus", required=True, help="directory made by `traductor corpus`")
    p.add_argument("--out", required=True, help="checkpoint directory (resumed if it holds a train_state.pt)")
    p.add_argument("--restart", action="store_true", help="ignore an existing train_state.pt")
    for f in TrainConfig.flat_fields():
        choices = {"precision": list(PRECISIONS), "init_vocab": list(INIT_VOCABS)}.get(f.name)
        p.add_argument(
            "--" + f.name.replace("_", "-"), type=type(f.default), default=f.default, dest=f.name, choices=choices
        )
    p.set_defaults(func=cmd_train)
    average.register(sub)

    p = sub.add_parser("evaluate", help="BLEU, chrF and placeholder rate on a TSV")
    p.add_argument("--corpus", required=True, help="source<TAB>target file, e.g. test.tsv")
    p.add_argument("--limit", type=int, default=0, help="first N pairs only")
    p.add_argument("--hypotheses", help="also write the translations to this file")
    p.add_argument("--common", help="common.tsv from `traductor corpus`: also report exact matches on it")
    p.add_argument("--no-segment", action="store_true", help="one model input per source (no sentence splitting)")
    p.add_argument(
        "--memory", action="store_true", help="answer sources found in the bundle's translation memory from it"
    )
    _add_engine_args(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser(
        "translate",
        help="translate stdin, one line per translation",
        description="Each line of stdin is a text (cut into sentences, translated, put back); one line out per line.",
    )
    _add_engine_args(p)
    p.add_argument("--format", choices=["text", "html"], default="text", help="how each line is read")
    p.add_argument("--to", metavar="LANG", help="target language: the packaged model that translates into it")
    p.add_argument(
        "--from", dest="source", metavar="LANG", help="source language (with --to: among the packaged models)"
    )
    p.add_argument("--no-memory", action="store_true", help="do not use the bundle's translation memory")
    p.add_argument(
        "--target-language", help="a multilingual model's target (NLLB: fra_Latn; multi-target OPUS-MT: fra)"
    )
    p.add_argument("--source-language", help="a many-to-many model's source (NLLB, M2M100: deu_Latn, de)")
    p.add_argument(
        "--formality",
        choices=sorted(REGISTERS),
        help="address the reader formally (Sie, vous, usted) or informally (du, tu, tú); default: the model's choice",
    )
    p.set_defaults(func=cmd_translate)

    _register_later_commands(sub)
    return parser


def _register_later_commands(sub) -> None:
    """Subcommands that live next to their subsystem: those other distributions register through
    the `traductor.commands` entry points (export, import: plugins.py), each in its place, or, when
    that distribution is absent, a stand-in that says in one line what to install; then this
    distribution's serve and bench, then any other registered command."""
    from . import plugins
    from .bench import command as bench_command
    from .service import serve_cli

    found = plugins.commands()
    for name, install in plugins.PROVIDED.items():
        register = found.pop(name, None)
        register(sub) if register is not None else _register_missing(sub, name, install)
    serve_cli.register(sub)
    bench_command.register(sub)
    for name in sorted(found):
        found[name](sub)


def _register_missing(sub, name: str, install: str) -> None:
    """`traductor NAME ...` without the distribution that provides NAME: any arguments, one line."""
    p = sub.add_parser(name, help=f"(not installed) {install}", add_help=False, prefix_chars="\0")
    p.add_argument("ignored", nargs="*")

    def missing(args) -> None:
        raise MissingDependency(install)

    p.set_defaults(func=missing)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for reports that record their command
    try:
        args.func(args)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at exit
    except (TraductorError, FileNotFoundError) as e:
        print(f"traductor {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `traductor translate | head`: the reader is gone, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141  # as a process ended by SIGPIPE
    return 0


if __name__ == "__main__":
    sys.exit(main())
