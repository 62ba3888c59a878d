"""The measurements of `traductor bench`, as one report: which models run (the given bundle, or
random weights exported at each precision), the rounds that time traductor's engine and the
anchors back to back (benchmarks/run_anchors.py in its own venvs), the service run, and the
report's dict with medians and per-round ratios (report.py's helpers).

Owns the order of the timings; does not know the command line, nor how a table is drawn
(command.py and report.py), nor how the engine is timed (engine.py) or the service (service.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import CommandError
from ..model.tokenizer import FILENAME as TOKENIZER_FILE
from .engine import (
    ANCHOR_SEED,
    DEFAULT_TOKENIZER,
    NEW_TOKENS,
    SOURCE_LENGTH,
    bundle_precision,
    make_bundle,
    run_engine,
)
from .report import machine, median_anchors, median_results, merge_anchors, ratios


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
    keep: Path | None = None,
) -> dict:
    """The whole run. `bundle` (an opened engine Bundle) replaces `shape` and `precisions`: the
    engine and the service then run that model at its own precision.

    With anchors, each round times one batch size at a time, traductor and the anchors back to
    back, alternating which goes first, so that a ratio compares engines timed a minute or so apart
    (this machine's speed drifts by tens of percent over a few minutes); `rounds` repeats that. The
    tables show the median of the rounds and report.ratio_table the median of the per-round ratios.
    `keep`: a directory where the random weights' bundles are exported once and found again by
    later runs (an NLLB-600M-sized export takes minutes and gigabytes), instead of a temporary one."""
    service = None
    timed: list[dict] = []  # per round: {"traductor": {...}, "anchors": {...}}
    with tempfile.TemporaryDirectory(prefix="traductor-bench-") as tmp:
        hf_dir = anchor_model(anchors, shape, progress) if anchors is not None and bundle is None else None
        models = list(_models(shape, precisions, bundle, Path(keep or tmp), progress, hf_dir))
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


def _models(shape, precisions: list[str], bundle, where: Path, progress, hf_dir: Path | None = None):
    """(precision, bundle directory) to run: the given bundle as it is, or random weights of
    `shape` (the anchors' Marian from `hf_dir`, when given) exported into a directory of `where`
    named by the weights, at each precision; one with a config.json (written last) is reused."""
    if bundle is not None:
        yield bundle_precision(bundle), bundle.path
        return
    weights = f"{'marian' if hf_dir is not None else 'random'}-{'-'.join(map(str, shape))}"
    for precision in precisions:
        out = where / weights / precision
        if (out / "config.json").is_file() and (out / TOKENIZER_FILE).is_file():
            progress(f"traductor {precision}: reuse {out}")
            yield precision, out
            continue
        progress(f"traductor {precision}: export")
        shutil.rmtree(out, ignore_errors=True)
        out = make_bundle(shape, None if precision == "fp32" else precision, out, hf_dir)
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
