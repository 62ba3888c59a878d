"""Training pairs in the register a corpus lacks, made from the other (issue 55;
docs/register-augment.md):

    python scripts/model/register_augment.py --lang ru work/corpus-ru-t/train.tsv work/augment-ru.tsv
    python scripts/model/register_augment.py --lang it work/corpus-it-t/train.tsv work/augment-it.tsv

Russian and Dutch catalogs address the reader formally far more often than informally, Italian
ones informally (tu) and almost never with Lei: the script rewrites into the register a language
lacks (ru, nl: informal, вы -> ты, u -> je; it: formal, tu -> Lei). It reads IN_TSV
(source<TAB>target per line), keeps the pairs whose target the register reader
(traductor.text.address.read) reads in the other register, and writes to OUT_TSV each one whose
target the rules of traductor.text.register_convert rewrite, the source unchanged: only where
every word of the register left is one the rules convert with certainty and the reader then reads
the rewrite in the new one. A summary (pairs read, in the register rewritten, converted, skipped
by reason; the tag training gives each rewrite, training/augment.register, which reads these
languages with the same reader) goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from traductor.text import register_convert as rc
from traductor.training.augment import register as training_register


def _lines(path: Path):
    with path.open(encoding="utf-8", newline="") as f:
        yield from f


def direction(language: str):
    """(the register read in the corpus, the rewrite function, its "not in that register" reason)."""
    if language in rc.FORMAL_LANGUAGES:
        return "informal", rc.formal, rc.NOT_INFORMAL_TEXT
    return "formal", rc.informal, rc.NOT_FORMAL


def augment(in_path: Path, out_path: Path, language: str, limit: int | None, progress: bool = True) -> Counter:
    """Write the rewrites of `in_path`'s pairs into the register `language` lacks to `out_path`;
    the counts."""
    read_register, rewrite, not_read = direction(language)
    counts: Counter = Counter()
    total = None if limit else sum(1 for _ in _lines(in_path))
    with out_path.open("w", encoding="utf-8", newline="") as out:
        lines = tqdm(_lines(in_path), total=limit or total, unit=" pairs", disable=not progress, file=sys.stderr)
        for line in lines:
            if limit is not None and counts["read"] >= limit:
                break
            counts["read"] += 1
            row = line.rstrip("\r\n").split("\t")
            if len(row) < 2 or not row[1].strip():
                counts["line without source<TAB>target"] += 1
                continue
            source, target = row[0], row[1]
            text, reason = rewrite(target, language, source)
            if reason == not_read:
                continue
            counts[read_register] += 1
            if text is None:
                counts[f"skipped: {reason}"] += 1
                continue
            counts["converted"] += 1
            tag = training_register(text, language, source)
            counts[f"training tag (augment.register): {tag}"] += 1
            counts["written"] += 1
            out.write(f"{source}\t{text}\n")
    return counts


def summary(counts: Counter) -> str:
    order = ["read", *(k for k in ("formal", "informal") if k in counts), "converted", "written"]
    rest = sorted((k for k in counts if k not in order), key=lambda k: (not k.startswith("skipped"), -counts[k]))
    return "\n".join(f"{counts[k]:>9,}  {k}" for k in order + rest)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    languages = sorted(rc.INFORMAL_LANGUAGES | rc.FORMAL_LANGUAGES)
    ap.add_argument("--lang", required=True, choices=languages, help="the target language of the corpus")
    ap.add_argument("in_tsv", type=Path, help="source<TAB>target per line")
    ap.add_argument("out_tsv", type=Path, help="the rewritten pairs, source<TAB>target")
    ap.add_argument("--limit", type=int, help="read only the first N pairs")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if not args.in_tsv.is_file():
        ap.error(f"input corpus not found: {args.in_tsv}")
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    if args.in_tsv.resolve() == args.out_tsv.resolve():
        ap.error("OUT_TSV must differ from IN_TSV")
    try:
        counts = augment(args.in_tsv, args.out_tsv, args.lang, args.limit, not args.no_progress)
    except (OSError, UnicodeDecodeError) as e:
        print(f"register_augment: {e}", file=sys.stderr)
        return 1
    print(summary(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
