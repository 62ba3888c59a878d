"""`traductor bench`: engine throughput of a model against the engines users would pick instead,
and the same model through `traductor serve`, unary and streams, in one run.

The model is random weights (seed 0) of a shape, exported at fp32 and int8 into a temporary
directory, or a bundle from `traductor export` (`--bundle DIR`; `--bundle default` is the
packaged default model), which is only read and runs at the precision its config.json names.
The engine's work and its timing are in engine.py (sources of 24 token ids, exactly 32 new
tokens each, batch sizes 1, 8 and 32); the anchors run the same work on random weights of the
same shape (benchmarks/run_anchors.py). `--service LEVELS` serves the model and loads it at each
concurrency level twice, unary calls then streams, exactly 32 new tokens per call, real
sentences encoded by the model's own tokenizer (service.py); report.py shows the two
side by side with their ratio.

    traductor bench                                   traductor only, default shape 512,6,8,2048,32000
    traductor bench --anchors --out docs/bench        + CTranslate2, Optimum ORT, PyTorch generate
    traductor bench --shape 64,2,4,128,1000 --json    tiny, machine-readable (last line)
    traductor bench --bundle default --service 1,8,32,64   the shipped model: engine, unary and streams
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import CommandError
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from .engine import (  # noqa: F401  (make_bundle, sources: also used by scripts/profile_step.py)
    ANCHOR_SEED,
    DEFAULT_TOKENIZER,
    NEW_TOKENS,
    PRECISIONS,
    SOURCE_LENGTH,
    bundle_precision,
    make_bundle,
    open_bundle,
    parse_shape,
    run_engine,
    sources,
)
from .report import machine, median_anchors, median_results, merge_anchors, ratios

DEFAULT_SHAPE = "512,6,8,2048,32000"  # the opus-mt size
DEFAULT_PRECISIONS = "fp32,int8"


def run_anchors(shape, batches: list[int], runs: int, threads: int, anchors_dir: Path) -> dict:
    """benchmarks/run_anchors.py of a source checkout (--anchors-dir), in its own venvs."""
    script = anchors_dir / "run_anchors.py"
    if not script.is_file():
        return {"error": f"{script} not found (pass --anchors-dir: the benchmarks/ folder of a source checkout)"}
    cmd = [
        sys.executable,
        str(script),
        "--shape",
        ",".join(map(str, shape)),
        "--batches",
        ",".join(map(str, batches)),
        "--runs",
        str(runs),
        "--threads",
        str(threads),
        "--json",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=anchors_dir.parent)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip().startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": f"run_anchors failed ({proc.returncode}): {proc.stderr.strip()[-500:]}"}
    return json.loads(lines[-1])


def bench(
    shape,
    batches: list[int],
    runs: int,
    threads: int,
    precisions: list[str],
    anchors: Path | None,
    service_levels: list[int] | None = None,
    service_seconds: float = 20,
    progress=print,
    bundle=None,
    service_input: Path | None = None,
    service_engine: str = "process",
    rounds: int = 1,
) -> dict:
    """The whole run. `bundle` (an opened engine Bundle) replaces `shape` and `precisions`: the
    engine and the service then run that model at its own precision.

    With anchors, each round times one batch size at a time, traductor and the anchors back to
    back, alternating which goes first, so that a ratio compares engines timed a minute or so apart
    (this machine's speed drifts by tens of percent over a few minutes); `rounds` repeats that. The
    tables show the median of the rounds and report.ratio_table the median of the per-round ratios."""
    service = None
    timed: list[dict] = []  # per round: {"traductor": {...}, "anchors": {...}}
    with tempfile.TemporaryDirectory(prefix="traductor-bench-") as tmp:
        hf_dir = anchor_model(anchors, shape, progress) if anchors is not None and bundle is None else None
        models = list(_models(shape, precisions, bundle, Path(tmp), progress, hf_dir))
        groups = [[b] for b in batches] if anchors else [batches]
        for r in range(rounds if anchors else 1):
            this: dict = {"traductor": {}, "anchors": {}} if anchors else {"traductor": {}}
            for g, group in enumerate(groups):
                for part in ("traductor", "anchors") if (r + g) % 2 == 0 else ("anchors", "traductor"):
                    if part == "anchors" and anchors:
                        progress(f"round {r + 1}: anchors (CTranslate2, Optimum, PyTorch): run batches {group}")
                        merge_anchors(this["anchors"], run_anchors(shape, group, runs, threads, anchors))
                    elif part == "traductor":
                        for precision, model_dir in models:
                            progress(f"round {r + 1}: traductor {precision}: run batches {group}")
                            this["traductor"].setdefault(precision, {}).update(
                                run_engine(model_dir, group, runs, threads)
                            )
            timed.append(this)
            if service_levels and service is None:
                precision, model_dir = models[0]
                levels, seconds = service_levels, service_seconds
                service = _service(
                    model_dir, precision, levels, seconds, threads, service_input, progress, service_engine
                )
    report = {
        **_subject(shape, bundle),
        "source_length": SOURCE_LENGTH,
        "new_tokens": NEW_TOKENS,
        "runs": runs,
        "rounds": len(timed),
        "threads": threads,
        "machine": machine(),
        "traductor": median_results([t["traductor"] for t in timed]),
    }
    if service:
        report["service"] = service
    if anchors:
        report["anchors"] = median_anchors([t["anchors"] for t in timed])
        report["ratios"] = ratios(timed)
        report["per_round"] = timed
    return report


def anchor_model(anchors_dir: Path, shape, progress) -> Path:
    """The anchors' random Marian of `shape` (benchmarks/make_marian.py builds it once, in
    work/anchors/ of the checkout; this interpreter has what it needs: torch and transformers)."""
    script = anchors_dir / "make_marian.py"
    if not script.is_file():
        raise CommandError(f"{script} not found (pass --anchors-dir: the benchmarks/ folder of a source checkout)")
    progress("anchors' random Marian: build or reuse (benchmarks/make_marian.py)")
    cmd = [sys.executable, str(script), "--shape", ",".join(map(str, shape)), "--seed", str(ANCHOR_SEED)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=anchors_dir.parent)
    if proc.returncode != 0:
        raise CommandError(f"make_marian.py failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return Path(json.loads(proc.stdout.strip().splitlines()[-1])["model_dir"])


def _models(shape, precisions: list[str], bundle, tmp: Path, progress, hf_dir: Path | None = None):
    """(precision, bundle directory) to run: the given bundle as it is, or random weights of
    `shape` (the anchors' Marian from `hf_dir`, when given) exported into `tmp` at each precision."""
    if bundle is not None:
        yield bundle_precision(bundle), bundle.path
        return
    for precision in precisions:
        progress(f"traductor {precision}: export")
        out = make_bundle(shape, None if precision == "fp32" else precision, tmp / precision, hf_dir)
        # The server needs a tokenizer to take text; any will do for random weights (ids it does
        # not know are skipped when their output becomes text): the shipped model's, copied into
        # the bench's own temporary directory.
        shutil.copy(DEFAULT_TOKENIZER, out / TOKENIZER_FILE)
        yield precision, out


def _service(model_dir: Path, precision: str, levels, seconds, threads, input_file, progress, engine) -> dict:
    from ..engine.bundle import read_config
    from .service import prepare_inputs, run_service

    with tempfile.TemporaryDirectory(prefix="traductor-bench-texts-") as tmp:
        max_len = read_config(model_dir).model.max_len
        texts, inputs = prepare_inputs(input_file, model_dir / TOKENIZER_FILE, max_len, Path(tmp))
        progress(f"service: traductor serve, unary and streams at concurrency {levels}")
        measured = run_service(model_dir, levels, seconds, threads, texts, progress, engine == "process")
    return {"precision": precision, "input": inputs, **measured}


def _subject(shape, bundle) -> dict:
    """What the report measured: random weights of a shape, or a bundle (path, name, size, precision)."""
    if bundle is None:
        return {"shape": list(shape)}
    m = bundle.model
    return {
        "bundle": {
            "path": str(bundle.path),
            "name": bundle.config.name,
            "precision": bundle_precision(bundle),
            "d_model": m.d_model,
            "layers": [m.n_encoder_layers, m.n_decoder_layers],
            "heads": m.n_heads,
            "d_ff": m.d_ff,
            "vocab": m.vocab_size,
        }
    }


# ---- the command ------------------------------------------------------------------------


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
