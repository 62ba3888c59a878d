"""French and German typography in translations: what the catalogs do, and what a model does.

Counts, over the target side of a corpus TSV (source<TAB>target...) or over a file of hypotheses
(one translation a line):

- the space before the French high punctuation `:` `;` `?` `!`: no-break space (U+00A0), narrow
  no-break space (U+202F), plain space, or none;
- quotation marks: guillemets « », German „ “ (low-high), straight double quotes ";
- the share of words that start with a capital letter (German capitalises every noun).

    python scripts/model/typography.py work/corpus-fr/train.tsv                # the catalogs
    python scripts/model/typography.py hypotheses.txt --lines                  # a model's output
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

BEFORE = {"\u00a0": "no-break space", "\u202f": "narrow no-break space", " ": "space"}
HIGH_PUNCTUATION = re.compile(r"(.)([:;?!])(?=\s|$)")
WORD = re.compile(r"[^\W\d_]+")


def targets(path: Path, lines: bool) -> list[str]:
    text = path.read_text(encoding="utf-8").splitlines()
    return text if lines else [row.split("\t")[1] for row in text if row.count("\t") >= 1]


def count(texts: list[str]) -> dict:
    before: Counter[str] = Counter()
    quotes: Counter[str] = Counter()
    words = capital = 0
    for text in texts:
        for previous, _ in HIGH_PUNCTUATION.findall(text):
            before[BEFORE.get(previous, "none")] += 1
        quotes["guillemets « »"] += text.count("«")
        quotes["German „ “"] += text.count("„")
        quotes['straight "'] += text.count('"') // 2
        for word in WORD.findall(text):
            words += 1
            capital += word[0].isupper()
    return {
        "texts": len(texts),
        "before high punctuation": dict(before.most_common()),
        "quotation pairs": dict(quotes.most_common()),
        "words": words,
        "capital-initial words": round(capital / words, 3) if words else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a corpus TSV, or with --lines one translation a line")
    parser.add_argument("--lines", action="store_true", help="the file holds one translation a line")
    args = parser.parse_args()
    print(json.dumps(count(targets(args.file, args.lines)), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
