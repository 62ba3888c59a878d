"""ONNX Runtime thread settings of the engine, compared in one process on one bundle: 2 threads
spinning (what `traductor bench` times), 2 threads without spinning (what `traductor serve`
runs), 1 thread; their decodes of the bench's work (its sources for the bundle's layout, exactly
32 new tokens, greedy, through the serving scheduler) alternating, the order rotated every round.

    python scripts/measure/runner_settings_ab.py BUNDLE --batch 8 [--rounds 3]

Prints each round's output tokens/s and the medians. For a shared, loaded machine (issue 46).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from traductor.bench.engine import NEW_TOKENS, anchor_sources, is_marian_layout, sources
from traductor.engine.bundle import load_bundle
from traductor.engine.runner import ModelRunner
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import drive
from traductor.options import DecodingOptions

SETTINGS = {
    "2 threads, spinning": dict(threads=2, spin=True),
    "2 threads, no spinning": dict(threads=2, spin=False),
    "1 thread": dict(threads=1, spin=False),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    bundle = load_bundle(args.bundle, verify=False, tokenizer=False)
    model, batch = bundle.model, args.batch
    srcs = anchor_sources(model, batch) if is_marian_layout(model) else sources(model.vocab_size, batch)
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    work = [(s, [], options) for s in srcs]
    schedulers = {
        name: Scheduler(ModelRunner(bundle, max_rows=batch, **kw), None, max_rows=batch, max_queue=batch)
        for name, kw in SETTINGS.items()
    }
    for scheduler in schedulers.values():
        drive(scheduler, work)  # warm-up
    names = list(schedulers)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            t0 = time.perf_counter()
            drive(schedulers[name], work)
            rates[name].append(batch * NEW_TOKENS / (time.perf_counter() - t0))
        print(f"round {r + 1}: " + ", ".join(f"{n} {v[-1]:.1f}" for n, v in rates.items()), flush=True)
    print("median tok/s: " + ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in rates.items()))


if __name__ == "__main__":
    main()
