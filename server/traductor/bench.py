"""`traductor bench`: engine throughput on a random-weight model of a given shape, against the
engines users would pick instead, in the same run.

The work (identical for every engine): sources of 24 token ids, exactly 32 new tokens each
(min_new_tokens = max_new_tokens, so EOS cannot end a sentence early), greedy, batch sizes 1, 8
and 32, fp32 and int8. Output tokens/s = batch * 32 / wall time of the whole batch (encoder
included); the median of `runs` timed runs after one warm-up.

    traductor bench                                   traductor only, default shape 512,6,8,2048,32000
    traductor bench --anchors --out docs/bench        + CTranslate2, Optimum ORT, PyTorch generate
    traductor bench --shape 64,2,4,128,1000 --json    tiny, machine-readable (last line)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import bench_report
from .errors import CommandError

SOURCE_LENGTH = 24
DEFAULT_TOKENIZER = Path(__file__).resolve().parent / "default_model" / "checkpoint" / "tokenizer.model"
NEW_TOKENS = 32


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


def make_bundle(shape, quantize: str | None, out: Path) -> Path:
    """Random weights (seed 0) -> bundle (graphs + config; no tokenizer: the bench feeds ids)."""
    import torch

    from traductor.model.config import ModelConfig
    from traductor.model.transformer import Transformer
    from traductor_export.convert import build_graphs, bundle_config

    d, layers, heads, d_ff, vocab = shape
    torch.manual_seed(0)
    model = Transformer(
        ModelConfig(
            vocab_size=vocab,
            d_model=d,
            n_heads=heads,
            d_ff=d_ff,
            n_encoder_layers=layers,
            n_decoder_layers=layers,
            dropout=0.0,
            max_len=128,
        )
    ).eval()
    out.mkdir(parents=True, exist_ok=True)
    names = build_graphs(model, out, quantize, progress=lambda *_: None)
    config = bundle_config(model, out, names, quantize, "random", {"source": "en", "target": "es"})
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2) + "\n")
    return out


def run_engine(bundle_dir: Path, batches: list[int], runs: int, threads: int) -> dict[str, float]:
    from traductor.engine.bundle import load_bundle
    from traductor.engine.runner import ModelRunner
    from traductor.engine.scheduler import Scheduler
    from traductor.engine.translator import drive
    from traductor.options import DecodingOptions

    bundle = load_bundle(bundle_dir, verify=False, tokenizer=False)
    runner = ModelRunner(bundle, threads=threads, max_rows=max(batches))
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    results = {}
    for batch in batches:
        srcs = sources(bundle.vocab_size, batch)

        def once(batch: int = batch, srcs: list[list[int]] = srcs) -> float:
            scheduler = Scheduler(runner, None, max_rows=batch, max_queue=batch)
            t0 = time.perf_counter()
            done = drive(scheduler, [(s, [], options) for s in srcs])
            elapsed = time.perf_counter() - t0
            if sum(len(e.token_ids) for e in done) != batch * NEW_TOKENS:
                raise RuntimeError("the engine did not produce exactly 32 tokens per sentence")
            return elapsed

        once()  # warm-up
        results[str(batch)] = round(batch * NEW_TOKENS / statistics.median(once() for _ in range(runs)), 1)
    return results


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


def run_service(bundle_dir: Path, levels: list[int], duration: float, threads: int, progress=print) -> dict:
    """The load generator against `traductor serve` on the same bundle: streams, exactly 32 new
    tokens each, one closed-loop level per concurrency. Returns the load generator's report."""
    import shutil
    import socket

    # The server needs a tokenizer to take text; any will do (ids it does not know are skipped
    # when the random model's output is turned back into text): the shipped model's.
    shutil.copy(DEFAULT_TOKENIZER, bundle_dir / "tokenizer.model")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    flags = f"--host 127.0.0.1 --port {port} --metrics-port 0 --threads {threads} --max-active-sequences {max(levels)} "
    flags += "--max-input-tokens 128 --log-level WARNING"  # (paths stay whole list items: they may hold spaces)
    server = subprocess.Popen(
        [sys.executable, "-m", "traductor.cli", "serve", "--model", str(bundle_dir), *flags.split()]
    )
    try:
        _wait_serving(f"127.0.0.1:{port}", server)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "load.json"
            progress(f"service: loadtest at concurrency {levels}")
            load = f"loadtest --target 127.0.0.1:{port} --concurrency {','.join(map(str, levels))} "
            load += f"--duration {duration} --warmup 3 --stream-fraction 1 --min-new-tokens {NEW_TOKENS} "
            load += f"--max-new-tokens {NEW_TOKENS} --no-progress"
            cmd = [sys.executable, "-m", "traductor_client.cli", *load.split(), "--json-out", str(out)]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            return json.loads(out.read_text())
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait_serving(target: str, server: subprocess.Popen, timeout: float = 120) -> None:
    from traductor_client import TranslatorClient, TranslatorError

    deadline = time.monotonic() + timeout
    with TranslatorClient(target, timeout=2) as client:
        while True:
            try:
                if client.health() == "SERVING":
                    return
            except TranslatorError:  # not listening yet: that is what we are waiting for
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"traductor serve did not become SERVING (exit code {server.poll()})")
            time.sleep(0.2)


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
) -> dict:
    ours: dict[str, dict] = {}
    service = None
    with tempfile.TemporaryDirectory(prefix="traductor-bench-") as tmp:
        for precision in precisions:
            progress(f"traductor {precision}: export")
            bundle = make_bundle(shape, "int8" if precision == "int8" else None, Path(tmp) / precision)
            progress(f"traductor {precision}: run batches {batches}")
            ours[precision] = run_engine(bundle, batches, runs, threads)
            if service_levels and precision == precisions[0]:
                service = {
                    "precision": precision,
                    **run_service(bundle, service_levels, service_seconds, threads, progress),
                }
    report = {
        "shape": list(shape),
        "source_length": SOURCE_LENGTH,
        "new_tokens": NEW_TOKENS,
        "runs": runs,
        "threads": threads,
        "machine": bench_report.machine(),
        "traductor": ours,
    }
    if service:
        report["service"] = service
    if anchors:
        progress("anchors: CTranslate2, Optimum ONNX Runtime, PyTorch generate")
        report["anchors"] = run_anchors(shape, batches, runs, threads, anchors)
    return report


