"""`traductor evaluate`: BLEU, chrF (sacrebleu) and the placeholder preservation rate."""

from __future__ import annotations

import sacrebleu

from ..model import placeholders


def placeholder_rate(sources: list[str], hypotheses: list[str]) -> dict:
    kept = total = 0
    for src, hyp in zip(sources, hypotheses):
        k, n = placeholders.preserved(src, hyp)
        kept, total = kept + k, total + n
    return {"placeholders": total, "placeholders_kept": kept, "placeholder_rate": round(kept / total, 4) if total else 1.0}


def score(sources: list[str], hypotheses: list[str], references: list[str]) -> dict:
    return {
        "sentences": len(sources),
        "bleu": round(sacrebleu.corpus_bleu(hypotheses, [references]).score, 2),
        "chrf": round(sacrebleu.corpus_chrf(hypotheses, [references]).score, 2),
        **placeholder_rate(sources, hypotheses),
    }
