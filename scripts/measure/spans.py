"""How many verbatim spans (URLs, e-mail addresses, paths, addresses, file names, metavariables:
model/placeholders.py's VERBATIM kinds) come back byte for byte, on the lines of a test split whose
reference copies them (issue 41):

    python scripts/measure/spans.py work/corpus-es/test.tsv --model server/traductor/models/en-es --out x.json

Reads the spans with the placeholder rules of the code it runs with: run it from another checkout
(`git worktree add`) with PYTHONPATH pointing there to measure the code before a change on the same
lines (`--lines` writes the chosen lines, `--from-lines` reads them back). Prints and writes the
share of spans kept per kind and the chrF of those lines, each line translated as `traductor
translate` translates it (cut into sentences, greedy, no translation memory).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import sacrebleu

from traductor.engine.translator import OnnxTranslator
from traductor.model import placeholders
from traductor.offline import translate_texts
from traductor.training.corpus import load_split


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tsv", type=Path)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--lines", type=Path, help="write the chosen (source, reference, kind, span) lines here")
    ap.add_argument("--from-lines", type=Path, help="take the lines from a --lines file instead of choosing")
    args = ap.parse_args()
    if args.from_lines:
        rows = json.loads(args.from_lines.read_text())
    else:
        rows = []
        for p in load_split(args.tsv):
            found = placeholders.find_kinds(p.source)
            spans = [(k, v) for k, v in found if (k in placeholders.VERBATIM or k == "metavar") and v in p.target]
            if spans:
                rows.append({"source": p.source, "reference": p.target, "spans": spans})
        if args.lines:
            args.lines.write_text(json.dumps(rows, ensure_ascii=False, indent=0))
    translator = OnnxTranslator.load(args.model)
    # as `traductor translate` does it: each line cut into sentences, as the service cuts a text
    hyps = translate_texts(translator, [r["source"] for r in rows], 1, 32, "text", {})
    kept, total = Counter(), Counter()
    for r, h in zip(rows, hyps):
        for kind, value in r["spans"]:
            total[kind] += 1
            kept[kind] += value in h
    chrf = sacrebleu.corpus_chrf(hyps, [[r["reference"] for r in rows]]).score
    result = {
        "lines": len(rows),
        "spans": sum(total.values()),
        "kept": sum(kept.values()),
        "kept_share": round(sum(kept.values()) / max(1, sum(total.values())), 4),
        "by_kind": {k: {"spans": total[k], "kept": kept[k]} for k in sorted(total)},
        "chrf": round(chrf, 2),
        "examples": [{"source": r["source"], "output": h} for r, h in list(zip(rows, hyps))[:15]],
    }
    text = json.dumps(result, ensure_ascii=False, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}), file=sys.stderr)


if __name__ == "__main__":
    main()
