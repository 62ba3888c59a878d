"""What issue 41's per-step work costs a decode: every token's log p (the confidence reads them)
and the loop rule's check, against the token choice as it was before them.

"before" is engine/decoding.py as it was at the commit given (--before, default b24a46f^: before
the loop rule), read from git and run in place of today's `choose_plain`, which it equals but for
those two things (its log p only for rows that asked for scores; its tokens get log p 0 here so
that the rest of the engine runs unchanged). Both decode the packaged model's own sentences
greedily, exactly NEW_TOKENS tokens each (min_new_tokens = max_new_tokens: the loop rule is
checked every step but cannot end a row), alternating before/after every round; printed: the
median wall time per decode step of each, and the median of the per-round ratios after/before.

    python scripts/measure/guard_cost.py --bundle server/traductor/models/en-es --batch 1 --batch 32 --rounds 15
    python scripts/measure/guard_cost.py --micro --batch 1 --batch 8 --batch 32

`--micro` times the token choice alone (`choose_plain` over rows of random logits of the bundle's
vocabulary, 20 tokens out each, 500 calls, the best of two tries each), before and after.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
import types
from pathlib import Path

from traductor.engine import decoding, scheduler
from traductor.engine.translator import OnnxTranslator, drive
from traductor.options import DecodingOptions, resolve

NEW_TOKENS = 32
TEXTS = [
    "Could not open the file for reading.",
    "Save the document before closing the window?",
    "The connection to the server was lost; retrying in a few seconds.",
    "Show hidden files and folders",
]


def old_decoding(commit: str) -> types.ModuleType:
    root = Path(__file__).resolve().parents[2]
    source = subprocess.run(
        ["git", "show", f"{commit}:server/traductor/engine/decoding.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("traductor.engine.decoding_before")
    module.__package__ = "traductor.engine"
    exec(compile(source, "decoding_before.py", "exec"), module.__dict__)
    plain = module.choose_plain
    module.choose_plain = lambda *a, **k: [(t, 0.0 if lp is None else lp) for t, lp in plain(*a, **k)]
    return module


def step_time(translator: OnnxTranslator, batch: int) -> float:
    """Seconds per decode step of one greedy decode of `batch` sentences (NEW_TOKENS steps)."""
    tok = translator.tokenizer
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
    work = []
    for i in range(batch):
        ids, values = tok.encode(TEXTS[i % len(TEXTS)])
        work.append((ids, values, resolve(options, len(ids), translator.limits)))
    s = scheduler.Scheduler(translator.runner, tok, max_rows=batch, max_queue=batch + 1)
    start = time.perf_counter()
    drive(s, work)
    return (time.perf_counter() - start) / NEW_TOKENS


def micro(kinds: dict, batches: list[int], vocab: int) -> None:
    from collections import Counter

    import numpy as np

    from traductor.model.constraints import Constraints

    class Row:
        def __init__(self, i: int):
            self.state = types.SimpleNamespace(
                rows=[i], tokens=list(range(10, 30)), missing=Counter(), repeat_limit=4, rng=None
            )
            self.options = DecodingOptions()

    constraints = Constraints(set(range(4, 14)), 3)
    for batch in batches:
        rows = [Row(i) for i in range(batch)]
        logits = np.random.default_rng(0).standard_normal((batch, vocab)).astype(np.float32)
        best = {}
        for name, module in list(kinds.items()) * 2:
            start = time.perf_counter()
            for _ in range(500):
                module.choose_plain(rows, logits.copy(), batch, constraints, None)
            took = (time.perf_counter() - start) / 500 * 1e6
            best[name] = min(best.get(name, took), took)
        print(f"batch {batch}: choose_plain before {best['before']:.0f} us, after {best['after']:.0f} us per step")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", default="server/traductor/models/en-es")
    ap.add_argument("--batch", type=int, action="append")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--before", default="b24a46f^")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--micro", action="store_true", help="time the token choice alone")
    args = ap.parse_args()
    if args.micro:
        micro({"after": decoding, "before": old_decoding(args.before)}, args.batch or [1, 32], 8000)
        return
    translator = OnnxTranslator.load(args.bundle, threads=args.threads, max_rows=max(args.batch or [32]))
    kinds = {"after": decoding, "before": old_decoding(args.before)}
    for batch in args.batch or [1, 32]:
        for module in kinds.values():  # warm-up
            scheduler.decoding = module
            step_time(translator, batch)
        times = {k: [] for k in kinds}
        ratios = []
        for r in range(args.rounds):
            order = list(kinds) if r % 2 == 0 else list(reversed(kinds))
            got = {}
            for k in order:
                scheduler.decoding = kinds[k]
                got[k] = step_time(translator, batch)
                times[k].append(got[k])
            ratios.append(got["after"] / got["before"])
        scheduler.decoding = decoding
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        print(
            f"batch {batch}: before {med['before']:.3f} ms/step, after {med['after']:.3f} ms/step, "
            f"median ratio after/before {statistics.median(ratios):.3f} ({args.rounds} rounds)"
        )


if __name__ == "__main__":
    main()
