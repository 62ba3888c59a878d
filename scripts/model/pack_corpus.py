"""Pack corpora made by `traductor corpus` for a training call on the device machine (its files
travel with a 64 MiB limit): train.tsv, a 400-message dev set (100 per kind of program, the
trainer's dev set, as for the Spanish model) and stats.json, xz-compressed.

    python scripts/model/pack_corpus.py work/gpu/corpus-fr.tar.xz work/corpus-fr
    python scripts/model/pack_corpus.py work/gpu/corpus-multi work/gpu/corpus-fr work/gpu/corpus-de --tag
    python scripts/model/pack_corpus.py work/gpu/corpus-es.tar.xz work/mix-es --whole-dev   # mix_corpus.py's

An OUT that does not end in .tar.xz is written as a directory (the device machine makes the
multilingual pilot's corpus itself from the two packed ones: both together would not travel).

With --tag (the multilingual pilot), every source starts with its target language's token
(`<2fr> `, `<2de> `) and the corpora are merged; the dev set of each language is also written on
its own (dev-fr.tsv, dev-de.tsv) so that the pilot is scored per language.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import tarfile
from collections import defaultdict
from pathlib import Path

PER_KIND = 100


def rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").split("\n") if line]


def dev400(corpus: Path) -> list[list[str]]:
    """100 dev pairs of each kind, chosen by the hash of their source (the same every time)."""
    by_kind = defaultdict(list)
    for row in rows(corpus / "dev.tsv"):
        by_kind[row[3] if len(row) > 3 else ""].append(row)
    chosen = []
    for kind in sorted(by_kind):
        chosen += sorted(by_kind[kind], key=lambda r: hashlib.sha1(r[0].encode()).hexdigest())[:PER_KIND]
    return chosen


def tagged(table: list[list[str]], target: str) -> list[list[str]]:
    return [[f"<2{target}> {r[0]}", *r[1:]] for r in table]


def tsv(table: list[list[str]], columns: int = 4) -> bytes:
    return "".join("\t".join(r[:columns]) + "\n" for r in table).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the .tar.xz to write (or a directory)")
    parser.add_argument("corpora", nargs="+", type=Path, help="directories written by `traductor corpus`")
    parser.add_argument("--tag", action="store_true", help="merge, with a target-language token on each source")
    parser.add_argument("--whole-dev", action="store_true", help="keep dev.tsv whole (a mixed corpus's own choice)")
    args = parser.parse_args()
    files: dict[str, bytes] = {}
    if args.tag:
        train, dev, targets = [], [], []
        for corpus in args.corpora:
            target = json.loads((corpus / "stats.json").read_text())["languages"]["target"]
            targets.append(target)
            train += tagged(rows(corpus / "train.tsv"), target)
            dev_one = tagged(dev400(corpus), target)
            dev += dev_one
            files[f"dev-{target}.tsv"] = tsv(dev_one)
        languages = {"source": "en", "target": "+".join(targets)}
    else:
        (corpus,) = args.corpora
        train, dev = rows(corpus / "train.tsv"), rows(corpus / "dev.tsv") if args.whole_dev else dev400(corpus)
        languages = json.loads((corpus / "stats.json").read_text())["languages"]
    files["train.tsv"], files["dev.tsv"] = tsv(train, columns=2), tsv(dev)  # training reads source, target
    stats = {"languages": languages, "train_pairs": len(train), "dev_pairs": len(dev)}
    files["stats.json"] = json.dumps(stats).encode()
    out = Path(args.out)
    if not out.name.endswith(".tar.xz"):
        out.mkdir(parents=True, exist_ok=True)
        for fname, data in files.items():
            (out / fname).write_bytes(data)
        print(json.dumps({"out": str(out), "train": len(train), "dev": len(dev)}))
        return
    name = out.name.removesuffix(".tar.xz")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(args.out, "w:xz", preset=9) as tar:
        for fname, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{name}/{fname}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    print(json.dumps({"out": args.out, "bytes": Path(args.out).stat().st_size, "train": len(train), "dev": len(dev)}))


if __name__ == "__main__":
    main()
