"""The synthetic task the tiny test model learns (imported by tests/conftest.py and by tests).

A deterministic "translation" of digit words into letters with the order reversed, so a tiny
Transformer learns it to about 80% exact match in a few hundred steps:
    "uno dos tres"  ->  "D C B"   (cero=A, uno=B, ...; order reversed)

It lives in its own module (not in conftest.py) because several conftest.py files exist under
tests/ and `from conftest import ...` would pick whichever was imported first.
"""

from __future__ import annotations

import random
from pathlib import Path

WORDS = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"]
LETTERS = "ABCDEFGHIJ"


def synthetic_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        k = rng.randint(1, 6)
        digits = [rng.randrange(10) for _ in range(k)]
        src = " ".join(WORDS[d] for d in digits)
        tgt = " ".join(LETTERS[d] for d in reversed(digits))
        if rng.random() < 0.2:  # placeholders ride along
            src, tgt = src + " %s", tgt + " %s"
        pairs.append((src, tgt))
    return pairs


def write_corpus(directory: Path, n_train: int = 3000) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, n, seed in (("train", n_train, 0), ("dev", 60, 1), ("test", 60, 2)):
        with open(directory / f"{name}.tsv", "w") as f:
            for s, t in synthetic_pairs(n, seed):
                f.write(f"{s}\t{t}\tsynthetic\n")
    return directory
