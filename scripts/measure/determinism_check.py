"""How many translations change with the batch, the order or the thread count (issue 22).

The experiment of the issue, offline on one bundle: N English sources (the English side of a test
split: held-out listed packages) translated greedy and with beam 4, at batch sizes 1, 7 and 64, in
their order and shuffled, with 1 and 2 ONNX Runtime threads; every output is compared with the same
source decoded alone on 1 thread.

    python scripts/measure/determinism_check.py --bundle DIR --tsv work/corpus-es/test.tsv --n 300 [--out F.json]

Several bundles may be given (`--bundle A --bundle B`): one table row per bundle and setting.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from traductor.engine.translator import OnnxTranslator
from traductor.options import DecodingOptions

BATCHES = (1, 7, 64)


def sources(tsv: Path, n: int) -> list[str]:
    """The first n distinct English sources of a corpus TSV (source<TAB>target...)."""
    seen: dict[str, None] = {}
    for line in tsv.read_text(encoding="utf-8").splitlines():
        text = line.split("\t", 1)[0].strip()
        if text:
            seen.setdefault(text)
        if len(seen) == n:
            break
    return list(seen)


def decode(translator: OnnxTranslator, encoded, order: list[int], beam: int, batch: int) -> list[tuple]:
    """Token ids of every source (in the sources' order), decoded in `order` by groups of `batch`."""
    options = DecodingOptions(beam_size=beam)
    events = translator.generate([encoded[i][0] for i in order], options, batch, [encoded[i][1] for i in order])
    out: list[tuple] = [()] * len(order)
    for i, event in zip(order, events):
        out[i] = tuple(event.token_ids)
    return out


def check(bundle: Path, texts: list[str]) -> list[dict]:
    rows = []
    translators = {t: OnnxTranslator.load(bundle, threads=t, max_rows=64) for t in (1, 2)}
    encoded = [translators[1].tokenizer.encode(t) for t in texts]
    shuffled = list(range(len(texts)))
    random.Random(0).shuffle(shuffled)
    for beam in (1, 4):
        alone = decode(translators[1], encoded, list(range(len(texts))), beam, 1)
        for threads, translator in translators.items():
            for batch in BATCHES:
                for name, order in (("in order", list(range(len(texts)))), ("shuffled", shuffled)):
                    if batch == 1 and (threads == 1 or name == "shuffled"):
                        continue
                    got = decode(translator, encoded, order, beam, batch)
                    changed = sum(a != g for a, g in zip(alone, got))
                    rows.append(
                        {
                            "bundle": str(bundle),
                            "beam": beam,
                            "threads": threads,
                            "batch": batch,
                            "order": name,
                            "changed": changed,
                            "of": len(texts),
                        }  # fmt: skip
                    )
                    print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, action="append", required=True)
    parser.add_argument("--tsv", type=Path, required=True)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    texts = sources(args.tsv, args.n)
    rows = [row for bundle in args.bundle for row in check(bundle, texts)]
    print("| bundle | beam | threads | batch | order | changed vs alone (1 thread) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        setting = f"{r['beam']} | {r['threads']} | {r['batch']} | {r['order']}"
        print(f"| {r['bundle']} | {setting} | {r['changed']} of {r['of']} |")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
