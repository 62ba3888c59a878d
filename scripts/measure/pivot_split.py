"""A test split between two languages other than English, for a pair served through English
(es -> fr, de -> fr): the messages of packages held out by both models, joined on their English msgid.

    python scripts/measure/pivot_split.py work/corpus-de-en/test.tsv work/corpus-fr/test.tsv \\
        --out work/pivot-de-fr/test.tsv

FIRST is a split into English (`traductor corpus --lang de --into-english`: source, English, package,
kind), SECOND one out of it (`traductor corpus --lang fr`: English, target, package, kind). A row of the
output is (source, target, package, kind) for each message whose package and English are in both: the
English was held out of both models' training (a test package of either corpus is never trained on),
so neither hop saw it. One row per (package, source).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").split("\n") if line]


def join(first: list[list[str]], second: list[list[str]]) -> list[list[str]]:
    """(source, target, package, kind) of the messages whose (package, English) both splits have."""
    targets = {(r[2], r[0]): r[1] for r in second if len(r) >= 3}
    out, seen = [], set()
    for row in first:
        if len(row) < 3:
            continue
        source, english, package = row[0], row[1], row[2]
        kind = row[3] if len(row) > 3 else ""
        target = targets.get((package, english))
        if target is not None and (package, source) not in seen:
            seen.add((package, source))
            out.append([source, target, package, kind])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", type=Path, help="a split into English: source, English, package, kind")
    ap.add_argument("second", type=Path, help="a split out of English: English, target, package, kind")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    joined = join(rows(args.first), rows(args.second))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join("\t".join(r) + "\n" for r in joined), encoding="utf-8")
    kinds: dict[str, int] = {}
    for r in joined:
        kinds[r[3]] = kinds.get(r[3], 0) + 1
    print(json.dumps({"pairs": len(joined), "packages": len({r[2] for r in joined}), "by_kind": kinds}))


if __name__ == "__main__":
    main()
