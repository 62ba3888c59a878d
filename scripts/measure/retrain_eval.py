"""A bundle on test splits, as served (each line cut into sentences, greedy, no translation
memory): chrF and BLEU overall and by source length, and the placeholders kept (issue 44's
before/after):

    python scripts/measure/retrain_eval.py --model server/traductor/models/en-de \
        --split catalogs=work/corpus-de/test.tsv --split docs=work/docs-corpus/de/test.tsv \
        --sample 1000 --out docs/model/retrain-de-before.json

`--sample N` takes N lines of each split with a fixed seed (the same lines for every bundle);
`--formality` asks every line in that register (a bundle trained with the tags); `--beam N` decodes
with a beam of N instead of greedily.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import sacrebleu

from traductor.engine.translator import OnnxTranslator
from traductor.model import placeholders
from traductor.offline import translate_texts
from traductor.training.corpus import load_split

BUCKETS = ((1, 5), (6, 15), (16, 30), (31, 10_000))  # source words


def scores(hyps: list[str], refs: list[str]) -> dict:
    return {
        "lines": len(hyps),
        "chrf": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2),
        "bleu": round(sacrebleu.corpus_bleu(hyps, [refs]).score, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--split", action="append", required=True, help="NAME=TSV")
    ap.add_argument("--threads", type=int, default=0, help="onnxruntime threads (0: its default, one a core)")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--formality", default="")
    ap.add_argument("--beam", type=int, default=1, help="beam size (1: greedy, as served by default)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    translator = OnnxTranslator.load(args.model, threads=args.threads)
    target = {"register": args.formality} if args.formality else {}
    out: dict = {"model": args.model, "formality": args.formality, "beam": args.beam, "splits": {}}
    for spec in args.split:
        name, path = spec.split("=", 1)
        pairs = load_split(Path(path))
        if args.sample and len(pairs) > args.sample:
            pairs = random.Random(1).sample(pairs, args.sample)
        t0 = time.monotonic()
        hyps = translate_texts(translator, [p.source for p in pairs], args.beam, 32, "text", {}, **target)
        refs = [p.target for p in pairs]
        result = scores(hyps, refs)
        result["seconds"] = round(time.monotonic() - t0, 1)
        kept = [placeholders.preserved(p.source, h) for p, h in zip(pairs, hyps)]
        result["placeholders"] = round(sum(k for k, _ in kept) / max(1, sum(n for _, n in kept)), 4)
        result["by_length"] = {}
        for low, high in BUCKETS:
            idx = [i for i, p in enumerate(pairs) if low <= len(p.source.split()) <= high]
            if idx:
                result["by_length"][f"{low}-{high}"] = scores([hyps[i] for i in idx], [refs[i] for i in idx])
        result["examples"] = [
            {"source": p.source, "output": h, "reference": p.target} for p, h in zip(pairs[:12], hyps)
        ]
        out["splits"][name] = result
        print(name, json.dumps({k: v for k, v in result.items() if k != "examples"}), file=sys.stderr)
    if args.out:
        args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
