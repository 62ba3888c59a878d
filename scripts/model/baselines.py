"""Baselines for the model card, measured on a corpus split with the project's own scorer:

    copy       the English source as the "translation"
    apertium   the rule-based translator (`apt-get install apertium apertium-eng-spa`), English to
               Spanish only: `--copy-only` for the other languages

    python scripts/model/baselines.py work/corpus/test.tsv [--common work/corpus/common.tsv] [--copy-only]

Scores are per kind of program and per kind of placeholder when the TSV has a kind column.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess

from traductor.training.corpus import load_split
from traductor.training.evaluate import common_match, score_by_kind


def apertium(sources: list[str]) -> list[str]:
    if shutil.which("apertium") is None:
        raise SystemExit("apertium is not installed: apt-get install apertium apertium-eng-spa")
    # -u: no unknown-word marks; one sentence per line, so lines stay aligned (newlines are kept).
    out = subprocess.run(
        ["apertium", "-u", "eng-spa"], input="\n".join(sources) + "\n", capture_output=True, text=True, check=True
    ).stdout.split("\n")
    if len(out) < len(sources):
        raise SystemExit(f"apertium returned {len(out)} lines for {len(sources)} sources")
    return out[: len(sources)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tsv")
    parser.add_argument("--common", help="common.tsv: also report exact matches on the most common messages")
    parser.add_argument("--copy-only", action="store_true", help="copy alone (no Apertium pair for this language)")
    args = parser.parse_args()
    pairs = load_split(args.tsv)
    sources, refs, kinds = [p.source for p in pairs], [p.target for p in pairs], [p.kind for p in pairs]
    out = {"copy": score_by_kind(sources, sources, refs, kinds)}
    if not args.copy_only:
        out["apertium"] = score_by_kind(sources, apertium(sources), refs, kinds)
    if args.common and not args.copy_only:
        common = load_split(args.common)
        out["apertium"]["common"] = common_match(apertium([p.source for p in common]), [p.target for p in common])
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
