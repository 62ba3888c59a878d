"""Beam search's cost on the host: a git revision's engine against the working tree's, on the same
lines of a split, as the CLI translates them (each line cut into sentences, int8 bundle, no
translation memory).

    python scripts/measure/beam_cost.py --before 0123abc --corpus work/docs-corpus/es/test.tsv \
        --model server/traductor/models/en-es --sample 400 --beam 1 --beam 4 --rounds 5 \
        --out docs/perf/beam-cost.json

The revision is checked out in a temporary git worktree. Each round runs every (version, beam)
once, each in a fresh process that loads the bundle and then times `translate_texts` alone (wall
time: the process has the cores to itself), the order of the versions alternating from round to
round. It prints the median seconds of each and checks that both versions wrote the same
translations at each beam size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The timed part, run in a fresh interpreter with one checkout's server/ first on sys.path.
CHILD = """
import json, sys, time
from traductor.engine.translator import OnnxTranslator
from traductor.offline import translate_texts
model, threads, beam, sources = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.load(open(sys.argv[4]))
translator = OnnxTranslator.load(model, threads=threads)
t0 = time.perf_counter()
hyps = translate_texts(translator, sources, beam, 32, "text", {})
print(json.dumps({"seconds": time.perf_counter() - t0, "hyps": hyps}))
"""


def run(checkout: Path, model: str, threads: int, beam: int, sources: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout / "server"))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, model, str(threads), str(beam), str(sources)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="git revision to compare against")
    ap.add_argument("--corpus", required=True, help="source<TAB>target file")
    ap.add_argument("--model", default=str(ROOT / "server/traductor/models/en-es"))
    ap.add_argument("--sample", type=int, default=400, help="lines drawn with a fixed seed")
    ap.add_argument("--beam", type=int, action="append", help="beam sizes (repeat; default 1 and 4)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    beams = args.beam or [1, 4]
    lines = [line.split("\t")[0] for line in Path(args.corpus).read_text(encoding="utf-8").splitlines() if line]
    sources = random.Random(1).sample(lines, min(args.sample, len(lines)))
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.before],
            check=True,
            capture_output=True,
        )
        try:
            (Path(tmp) / "sources.json").write_text(json.dumps(sources))
            versions = {"before": old, "after": ROOT}
            seconds: dict[str, list[float]] = {f"{v} beam {b}": [] for b in beams for v in versions}
            hyps: dict[str, list[str]] = {}
            for r in range(args.rounds):
                order = list(versions) if r % 2 == 0 else list(reversed(versions))
                for b in beams:
                    for v in order:
                        got = run(versions[v], args.model, args.threads, b, Path(tmp) / "sources.json")
                        seconds[f"{v} beam {b}"].append(got["seconds"])
                        hyps.setdefault(f"{v} beam {b}", got["hyps"])
                print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=True)
    result = {
        "before": args.before,
        "corpus": args.corpus,
        "model": args.model,
        "lines": len(sources),
        "threads": args.threads,
        "rounds": args.rounds,
        "median_seconds": {k: round(statistics.median(v), 3) for k, v in seconds.items()},
        "seconds": {k: [round(x, 3) for x in v] for k, v in seconds.items()},
        "same_translations": {b: hyps[f"before beam {b}"] == hyps[f"after beam {b}"] for b in beams},
    }
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