# ---- the command ------------------------------------------------------------------------


def register(sub) -> None:
    p = sub.add_parser("bench", help="engine throughput (tokens/s) against CTranslate2, Optimum ORT, PyTorch")
    p.add_argument(
        "--shape", default="512,6,8,2048,32000", help="d_model,layers,heads,d_ff,vocab (default: opus-mt size)"
    )
    p.add_argument("--batches", default="1,8,32")
    p.add_argument("--runs", type=int, default=3, help="timed runs per point (median reported), after one warm-up")
    p.add_argument(
        "--threads", type=int, default=os.cpu_count() or 1, help="threads for every engine (default: all cores)"
    )
    p.add_argument("--precisions", default="fp32,int8")
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
        help="also load-test `traductor serve` on the same model at these concurrency levels (streams), e.g. 1,8,32,64",
    )
    p.add_argument("--service-seconds", type=float, default=20, help="measured seconds per service level")
    p.add_argument("--out", help="write bench.json, bench.md and bench.png into this directory")
    p.add_argument(
        "--json", action="store_true", help='print {"fp32": {"1": tok/s, ...}, "int8": {...}} as the last line'
    )
    p.set_defaults(func=run)


def run(args) -> None:
    try:
        shape = parse_shape(args.shape)
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError as e:
        raise CommandError(str(e)) from e
    precisions = [p for p in args.precisions.split(",") if p]
    if not set(precisions) <= {"fp32", "int8"} or not precisions:
        raise CommandError(f"--precisions takes fp32 and/or int8, got {args.precisions!r}")
    levels = [int(c) for c in args.service.split(",") if c]
    report = bench(
        shape,
        batches,
        args.runs,
        args.threads,
        precisions,
        args.anchors_dir.resolve() if args.anchors else None,
        levels,
        args.service_seconds,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    report["command"] = "traductor " + " ".join(args.argv)
    from .bench_report import service_table, table, write

    print(table(report))
    print(service_table(report))
    if args.out:
        write(report, Path(args.out))
    if args.json:
        print(json.dumps(report["traductor"]))
