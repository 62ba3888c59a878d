"""A training corpus of catalogs and documentation mixed (issue 44's retraining):

    python scripts/model/mix_corpus.py --catalogs work/corpus-de --docs work/docs-corpus/de --out work/mix-de

train.tsv: every documentation training pair but the dev ones (`--docs-repeat` times), and as
many catalog training pairs (`--catalog-ratio` times the documentation's, drawn with a fixed seed)
so that software messages keep their weight, and every other catalog pair whose reference
addresses the reader in one register (training/augment.register), for the register tags, the
informal ones `--informal-repeat` times (catalogs address the reader informally far less often);
dev.tsv: `--dev` catalog dev pairs and `--dev` documentation dev pairs (held out of training when
the documentation corpus has no dev split), so the best checkpoint is the best on both; stats.json:
the language pair and the counts. Test splits stay where they are.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from traductor.training.augment import register
from traductor.training.corpus import languages, load_split, write_tsv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--catalogs", type=Path, required=True, help="a `traductor corpus` directory")
    ap.add_argument("--docs", type=Path, required=True, help="one language of `traductor corpus --docs`")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dev", type=int, default=300, help="dev pairs from each side")
    ap.add_argument("--catalog-ratio", type=float, default=1.0)
    ap.add_argument(
        "--docs-repeat", type=int, default=1, help="each documentation pair this many times (after the catalog draw)"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--informal-repeat", type=int, default=1, help="each informal catalog pair this many times (rare in catalogs)"
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    docs_train = load_split(args.docs / "train.tsv")
    docs_dev = load_split(args.docs / "dev.tsv") if (args.docs / "dev.tsv").is_file() else []
    if docs_dev:  # packages held out for dev by `traductor corpus --docs`
        docs_dev = rng.sample(docs_dev, min(len(docs_dev), args.dev))
    else:
        rng.shuffle(docs_train)
        docs_dev, docs_train = docs_train[: args.dev], docs_train[args.dev :]
    everything = load_split(args.catalogs / "train.tsv")
    catalogs = rng.sample(everything, min(len(everything), int(len(docs_train) * args.catalog_ratio)))
    target_language = languages(args.catalogs)["target"]
    # every catalog pair whose reference addresses the reader in one register: rare (0.3% of the
    # Spanish catalogs), and what teaches the register tags
    chosen = set(map(id, catalogs))
    addressed = [p for p in everything if id(p) not in chosen and register(p.target, target_language, p.source)]
    informal = [p for p in addressed if register(p.target, target_language, p.source) == "informal"]
    catalogs += addressed + informal * (args.informal_repeat - 1)
    catalog_dev = load_split(args.catalogs / "dev.tsv")
    catalog_dev = rng.sample(catalog_dev, min(len(catalog_dev), args.dev))
    train = docs_train * args.docs_repeat + catalogs
    rng.shuffle(train)
    args.out.mkdir(parents=True, exist_ok=True)
    write_tsv(args.out / "train.tsv", train)
    write_tsv(args.out / "dev.tsv", catalog_dev + docs_dev)
    stats = {
        "languages": languages(args.catalogs),
        "train": {
            "docs": len(docs_train),
            "docs_repeat": args.docs_repeat,
            "catalogs": len(catalogs),
            "catalogs_addressing_the_reader": len(addressed),
            "informal": len(informal),
            "informal_repeat": args.informal_repeat,
        },
        "dev": {"docs": len(docs_dev), "catalogs": len(catalog_dev)},
        "from": {"catalogs": str(args.catalogs), "docs": str(args.docs)},
    }
    (args.out / "stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
