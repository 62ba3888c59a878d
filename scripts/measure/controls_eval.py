"""Register control and glossary agreement of a checkpoint, on the hand-written probe
docs/model/controls-probe.json (issue 44):

    python scripts/measure/controls_eval.py --checkpoint work/de --lang de --out docs/model/controls-de.json

--bans both   the register twice in one run: as the weights alone decode it ("register_without_bans")
              and with the decoders' register bans (model/constraints.py), the default ("register")

register   each sentence translated three ways: no tag, <formal>, <informal>; each output's
           register as training/augment.register reads it (formal, informal or none); a setting
           is right when the output is in the register asked for.
glossary   each sentence with its terms annotated (<term> file <to> Dokument </term>); the term is
           used when the output has it (any inflection from its stem), and agrees when none of the
           two words before it is a form that cannot go with the term's gender (the probe's list:
           "der Dokument", "la directorio"). A word-level check, not a grammar: the outputs are in
           the JSON for a reader to judge.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from pathlib import Path

from traductor.model import controls
from traductor.model.translator import TorchTranslator
from traductor.training.augment import register

PROBE = Path(__file__).resolve().parents[2] / "docs/model/controls-probe.json"


def annotate(sentence: str, terms: dict) -> str:
    words = "|".join(sorted(map(re.escape, terms), key=len, reverse=True))
    spans = [
        (m.start(), m.end(), terms[m.group(0).lower()][0]) for m in re.finditer(rf"\b(?:{words})\b", sentence, re.I)
    ]
    return controls.annotate(sentence, spans)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--lang", required=True)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--bans", choices=["on", "off", "both"], default="on", help="the register rule of the decoders")
    ap.add_argument("--beam", type=int, default=1, help="beam size of the register sentences (1: greedy)")
    args = ap.parse_args()
    probe = json.loads(PROBE.read_text())
    translator = TorchTranslator.load(Path(args.checkpoint))
    if not translator.tokenizer.controls:
        raise SystemExit(f"{args.checkpoint}: its tokenizer has no control tokens")
    weights = Path(args.checkpoint) / "model.safetensors"
    out: dict = {
        "checkpoint": args.checkpoint,
        "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest() if weights.is_file() else None,
        "lang": args.lang,
        "beam": args.beam,
        "glossary": {},
    }

    sentences = probe["register"]
    bans = translator.register_bans
    runs = {"on": ["register"], "off": ["register_without_bans"], "both": ["register_without_bans", "register"]}
    for key in runs[args.bans]:
        translator.register_bans = bans if key == "register" else {}
        out[key] = {}
        for setting in (None, "formal", "informal"):
            hyps = translator.translate([controls.with_register(s, setting) for s in sentences], beam_size=args.beam)
            found = [register(h, args.lang, s) for h, s in zip(hyps, sentences)]  # the English: Spanish verb forms
            out[key][setting or "none"] = {
                "formal": found.count("formal"),
                "informal": found.count("informal"),
                "neither": found.count(None),
                "right": None if setting is None else found.count(setting) / len(found),
                "outputs": hyps,
            }
    translator.register_bans = bans

    spec = probe["glossary"].get(args.lang)
    if spec:
        terms = {k.lower(): v for k, v in spec["terms"].items()}
        sources = [annotate(s, terms) for s in spec["sentences"]]
        hyps = translator.translate(sources)
        rows, used, agree = [], 0, 0
        for source, hyp in zip(sources, hyps):
            wanted = [terms[m.lower()] for m in re.findall(r"<term> (.*?) <to>", source)]
            ok_use, ok_agree = True, True
            for term, gender in wanted:
                m = re.search(rf"\b{re.escape(term[:-1])}\w*", hyp, re.I)
                if not m:
                    ok_use = False
                    continue
                before = re.findall(r"[\w'’]+", hyp[: m.start()].lower())[-2:]
                before = [w.split("'")[-1] for w in before]
                if any(w in spec["wrong_before"].get(gender, []) for w in before):
                    ok_agree = False
            used += ok_use
            agree += ok_use and ok_agree
            rows.append({"source": source, "output": hyp, "term_used": ok_use, "agrees": ok_use and ok_agree})
        out["glossary"] = {"sentences": len(rows), "term_used": used, "agrees": agree, "rows": rows}
    text = json.dumps(out, indent=1, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n")
    summary = {k: {s: v["right"] for s, v in out[k].items()} for k in runs[args.bans]}
    summary["glossary"] = {k: out["glossary"].get(k) for k in ("sentences", "term_used", "agrees")}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
