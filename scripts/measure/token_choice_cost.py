"""The plain requests' token choice at a wide vocabulary: engine/decoding.choose_plain of a git
revision against the working tree's, on random logits, greedy rows with the loop rule's state.

    python scripts/measure/token_choice_cost.py --before 0123abc [--vocab 256206] [--rounds 11]

For each batch size (1, 8, 32) both versions run on copies of the same logits, alternating which
goes first; it prints the median CPU time of each (process time: less moved by other work on a
shared machine than wall time) and checks that both chose the same tokens with the same log p.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
import types
from collections import Counter

import numpy as np

from traductor.engine import decoding
from traductor.model.constraints import Constraints
from traductor.options import DecodingOptions


def old_module(rev: str) -> types.ModuleType:
    src = subprocess.run(
        ["git", "show", f"{rev}:server/traductor/engine/decoding.py"], capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType("traductor.engine.decoding_before")
    module.__package__ = "traductor.engine"
    exec(compile(src, f"decoding.py@{rev}", "exec"), module.__dict__)
    return module


def request(row: int):
    state = types.SimpleNamespace(
        rows=[row], tokens=list(range(10, 30)), missing=Counter(), repeat_limit=4, register=None, rng=None
    )
    return types.SimpleNamespace(state=state, options=DecodingOptions(), forced_first=None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="git revision of the version to compare with")
    ap.add_argument("--vocab", type=int, default=256206)
    ap.add_argument("--rounds", type=int, default=11)
    args = ap.parse_args()
    versions = {"before": old_module(args.before), "now": decoding}
    constraints = Constraints(set(range(4, 14)), 3)
    for batch in (1, 8, 32):
        logits = np.random.default_rng(batch).standard_normal((batch, args.vocab)).astype(np.float32)
        times: dict[str, list[float]] = {name: [] for name in versions}
        chosen = {}
        for r in range(args.rounds):
            for name in list(versions)[:: 1 if r % 2 else -1]:
                x, plain = logits.copy(), [request(i) for i in range(batch)]
                start = time.process_time()
                chosen[name] = versions[name].choose_plain(plain, x, batch, constraints, None)
                times[name].append(time.process_time() - start)
        same = "same tokens and log p" if chosen["before"] == chosen["now"] else "DIFFERENT choices"
        print(
            f"batch {batch}: before {1000 * statistics.median(times['before']):.2f} ms, "
            f"now {1000 * statistics.median(times['now']):.2f} ms CPU per step ({same})",
            flush=True,
        )


if __name__ == "__main__":
    main()
