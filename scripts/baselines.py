"""Baselines for the model card, measured on a corpus split with the project's own scorer:

    copy       the English source as the "translation"
    apertium   the rule-based translator (`apt-get install apertium apertium-eng-spa`)

    python scripts/baselines.py work/corpus/test.tsv
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess

from traductor.training.corpus import load_split
from traductor.training.evaluate import score


def apertium(sources: list[str]) -> list[str]:
    if shutil.which("apertium") is None:
        raise SystemExit("apertium is not installed: apt-get install apertium apertium-eng-spa")
    # -u: no unknown-word marks; one sentence per line, so lines stay aligned (newlines are kept).
    out = subprocess.run(["apertium", "-u", "eng-spa"], input="\n".join(sources) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")
    if len(out) < len(sources):
        raise SystemExit(f"apertium returned {len(out)} lines for {len(sources)} sources")
    return out[: len(sources)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tsv")
    args = parser.parse_args()
    pairs = load_split(args.tsv)
    sources, refs = [p.source for p in pairs], [p.target for p in pairs]
    print(json.dumps({"copy": score(sources, sources, refs), "apertium": score(sources, apertium(sources), refs)}, indent=2))


if __name__ == "__main__":
    main()
