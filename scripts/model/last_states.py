"""The last N training states kept by scripts/model/keep_states.sh, by the step each holds (one per
step), as paths for `traductor average`:

    traductor average --checkpoint work/RUN --out work/RUN-avg3 $(python scripts/model/last_states.py work/RUN 3)

Prints the paths on stdout, and each state's step on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch


def main() -> None:
    run, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3
    by_step: dict[int, Path] = {}
    for path in sorted((run / "states").glob("state-*.pt")):
        by_step[int(torch.load(path, weights_only=True, map_location="cpu")["step"])] = path
    chosen = sorted(by_step)[-n:]
    print(f"steps kept: {sorted(by_step)}; averaging {chosen}", file=sys.stderr)
    print(" ".join(str(by_step[s]) for s in chosen))


if __name__ == "__main__":
    main()
