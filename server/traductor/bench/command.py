"""The `traductor bench` command: its flags, checked into bench()'s arguments (a CommandError
names the flag at fault), the run, and what it prints and writes (report.py's tables, bench.json).

Owns the command line only: what is measured and in which order is measure.py's, the timed
work engine.py's and service.py's.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import CommandError
from .engine import DEFAULT_TOKENIZER, PRECISIONS, open_bundle, parse_shape
from .measure import bench

DEFAULT_SHAPE = "512,6,8,2048,32000"  # the opus-mt size
DEFAULT_PRECISIONS = "fp32,int8"


def register(sub) -> None:
    p = sub.add_parser("bench", help="engine throughput (tokens/s) against CTranslate2, Optimum ORT, PyTorch")
    p.add_argument("--shape", help=f"random weights of d_model,layers,heads,d_ff,vocab (default: {DEFAULT_SHAPE})")
    p.add_argument(
        "--bundle",
        help="run this bundle from `traductor export` (`default`: the packaged default model) instead of random "
        "weights, at the precision its config.json names; not with --shape, --precisions or --anchors",
    )
    p.add_argument("--batches", default="1,8,32")
    p.add_argument("--runs", type=int, default=3, help="timed runs per point (median reported), after one warm-up")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --anchors: this many rounds, each timing traductor and the anchors back to back for one "
        "batch size at a time, alternating which goes first; tables show medians, ratios are the median of "
        "each round's ratio",
    )
    p.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads for every engine (default: all cores)"
    )
    p.add_argument(
        "--precisions", help=f"of the random weights, some of {','.join(PRECISIONS)} (default: {DEFAULT_PRECISIONS})"
    )
    p.add_argument("--anchors", action="store_true", help="also run the anchor engines (needs benchmarks/setup.sh)")
    p.add_argument(
        "--anchors-dir",
        type=Path,
        default=Path(os.environ.get("TRADUCTOR_BENCHMARKS", "benchmarks")),
        help="the benchmarks/ folder of a source checkout (default: $TRADUCTOR_BENCHMARKS or ./benchmarks)",
    )
    p.add_argument(
        "--service",
        default="",
        help="also load-test `traductor serve` on the same model at these concurrency levels, unary calls "
        "then streams at each, e.g. 1,8,32,64",
    )
    p.add_argument("--service-seconds", type=float, default=20, help="measured seconds per service level and mode")
    p.add_argument(
        "--service-input",
        type=Path,
        help="texts for --service, one per line (default: the load generator's shipped English sentences)",
    )
    p.add_argument(
        "--service-engine",
        choices=("thread", "process"),
        default="process",
        help="where the served model runs: a process of its own (serve's default) or an engine thread in "
        "the server (serve --no-engine-process)",
    )
    p.add_argument(
        "--keep",
        type=Path,
        help="export the random weights' bundles into this directory and reuse them in later runs with the same "
        "shape (and --anchors or not) instead of exporting them again",
    )
    p.add_argument(
        "--device",
        help="time the PyTorch runner on this device (cuda, cuda:N, cpu) instead of ONNX Runtime: random weights "
        "of --shape, or --bundle's model with its weights (docs/gpu.md); not with --anchors, --service, --precisions",
    )
    p.add_argument("--dtype", help="with --device cuda: fp16 (default), bf16 or fp32")
    p.add_argument("--out", help="write bench.json, bench.md and bench.png into this directory")
    p.add_argument(
        "--json", action="store_true", help='print {"fp32": {"1": tok/s, ...}, "int8": {...}} as the last line'
    )
    p.set_defaults(func=run)


def _plan(args) -> dict:
    """The command line, checked, as bench()'s arguments; a CommandError names the flag at fault."""
    random_only = (("--shape", args.shape), ("--precisions", args.precisions), ("--anchors", args.anchors))
    given = [flag for flag, value in random_only if value]
    if args.bundle and given:
        raise CommandError(f"--bundle runs that bundle's own weights and precision: drop {', '.join(given)}")
    if args.service_input and not args.service:
        raise CommandError("--service-input is the text for --service: give --service LEVELS too")
    try:
        shape = None if args.bundle else parse_shape(args.shape or DEFAULT_SHAPE)
        batches = _positive_ints(args.batches, "--batches")
        levels = _positive_ints(args.service, "--service") if args.service else []
    except ValueError as e:
        raise CommandError(str(e)) from e
    precisions = [p for p in (args.precisions or DEFAULT_PRECISIONS).split(",") if p]
    if not set(precisions) <= set(PRECISIONS) or not precisions:
        raise CommandError(f"--precisions takes some of {', '.join(PRECISIONS)}, got {args.precisions!r}")
    if args.runs < 1 or args.rounds < 1 or args.threads < 1 or args.service_seconds <= 0:
        raise CommandError("--runs, --rounds and --threads must be at least 1, --service-seconds positive")
    if args.keep and args.bundle:
        raise CommandError("--keep holds the random weights' bundles: drop it with --bundle")
    if args.rounds > 1 and not args.anchors:
        raise CommandError("--rounds alternates traductor with the anchors: give --anchors too")
    if levels and shape and shape[4] < (vocab := _default_tokenizer_size()):
        raise CommandError(
            f"--service on random weights sends the default tokenizer's ids: --shape needs vocab >= {vocab}"
        )
    if args.service_input:
        from .service import load_inputs

        load_inputs(args.service_input)  # a missing or empty file fails now, not after the engine runs
    return dict(
        shape=shape,
        batches=batches,
        runs=args.runs,
        rounds=args.rounds,
        threads=args.threads,
        precisions=precisions,
        anchors=args.anchors_dir.resolve() if args.anchors else None,
        service_levels=levels,
        service_seconds=args.service_seconds,
        bundle=open_bundle(args.bundle) if args.bundle else None,
        service_input=args.service_input,
        service_engine=args.service_engine,
        keep=args.keep.resolve() if args.keep else None,
    )


def _default_tokenizer_size() -> int:
    from ..model.tokenizer import Tokenizer

    return Tokenizer(DEFAULT_TOKENIZER).vocab_size


def _positive_ints(text: str, flag: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise ValueError(f"{flag} takes comma-separated positive integers, got {text!r}")
    return values


def run(args) -> None:
    if args.device:
        return _run_device(args)
    report = bench(**_plan(args), progress=lambda msg: print(msg, file=sys.stderr, flush=True))
    report["command"] = "traductor " + " ".join(args.argv)
    from .report import ratio_table, service_table, table, write

    print(table(report))
    print(ratio_table(report))
    print(service_table(report))
    if args.out:
        write(report, Path(args.out))
    if args.json:
        print(json.dumps(report["traductor"]))


def _run_device(args) -> None:
    """`bench --device`: the PyTorch runner's tokens/s (bench/device.py), printed and in --out/device.json."""
    from . import device

    others = [flag for flag, value in (("--anchors", args.anchors), ("--service", args.service)) if value]
    others += ["--precisions"] if args.precisions else []
    if others:
        raise CommandError(f"--device times the PyTorch runner alone: drop {', '.join(others)}")
    if args.bundle and args.shape:
        raise CommandError("--bundle runs that bundle's own weights: drop --shape")
    try:
        shape = None if args.bundle else parse_shape(args.shape or DEFAULT_SHAPE)
        batches = _positive_ints(args.batches, "--batches")
    except ValueError as e:
        raise CommandError(str(e)) from e
    if args.runs < 1:
        raise CommandError("--runs must be at least 1")
    report = device.run(args, shape, batches)
    print(device.show(report))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "device.json").write_text(json.dumps(report, indent=2) + "\n")
