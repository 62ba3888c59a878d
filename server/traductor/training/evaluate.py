"""`traductor evaluate`: BLEU, chrF (sacrebleu) and the placeholder preservation rate.

    score          corpus-level BLEU and chrF, placeholders kept (all kinds together)
    by_kind        the same per kind of program (command-line, gtk, kde-qt, other), when the
                   corpus rows carry one (the Debian corpus's fourth column)
    placeholders   kept / total per kind of placeholder (printf, qt, markup, mnemonic, ...)
    common         exact match with the most common human translation of the messages found
                   in the most packages (common.tsv from `traductor corpus`)

It knows nothing about engines: it scores lists of strings.
"""

from __future__ import annotations

from collections import Counter

import sacrebleu

from ..model import placeholders


def placeholder_rate(sources: list[str], hypotheses: list[str]) -> dict:
    kept = total = 0
    for src, hyp in zip(sources, hypotheses):
        k, n = placeholders.preserved(src, hyp)
        kept, total = kept + k, total + n
    return {
        "placeholders": total,
        "placeholders_kept": kept,
        "placeholder_rate": round(kept / total, 4) if total else 1.0,
    }


def placeholder_kinds(sources: list[str], hypotheses: list[str]) -> dict[str, dict]:
    """Per kind of placeholder: how many the sources have and how many the outputs kept."""
    total: Counter = Counter()
    kept: Counter = Counter()
    for src, hyp in zip(sources, hypotheses):
        want = Counter(placeholders.find_kinds(src))
        have = Counter(placeholders.find(hyp))
        for (kind, _value), n in want.items():
            total[kind] += n
        for value in {v for _, v in want}:  # a value is kept as often as the output has it
            budget = have[value]
            for (kind, v), n in sorted(want.items()):
                if v == value:
                    kept[kind] += min(n, budget)
                    budget -= min(n, budget)
    return {k: {"total": total[k], "kept": kept[k], "rate": round(kept[k] / total[k], 4)} for k in sorted(total)}


def score(sources: list[str], hypotheses: list[str], references: list[str]) -> dict:
    return {
        "sentences": len(sources),
        "bleu": round(sacrebleu.corpus_bleu(hypotheses, [references]).score, 2),
        "chrf": round(sacrebleu.corpus_chrf(hypotheses, [references]).score, 2),
        **placeholder_rate(sources, hypotheses),
    }


def score_by_kind(sources: list[str], hypotheses: list[str], references: list[str], kinds: list[str]) -> dict:
    """`score` overall, per kind of program (when `kinds` has any) and per kind of placeholder."""
    out = {**score(sources, hypotheses, references), "placeholder_kinds": placeholder_kinds(sources, hypotheses)}
    if any(kinds):
        out["by_kind"] = {}
        for kind in sorted(set(kinds)):
            rows = [i for i, k in enumerate(kinds) if k == kind]
            out["by_kind"][kind or "unknown"] = score(
                [sources[i] for i in rows], [hypotheses[i] for i in rows], [references[i] for i in rows]
            )
    return out


def common_match(hypotheses: list[str], references: list[str]) -> dict:
    """The share of outputs equal to the most common human translation."""
    same = sum(h.strip() == r.strip() for h, r in zip(hypotheses, references))
    return {
        "messages": len(references),
        "exact": same,
        "exact_rate": round(same / len(references), 4) if references else 0.0,
    }
