"""Run every benchmark anchor, each in its own virtual environment, and merge the results.

Needs only the standard library and numpy: run it with the system Python 3.11+::

    bash benchmarks/setup.sh                      # once: creates work/venvs/{anchors,optimum}
    python3 benchmarks/run_anchors.py --shape 64,2,4,128,1000 --runs 1 --json

Steps:

1. build the random Marian model for the shape and seed (``make_marian.py`` in the
   anchors venv; skipped when already saved), so all engines load the same weights;
2. run ``anchor_pytorch.py``, ``anchor_ctranslate2.py`` (anchors venv) and
   ``anchor_optimum.py`` (optimum venv) one after the other, never concurrently, each
   as a subprocess with the same ``--shape --batches --runs --threads --seed``;
3. merge their result lines into ``{"pytorch": {...}, "ctranslate2": {...},
   "optimum": {...}}``. An engine whose venv is missing, which crashes, times out or
   prints no result is reported as ``{"error": "..."}``; the others are unaffected.

Each engine's fp32 greedy output for the first sentence is compared with the other
engines' (same weights + same inputs must give the same tokens); the outcome is
added to every engine's entry as ``fp32_output_matches``.

With ``--json`` the merged JSON is the last stdout line (a table goes to stderr);
without it, only the table is printed, on stdout.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402  (stdlib + numpy; numpy is on the system Python too)

HERE = Path(__file__).resolve().parent

#: engine -> (venv name, script)
ENGINES = {
    "pytorch": ("anchors", "anchor_pytorch.py"),
    "ctranslate2": ("anchors", "anchor_ctranslate2.py"),
    "optimum": ("optimum", "anchor_optimum.py"),
}


def venv_python(venvs_dir: Path, venv: str) -> Path:
    return venvs_dir / venv / "bin" / "python"


def child_env(threads: int) -> dict[str, str]:
    """Environment for the anchors: offline hub, thread pools sized like the engine."""
    env = dict(os.environ)
    env.update(
        {
            "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads),
            "TOKENIZERS_PARALLELISM": "false",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "PYTHONWARNINGS": "ignore",
        }
    )
    return env


def run_child(cmd: list[str], env: dict[str, str], timeout: float, label: str) -> dict:
    """Run one script; relay its stderr live; parse the JSON on its last stdout line.

    Returns the parsed document, or ``{"error": ...}`` describing what went wrong.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(common.REPO_ROOT)
        )
    except OSError as exc:
        return {"error": f"could not start {cmd[0]}: {exc}"}
    tail: collections.deque[str] = collections.deque(maxlen=30)

    def relay() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            tail.append(line.rstrip("\n"))
            print(f"  {label}| {line.rstrip()}", file=sys.stderr, flush=True)

    relay_thread = threading.Thread(target=relay, daemon=True)
    relay_thread.start()
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"timed out after {timeout:.0f} s"}
    relay_thread.join(timeout=5)
    elapsed = time.monotonic() - start

    doc = None
    lines = [line for line in stdout.splitlines() if line.strip()]
    if lines:
        try:
            doc = json.loads(lines[-1])
        except json.JSONDecodeError:
            doc = None
    if proc.returncode == 0 and isinstance(doc, dict):
        doc["wall_s"] = round(elapsed, 1)
        return doc
    reason = f"exit status {proc.returncode}"
    if isinstance(doc, dict) and doc.get("skipped"):
        reason += "; " + "; ".join(f"{k}: {v}" for k, v in doc["skipped"].items())
    elif tail:
        reason += ": " + " | ".join(list(tail)[-5:])
    error = {"error": reason}
    if isinstance(doc, dict):
        error["partial"] = doc
    return error


def compare_outputs(merged: dict) -> None:
    """Record, in each engine's entry, whether its fp32 greedy output matches the others'."""
    outputs = {
        name: doc["first_output"]["fp32"]
        for name, doc in merged.items()
        if isinstance(doc, dict) and "fp32" in doc.get("first_output", {})
    }
    for name, output in outputs.items():
        merged[name]["fp32_output_matches"] = {
            other: other_output == output for other, other_output in outputs.items() if other != name
        }


