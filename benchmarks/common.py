"""Shared pieces of the benchmark anchors: the work definition, inputs, timing, output.

Every anchor script imports this module, whichever virtual environment it runs in,
so it depends on the standard library and numpy only.

The work definition is the same for every engine:

* a random-weight Transformer (original architecture: post-norm, sinusoidal
  positions, embeddings scaled by sqrt(d_model), one embedding matrix shared by the
  encoder, the decoder and the output projection, ReLU feed-forward) of shape
  ``d_model,layers,heads,d_ff,vocab`` (``layers`` encoder and ``layers`` decoder layers);
* a batch of source sentences of exactly ``SRC_LEN`` token ids, drawn from a fixed
  seed, avoiding the special ids, the last one being EOS;
* greedy decoding of exactly ``NEW_TOKENS`` new tokens per sentence;
* metric: output tokens per second = batch * NEW_TOKENS / wall time of the whole
  generate call (encoder included), median over the timed runs after one warm-up.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

#: Root of the repository (the parent of ``benchmarks/``).
REPO_ROOT = Path(__file__).resolve().parent.parent
#: Git-ignored folder holding the generated models (``work/`` is ignored).
WORK_DIR = REPO_ROOT / "work" / "anchors"
#: Git-ignored folder holding the anchors' virtual environments.
VENV_DIR = REPO_ROOT / "work" / "venvs"

DEFAULT_SHAPE = "512,6,8,2048,32000"  # the opus-mt size
DEFAULT_BATCHES = "1,8,32"
DEFAULT_SEED = 1234

SRC_LEN = 24  # source tokens per sentence, EOS included
NEW_TOKENS = 32  # generated tokens per sentence (min length = max length)

# Special ids, laid out as in Marian models converted to Transformers:
# EOS is 0, UNK is 1 and PAD (also the decoder start token) is the last id.
EOS_ID = 0
UNK_ID = 1


@dataclass(frozen=True)
class Shape:
    """Architecture of the benchmarked model."""

    d_model: int
    layers: int
    heads: int
    d_ff: int
    vocab: int

    @property
    def pad_id(self) -> int:
        """PAD id, which Marian also uses as the decoder start token."""
        return self.vocab - 1

    def as_list(self) -> list[int]:
        return [self.d_model, self.layers, self.heads, self.d_ff, self.vocab]

    def slug(self) -> str:
        return "-".join(str(v) for v in self.as_list())


def parse_shape(text: str) -> Shape:
    """Parse ``d_model,layers,heads,d_ff,vocab`` and check it is usable."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 5:
        raise argparse.ArgumentTypeError(f"shape must be d_model,layers,heads,d_ff,vocab, got {text!r}")
    try:
        shape = Shape(*(int(p) for p in parts))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"shape values must be integers: {text!r}") from exc
    if min(shape.as_list()) <= 0:
        raise argparse.ArgumentTypeError(f"shape values must be positive: {text!r}")
    if shape.d_model % shape.heads:
        raise argparse.ArgumentTypeError("d_model must be divisible by heads")
    if shape.vocab < 8:
        raise argparse.ArgumentTypeError("vocab must hold at least 8 tokens")
    return shape


def parse_batches(text: str) -> list[int]:
    """Parse a comma-separated list of positive batch sizes."""
    try:
        batches = [int(p) for p in text.split(",") if p.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"batches must be integers: {text!r}") from exc
    if not batches or min(batches) <= 0:
        raise argparse.ArgumentTypeError(f"batches must be positive: {text!r}")
    return batches


