"""The engine part of `traductor bench`: which model runs (random weights of a shape, exported
by the exporter, or a bundle from `traductor export`) and the timed runs of the engine on it.

With the anchors (`--anchors`), the random weights are the anchors' own random Marian
(benchmarks/make_marian.py), imported by the exporter, and the sources are theirs
(benchmarks/common.py: source_ids), so every engine of the table runs the same weights and tokens.

The work (identical for every model and engine): sources of SOURCE_LENGTH random token ids,
exactly NEW_TOKENS new tokens each (min_new_tokens = max_new_tokens, so EOS cannot end a sentence
early), greedy. Output tokens/s = batch * NEW_TOKENS / wall time of the whole batch (encoder
included); the median of `runs` timed runs after one warm-up. A user's bundle is only read.
This module knows nothing of the service, the anchors or the report.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from ..errors import BundleError, CommandError
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from ..packaged import CHECKPOINTS_DIR, DEFAULT_MODEL

SOURCE_LENGTH = 24
NEW_TOKENS = 32
# fp32, then the quantizations of `traductor export --quantize` (traductor_export/quantize.py)
PRECISIONS = ("fp32", "int8")
DEFAULT_TOKENIZER = CHECKPOINTS_DIR / DEFAULT_MODEL / TOKENIZER_FILE
ANCHOR_SEED = 1234  # benchmarks/common.py: DEFAULT_SEED, the seed of the anchors' weights and sources


def parse_shape(text: str) -> tuple[int, int, int, int, int]:
    try:
        d, layers, heads, d_ff, vocab = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"--shape must be d_model,layers,heads,d_ff,vocab (five integers), got {text!r}") from None
    if d % heads or min(d, layers, heads, d_ff) < 1 or vocab < 16:
        raise ValueError(f"--shape {text}: d_model must be divisible by heads, sizes positive, vocab >= 16")
    return d, layers, heads, d_ff, vocab


def sources(vocab: int, batch: int, seed: int = 0) -> list[list[int]]:
    """`batch` sources of SOURCE_LENGTH ids: random non-special ids, then EOS (id 3)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(4, vocab, SOURCE_LENGTH - 1).tolist() + [3] for _ in range(batch)]


def anchor_sources(model, batch: int) -> list[list[int]]:
    """The anchors' sources (benchmarks/common.py: source_ids) for a model in Marian's id layout
    (EOS 0, UNK 1, PAD last): ids in [2, PAD) from a generator seeded by (seed, batch), then EOS."""
    rng = np.random.default_rng([ANCHOR_SEED, batch])
    ids = rng.integers(2, model.pad_id, size=(batch, SOURCE_LENGTH - 1), dtype=np.int64)
    return [row + [model.eos_id] for row in ids.tolist()]


def is_marian_layout(model) -> bool:
    return model.eos_id == 0 and model.pad_id == model.vocab_size - 1 == model.bos_id


def make_bundle(shape, quantize: str | None, out: Path, hf_dir: Path | None = None) -> Path:
    """Random weights (seed 0) of `shape`, or those of a saved transformers model (`hf_dir`: the
    anchors' Marian), exported into `out` at `quantize` (None: fp32) without a tokenizer: built by
    the exporter (traductor_export/bench_bundle.py), reached through its entry point; without
    the exporter installed, a MissingDependency naming what to install."""
    from ..plugins import exporter

    return exporter("bench_bundle")(shape, quantize, out, hf_dir)


def run_engine(bundle_dir: Path, batches: list[int], runs: int, threads: int) -> dict[str, float]:
    from traductor.engine.bundle import load_bundle
    from traductor.engine.runner import ModelRunner

    bundle = load_bundle(bundle_dir, verify=False, tokenizer=False)
    return time_runner(ModelRunner(bundle, threads=threads, max_rows=max(batches)), batches, runs)


def time_runner(runner, batches: list[int], runs: int, sources_for=None) -> dict[str, float]:
    """Output tokens/s of a runner (ONNX Runtime's, or PyTorch's for `bench --device`) through the
    serving scheduler at each batch size: {"1": tok/s, ...}. `sources_for(batch)` gives a batch's
    sources (default: the bench's random ids, the anchors' for a Marian layout)."""
    from traductor.engine.request import FinishReason
    from traductor.engine.scheduler import Scheduler
    from traductor.engine.translator import drive
    from traductor.options import DecodingOptions

    model = runner.model
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    results = {}
    for batch in batches:
        if sources_for is not None:
            srcs = sources_for(batch)
        else:
            srcs = anchor_sources(model, batch) if is_marian_layout(model) else sources(model.vocab_size, batch)

        # One scheduler for every run of a batch size, as a server keeps one: its cache's memory
        # is allocated in the warm-up and kept (engine/cache.py).
        scheduler = Scheduler(runner, None, max_rows=batch, max_queue=batch)

        def once(batch: int = batch, scheduler: Scheduler = scheduler, srcs: list[list[int]] = srcs) -> float:
            t0 = time.perf_counter()
            done = drive(scheduler, [(s, [], options) for s in srcs])
            elapsed = time.perf_counter() - t0
            # 32 decoder steps a sentence: 32 tokens, or 31 and the EOS an imported Marian
            # forces at its length limit (generation.forced_eos_at_limit)
            if any(len(e.token_ids) + (e.reason is FinishReason.EOS) != NEW_TOKENS for e in done):
                raise RuntimeError(f"the engine did not take exactly {NEW_TOKENS} steps per sentence")
            return elapsed

        once()  # warm-up
        results[str(batch)] = round(batch * NEW_TOKENS / statistics.median(once() for _ in range(runs)), 1)
    return results


def open_bundle(name: str):
    """--bundle: a directory from `traductor export`, or `default` (the packaged default model),
    checked whole (config, graphs' checksums, tokenizer) before anything runs; only ever read."""
    from ..engine.bundle import default_bundle, load_bundle

    try:
        bundle = load_bundle(default_bundle() if name == "default" else Path(name))
    except BundleError as e:
        raise BundleError(f"--bundle: {e}") from e
    if bundle.max_len < max(SOURCE_LENGTH, NEW_TOKENS + 1):
        raise CommandError(
            f"--bundle {bundle.path}: its max_len {bundle.max_len} is too short for the bench's work "
            f"({SOURCE_LENGTH} source tokens, {NEW_TOKENS} new tokens)"
        )
    return bundle


def bundle_precision(bundle) -> str:
    """The precision a bundle runs at, from its config.json: fp32 unless it was quantized."""
    return "fp32" if bundle.config.quantization == "none" else bundle.config.quantization
