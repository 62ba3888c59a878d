"""Register bans on held-out lines (issue 44): each line of a test split translated with a register
tag, with and without the decoders' bans (model/constraints.py), in one process on the same
weights; how many outputs the bans change, each output's register (training/augment.register, with
the English source), chrF against the reference (in whatever register the package used) on all
lines and on the changed ones, and the changed outputs themselves:

    python scripts/measure/register_bans_sample.py de work/docs-corpus/de/test.tsv 80 \\
        --beam 1 --registers formal,informal --out docs/model/register-bans-sample-de.json

Lines of 3 to 40 words, every k-th one so that `n` are taken (a fixed sample).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import sacrebleu

from traductor.model import controls
from traductor.model.translator import TorchTranslator
from traductor.training.augment import register

CHECKPOINTS = Path(__file__).resolve().parents[2] / "server/traductor/checkpoints"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lang")
    ap.add_argument("tsv", type=Path, help="source<TAB>reference lines")
    ap.add_argument("n", type=int)
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--registers", default="formal,informal")
    ap.add_argument("--checkpoint", type=Path, help="default: the packaged en-LANG")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = [line.rstrip("\n").split("\t") for line in args.tsv.open(encoding="utf-8")]
    rows = [r for r in rows if len(r) >= 2 and 3 <= len(r[0].split()) <= 40]
    rows = rows[:: max(1, len(rows) // args.n)][: args.n]
    src, ref = [r[0] for r in rows], [r[1] for r in rows]
    translator = TorchTranslator.load(args.checkpoint or CHECKPOINTS / f"en-{args.lang}")
    bans = translator.register_bans

    def registers(hyps: list[str]) -> dict:
        found = [register(h, args.lang, s) for h, s in zip(hyps, src)]
        return {str(k): found.count(k) for k in ("formal", "informal", None)}

    def chrf(hyps: list[str], idx: list[int]) -> float | None:
        return sacrebleu.corpus_chrf([hyps[i] for i in idx], [[ref[i] for i in idx]]).score if idx else None

    out: dict = {"lang": args.lang, "tsv": str(args.tsv), "lines": len(src), "beam": args.beam}
    for setting in args.registers.split(","):
        tagged = [controls.with_register(s, setting) for s in src]
        translator.register_bans = {}
        off = translator.translate(tagged, beam_size=args.beam)
        translator.register_bans = bans
        on = translator.translate(tagged, beam_size=args.beam)
        changed = [i for i in range(len(src)) if off[i] != on[i]]
        everything = list(range(len(src)))
        out[setting] = {
            "changed": len(changed),
            "register_without_bans": registers(off),
            "register_with_bans": registers(on),
            "chrf_all": [chrf(off, everything), chrf(on, everything)],
            "chrf_changed": [chrf(off, changed), chrf(on, changed)],
            "changed_outputs": [{"source": src[i], "without": off[i], "with": on[i]} for i in changed],
        }
        print(setting, json.dumps({k: v for k, v in out[setting].items() if k != "changed_outputs"}))
    if args.out:
        args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