def add_common_args(parser: argparse.ArgumentParser, precisions: Sequence[str]) -> None:
    """Add the options that every anchor script accepts."""
    parser.add_argument(
        "--shape",
        type=parse_shape,
        default=parse_shape(DEFAULT_SHAPE),
        help=f"d_model,layers,heads,d_ff,vocab (default {DEFAULT_SHAPE})",
    )
    parser.add_argument(
        "--batches",
        type=parse_batches,
        default=parse_batches(DEFAULT_BATCHES),
        help=f"batch sizes (default {DEFAULT_BATCHES})",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs per batch size, after one warm-up (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs per batch size (default 1)")
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="CPU threads for the engine (default: all cores)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"seed of the model weights and the inputs (default {DEFAULT_SEED})",
    )
    parser.add_argument(
        "--precisions", default=",".join(precisions), help=f"comma-separated subset of {','.join(precisions)}"
    )
    parser.add_argument(
        "--model-dir",
        type=Path,
        default=None,
        help="saved random Marian model (default: work/anchors/marian-SHAPE-seedSEED, built on first use)",
    )


def selected_precisions(args: argparse.Namespace, supported: Sequence[str]) -> list[str]:
    """The precisions asked for, in the engine's order; unknown names are an error."""
    wanted = [p.strip() for p in args.precisions.split(",") if p.strip()]
    unknown = [p for p in wanted if p not in supported]
    if unknown:
        raise SystemExit(f"unsupported precision(s) {unknown}; this engine has {list(supported)}")
    return [p for p in supported if p in wanted]


def default_model_dir(shape: Shape, seed: int) -> Path:
    """Where ``make_marian.py`` saves the model for a shape and seed."""
    return WORK_DIR / f"marian-{shape.slug()}-seed{seed}"


def source_ids(batch: int, shape: Shape, seed: int) -> np.ndarray:
    """The source batch: ``batch`` rows of ``SRC_LEN`` int64 ids.

    Ids are drawn uniformly from the ordinary tokens (neither EOS, UNK nor PAD) with a
    generator seeded by ``seed`` and the batch size, so every engine sees exactly the
    same sentences for a given batch size. The last id of each row is EOS.
    """
    rng = np.random.default_rng([seed, batch])
    ids = rng.integers(2, shape.pad_id, size=(batch, SRC_LEN - 1), dtype=np.int64)
    eos = np.full((batch, 1), EOS_ID, dtype=np.int64)
    return np.concatenate([ids, eos], axis=1)


def token_string(index: int, shape: Shape) -> str:
    """Name of a token id in the vocabulary written for string-based engines."""
    if index == EOS_ID:
        return "</s>"
    if index == UNK_ID:
        return "<unk>"
    if index == shape.pad_id:
        return "<pad>"
    return f"tok{index}"


def token_id(token: str, shape: Shape) -> int:
    """Inverse of :func:`token_string`."""
    special = {"</s>": EOS_ID, "<unk>": UNK_ID, "<pad>": shape.pad_id}
    if token in special:
        return special[token]
    if token.startswith("tok"):
        return int(token[3:])
    raise ValueError(f"unknown token {token!r}")


def vocabulary(shape: Shape) -> list[str]:
    """All token strings, index = id."""
    return [token_string(i, shape) for i in range(shape.vocab)]


def log(message: str) -> None:
    """Progress goes to stderr: stdout is kept for the result line."""
    print(message, file=sys.stderr, flush=True)


def measure(generate: Callable[[], Sequence[Sequence[int]]], batch: int, runs: int, warmup: int = 1) -> dict:
    """Time ``generate`` (``warmup`` untimed calls, then ``runs`` timed ones), check its output.

    ``generate`` runs the whole generation for one batch and returns the new token
    ids of each sentence (decoder start token excluded). Every sentence must hold
    ``NEW_TOKENS`` ids, otherwise the engine did different work and the measure is
    refused. Returns output tokens per second (from the median wall time), the
    median, the times, and the generated ids of the first sentence.
    """
    if runs < 1:
        raise ValueError("runs must be at least 1")
    for _ in range(warmup):
        check_output(generate(), batch)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        output = generate()
        times.append(time.perf_counter() - start)
        check_output(output, batch)
    median = statistics.median(times)
    return {
        "tok_s": batch * NEW_TOKENS / median,
        "median_s": median,
        "times_s": times,
        "first_output": [int(t) for t in output[0]],
    }


def check_output(output: Sequence[Sequence[int]], batch: int) -> None:
    """Refuse an output that is not ``batch`` sentences of ``NEW_TOKENS`` ids."""
    counts = [len(row) for row in output]
    if len(counts) != batch or any(c != NEW_TOKENS for c in counts):
        raise RuntimeError(f"expected {batch} sentences of {NEW_TOKENS} new tokens, got lengths {counts}")


def versions(*packages: str) -> dict[str, str]:
    """Installed versions of the given distributions (``missing`` when absent)."""
    found = {"python": sys.version.split()[0]}
    for name in packages:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "missing"
    return found


def run_engine(
    engine: str,
    args: argparse.Namespace,
    precisions: Sequence[str],
    make_generate: Callable[[str, int], Callable[[], Sequence[int]]],
    package_versions: dict[str, str],
) -> dict:
    """Measure every (precision, batch) pair and build the anchor's result document.

    ``make_generate(precision, batch)`` returns a zero-argument callable running one
    generation (see :func:`measure`), or raises to mark that precision as skipped.
    A precision that fails is reported under ``skipped`` with the reason and left out
    of ``results``, so ``results`` only ever holds real measures.

    ``first_output`` keeps, per precision, the ids generated for the first sentence
    of the first batch size: same weights and same inputs give the same greedy
    output in fp32 whatever the engine, which ``run_anchors.py`` checks.
    """
    results: dict[str, dict[str, float]] = {}
    details: dict[str, dict[str, dict]] = {}
    skipped: dict[str, str] = {}
    first_output: dict[str, list[int]] = {}
    for precision in precisions:
        try:
            per_batch = {}
            per_batch_details = {}
            for batch in args.batches:
                log(f"[{engine}] {precision} batch {batch}: {args.warmup} warm-up + {args.runs} runs")
                measured = measure(make_generate(precision, batch), batch, args.runs, args.warmup)
                per_batch[str(batch)] = round(measured["tok_s"], 3)
                first_output.setdefault(precision, measured["first_output"])
                per_batch_details[str(batch)] = {
                    "median_s": round(measured["median_s"], 6),
                    "times_s": [round(t, 6) for t in measured["times_s"]],
                }
                log(f"[{engine}] {precision} batch {batch}: {measured['tok_s']:.1f} tok/s")
            results[precision] = per_batch
            details[precision] = per_batch_details
        except Exception as exc:  # one precision failing must not hide the others
            log(f"[{engine}] {precision} skipped: {exc!r}")
            skipped[precision] = f"{type(exc).__name__}: {exc}"
    doc = {
        "engine": engine,
        "results": results,
        "versions": package_versions,
        "threads": args.threads,
        "shape": args.shape.as_list(),
        "seed": args.seed,
        "runs": args.runs,
        "warmup": args.warmup,
        "src_len": SRC_LEN,
        "new_tokens": NEW_TOKENS,
        "details": details,
        "first_output": first_output,
    }
    if skipped:
        doc["skipped"] = skipped
    return doc


def emit(doc: dict) -> None:
    """Print the result document as the last stdout line."""
    sys.stdout.flush()
    print(json.dumps(doc, sort_keys=False), flush=True)
