"""`traductor translate` and `traductor evaluate`: a model on stdin's lines or on a TSV, offline
(offline.py), along the service's text pipeline (cut, protect, decode, restore, verify, join).

`translate` takes each stdin line as a text and prints one line per line, in order. A line it
cannot translate (not valid UTF-8, a control character other than tab, over the server's input
limits: `--max-input-chars`, `--max-segments`, whose defaults are `traductor serve`'s) is printed
as its source, named on stderr with its number and the problem, and makes the exit status 1;
the other lines are translated all the same.

Every translated sentence is checked against its source by the server's verifier (text/verify.py):
what it repairs is printed repaired; a sentence that still fails a check is printed all the same
(as the server answers it, with its failed checks) and named on stderr with its line number and
the checks, for review. That alone does not change the exit status.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from traductor_client._cliargs import FORMALITY_HELP, formality_value
from traductor_client.lines import read_lines, write_line

from .engine.memory import find
from .errors import CommandError
from .offline import Pivot, bundle_memory, load_translator, translate_texts
from .options import FORMALITIES, register_of
from .service.serve_cli import HELP as SERVE_HELP
from .service.settings import Settings
from .text import TextLimits

PROG = "traductor translate"


def cmd_translate(args) -> int:
    lines = list(read_lines(sys.stdin))  # each line is a text: one output line per input line
    translator = load_translator(args)
    # --device decodes every line with the model, as --engine pytorch does (comparable line for line)
    memory = bundle_memory(translator, not args.no_memory and not args.device)
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
    register = register_of(args.formality or "", translator.tokenizer.registers)  # DeepL's values
    if register:  # a register the model was trained with (model/controls.py); memory entries have none
        target["register"] = register
        memory = {}
    limits = TextLimits(max_chars=args.max_input_chars, max_segments=args.max_segments)
    refused = {k: line.problem for k, line in enumerate(lines) if line.problem}
    kept: list = []
    flagged: list = []
    texts = [line.text for line in lines]
    outs = translate_texts(
        translator, texts, args.beam, args.batch_size, args.format, memory, kept, limits, refused, flagged, **target
    )
    for out in outs:
        write_line(out)
    for index, segment in kept:  # never silently: the line holds its source there
        print(f"{PROG}: line {index + 1}: no translation came for {segment!r}; its source is kept", file=sys.stderr)
    for index, segment, checks in flagged:  # printed all the same, as the server answers it: to review
        failed = ", ".join(checks)
        print(f"{PROG}: line {index + 1}: {segment!r} failed the checks {failed}; review it", file=sys.stderr)
    for index in sorted(refused):
        print(f"{PROG}: line {index + 1}: {refused[index]}; printed as it was", file=sys.stderr)
    if refused:
        print(f"{PROG}: {len(refused)} of {len(lines)} lines not translated", file=sys.stderr)
    return 1 if refused else 0


def cmd_evaluate(args) -> None:
    """Scores as the service would give them: each source is a text, cut into sentences and put
    back (--no-segment: the whole source as one model input), per kind of program when the TSV
    says, and exact matches on the common messages with --common."""
    from .training.corpus import load_split
    from .training.evaluate import common_match, score_by_kind

    translator = load_translator(args)
    if args.no_segment and isinstance(translator, Pivot):
        raise CommandError("--no-segment decodes with one model: a pair through English needs the text pipeline")
    pairs = load_split(Path(args.corpus))
    if args.limit:
        pairs = pairs[: args.limit]

    memory = bundle_memory(translator, args.memory)
    refused: dict[int, str] = {}  # a source the text layer refuses (a control character) is scored as itself

    def run(sources: list[str]) -> list[str]:
        if args.no_segment:
            found = [find(memory, s, translator.target) for s in sources]
            todo = [s for s, f in zip(sources, found) if f is None]
            done = iter(translator.translate(todo, beam_size=args.beam, batch_size=args.batch_size) if todo else [])
            return [f if f is not None else next(done) for f in found]
        return translate_texts(translator, sources, args.beam, args.batch_size, memory=memory, refused=refused)

    hyps = run([p.source for p in pairs])
    if args.hypotheses:
        Path(args.hypotheses).write_text("".join(h + "\n" for h in hyps))
    sources, refs, kinds = [p.source for p in pairs], [p.target for p in pairs], [p.kind for p in pairs]
    report = {"corpus": args.corpus, "engine": args.engine, "beam": args.beam, "segment": not args.no_segment}
    if isinstance(translator, Pivot):  # the two models, into English and out of it
        report["through_english"] = [translator.first.bundle.path.name, translator.second.bundle.path.name]
    if args.device:  # the bundle's model in PyTorch on this device, not its graphs
        report["device"] = args.device
    report["memory_entries"] = len(memory)  # 0: model-only scores (the default)
    report["refused_sources"] = len(refused)  # kept as they are (text.TextError), counted here
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
    p.add_argument(
        "--beam",
        type=_positive,
        default=Settings.beam_size,
        help=f"beam size (1: greedy); default {Settings.beam_size}, as traductor serve's --beam-size",
    )
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


def _add_pair_args(p) -> None:
    p.add_argument("--to", metavar="LANG", help="target language: the packaged model that translates into it")
    p.add_argument(
        "--from",
        dest="source",
        metavar="LANG",
        help="source language (with --to: among the packaged models; a pair none translates goes through English)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number expected, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


TRANSLATE_HELP = """\
Each line of stdin is a text (cut into sentences, translated, put back); one line out per line,
in order. A line that cannot be translated (not valid UTF-8, a control character other than tab,
over --max-input-chars or --max-segments) is printed as it was read and named on stderr with its
line number and the problem; the other lines are translated, and the exit status is 1.
Each translated sentence goes through the server's checks (placeholders, spans, special spaces,
markup, numbers, punctuation...): certain repairs are made, and a sentence that still fails one is
printed all the same and named on stderr with its line number and the failed checks."""


def register(sub) -> None:
    """The `evaluate` and `translate` subcommands."""
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
    _add_pair_args(p)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("translate", help="translate stdin, one line per translation", description=TRANSLATE_HELP)
    _add_engine_args(p)
    p.add_argument("--format", choices=["text", "html"], default="text", help="how each line is read")
    _add_pair_args(p)
    p.add_argument("--no-memory", action="store_true", help="do not use the bundle's translation memory")
    p.add_argument(
        "--target-language", help="a multilingual model's target (NLLB: fra_Latn; multi-target OPUS-MT: fra)"
    )
    p.add_argument("--source-language", help="a many-to-many model's source (NLLB, M2M100: deu_Latn, de)")
    p.add_argument(
        "--formality",
        type=formality_value,
        choices=FORMALITIES,
        help=FORMALITY_HELP + "; more/less need a model trained with register tags",
    )
    for name in ("max_input_chars", "max_segments"):  # the server's limits, with its defaults
        default = getattr(Settings, name)
        p.add_argument(
            "--" + name.replace("_", "-"),
            type=_positive,
            default=default,
            metavar="N",
            help=f"{SERVE_HELP[name]}, as by traductor serve (default {default}); such a line is printed as it was",
        )
    p.set_defaults(func=cmd_translate)