def table(merged: dict, batches: list[int]) -> str:
    """Human-readable summary: one row per engine and precision, tokens/s per batch."""
    header = f"{'engine':<12} {'precision':<9} " + " ".join(f"{'b=' + str(b):>10}" for b in batches)
    rows = [header, "-" * len(header)]
    for name, doc in merged.items():
        if "error" in doc:
            rows.append(f"{name:<12} ERROR     {doc['error'][:200]}")
            continue
        for precision, per_batch in doc.get("results", {}).items():
            cells = " ".join(f"{per_batch.get(str(b), float('nan')):>10.1f}" for b in batches)
            rows.append(f"{name:<12} {precision:<9} {cells}")
        for precision, reason in doc.get("skipped", {}).items():
            rows.append(f"{name:<12} {precision:<9} skipped: {reason[:160]}")
    rows.append("(output tokens/s, median of the timed runs)")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shape",
        default=common.DEFAULT_SHAPE,
        help=f"d_model,layers,heads,d_ff,vocab (default {common.DEFAULT_SHAPE})",
    )
    parser.add_argument("--batches", default=common.DEFAULT_BATCHES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per batch size")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=common.DEFAULT_SEED)
    parser.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated subset of {','.join(ENGINES)}")
    parser.add_argument(
        "--precisions", default=None, help="comma-separated subset of fp32,int8 (default: all each engine has)"
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed to each engine (default 3600)")
    parser.add_argument("--venvs-dir", type=Path, default=common.VENV_DIR)
    parser.add_argument(
        "--setup", action="store_true", help="run benchmarks/setup.sh first (creates/updates the venvs)"
    )
    parser.add_argument("--json", action="store_true", help="print the merged JSON as the last stdout line")
    parser.add_argument("--output", type=Path, default=None, help="also write the merged JSON here")
    args = parser.parse_args(argv)

    shape = common.parse_shape(args.shape)
    batches = common.parse_batches(args.batches)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s) {unknown}; known: {list(ENGINES)}")
    env = child_env(args.threads)

    if args.setup:
        needed = sorted({ENGINES[e][0] for e in engines} | {"anchors"})
        subprocess.run(["bash", str(HERE / "setup.sh"), *needed], check=False)

    merged: dict[str, dict] = {}
    # 1. The shared model, built once (anchors venv, else any venv that exists).
    model_dir = common.default_model_dir(shape, args.seed)
    builders = [venv_python(args.venvs_dir, v) for v in ("anchors", "optimum")]
    builder = next((p for p in builders if p.exists()), None)
    model_error = None
    if builder is None:
        model_error = f"no venv under {args.venvs_dir}; run: bash benchmarks/setup.sh"
    else:
        print(f"[run_anchors] model {shape.as_list()} seed {args.seed} -> {model_dir}", file=sys.stderr, flush=True)
        built = run_child(
            [
                str(builder),
                str(HERE / "make_marian.py"),
                "--shape",
                args.shape,
                "--seed",
                str(args.seed),
                "--model-dir",
                str(model_dir),
            ],
            env,
            args.timeout,
            "make_marian",
        )
        if "error" in built:
            model_error = f"building the model failed: {built['error']}"

    # 2. The engines, one at a time.
    for engine in engines:
        venv, script = ENGINES[engine]
        python = venv_python(args.venvs_dir, venv)
        if model_error:
            merged[engine] = {"error": model_error}
            continue
        if not python.exists():
            merged[engine] = {"error": f"venv {venv} missing ({python}); run: bash benchmarks/setup.sh"}
            continue
        cmd = [
            str(python),
            str(HERE / script),
            "--shape",
            args.shape,
            "--batches",
            args.batches,
            "--runs",
            str(args.runs),
            "--warmup",
            str(args.warmup),
            "--threads",
            str(args.threads),
            "--seed",
            str(args.seed),
            "--model-dir",
            str(model_dir),
        ]
        if args.precisions:
            cmd += ["--precisions", args.precisions]
        print(f"[run_anchors] {engine}: {' '.join(cmd)}", file=sys.stderr, flush=True)
        merged[engine] = run_child(cmd, env, args.timeout, engine)

    # 3. Cross-check and report.
    compare_outputs(merged)
    summary = table(merged, batches)
    text = json.dumps(merged)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text + "\n")
    if args.json:
        print(summary, file=sys.stderr, flush=True)
        print(text, flush=True)
    else:
        print(summary, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
