"""CPU cost of a decode step's bans (model/constraints.Constraints.banned) with the register rule, at
32 rows, on the packaged tokenizers: no register, every row <informal> (de) or <formal> (fr), and
steps where one row, or every row, has just written "▁tu" with <formal> (a word banned where it
ends: each of the 5,473 word-ending pieces is banned next); with <informal>, steps where every row
has just written "▁(" (a word may be glued to it) or "▁(" "vous" (a glued word, banned where it
ends), or where one row has. Process time, cases alternated, median of the rounds:

    python scripts/measure/register_ban_cost.py [calls per round] [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from traductor.model import controls
from traductor.model.constraints import Constraints
from traductor.model.tokenizer import Tokenizer

CHECKPOINTS = Path(__file__).resolve().parents[2] / "server/traductor/checkpoints"
TEXT = {
    "de": "Möchten Sie die Änderungen in diesem Dokument speichern",
    "fr": "Voulez-vous enregistrer les modifications de ce document",
}


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    cases = {}
    for lang, text in TEXT.items():
        tok = Tokenizer(CHECKPOINTS / f"en-{lang}/tokenizer.model", lang)
        c = Constraints(tok.placeholder_ids, tok.eos_id, tok.register_bans)
        out = [tok.encode(text)[0][:-1]] * 32
        tag = {r: tok.sp.piece_to_id(t) for r, t in controls.REGISTERS.items()}
        cases[f"{lang} no register"] = (c, [None] * 32, out)
        cases[f"{lang} informal"] = (c, [tag["informal"]] * 32, out)
        cases[f"{lang} formal"] = (c, [tag["formal"]] * 32, out)
    tu = tok.sp.piece_to_id("▁tu")
    cases["fr formal, 1 after ▁tu"] = (c, [tag["formal"]] * 32, [out[0] + [tu]] + out[1:])
    cases["fr formal, 32 after ▁tu"] = (c, [tag["formal"]] * 32, [o + [tu] for o in out])
    paren, vous = tok.sp.piece_to_id("▁("), tok.sp.piece_to_id("vous")
    cases["fr informal, 32 after ▁("] = (c, [tag["informal"]] * 32, [o + [paren] for o in out])
    cases["fr informal, 1 after ▁( vous"] = (c, [tag["informal"]] * 32, [out[0] + [paren, vous]] + out[1:])
    cases["fr informal, 32 after ▁( vous"] = (c, [tag["informal"]] * 32, [o + [paren, vous] for o in out])
    missing, short = [Counter()] * 32, [False] * 32
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(rounds):
        for k, (c, registers, outputs) in cases.items():
            t0 = time.process_time()
            for _ in range(calls):
                c.banned(missing, short, registers, outputs)
            times[k].append((time.process_time() - t0) / calls * 1e6)
    for k, v in times.items():
        print(f"{k:30s} {statistics.median(v):8.1f} us of CPU a step (32 rows)")


if __name__ == "__main__":
    main()
