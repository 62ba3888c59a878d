"""Fit and measure the segment confidence (engine/confidence.py), and count the loop rule's stops
(model/constraints.py): the figures of docs/confidence.md.

Each message of a split (a `traductor corpus` dev.tsv / test.tsv: source, reference, package,
kind) is cut into segments as the server cuts it (traductor.text.plan), each segment is
translated greedily by a bundle's engine with the loop rule OFF ("before"). Greedy decoding with
the rule gives the same tokens until the rule first applies, so only the segments whose tokens
loop somewhere (model/constraints.py: `looping` on a prefix) are translated again, with the rule
on, for "after" (the script also counts how many of those are not simply the tokens cut where
the loop was found: the rule lets a looping output still give the placeholders it owes).

    fit        on one split (--fit): a logistic model of the signals (confidence.signals) telling
               good messages (chrF > 70) from bad ones (chrF < 40), on the messages of one
               segment; the threshold that maximises recall of bad minus rate of good flagged
    measure    on another (--split): ROC AUC of the confidence for bad vs good, precision and
               recall of "flagged" for bad messages at the threshold, for messages of one segment
               and for every message (a text's confidence: the lowest of its segments'); the
               loop rule's stops and corpus chrF before and after it
    everyday   ordinary sentences far from the models' domain (written for this script): the
               share flagged

    python scripts/measure/confidence_fit.py --bundle server/traductor/models/en-es \\
        --fit work/corpus-es/dev.tsv --split work/corpus-es/test.tsv --limit 2000 \\
        --out docs/confidence/en-es.json
    python scripts/measure/confidence_fit.py --bundle server/traductor/models/en-fr \\
        --split work/corpus-fr/test.tsv --limit 2000 --out docs/confidence/en-fr.json

Without --fit, the weights in engine/confidence.py are measured as they are.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np
import sacrebleu

from traductor.engine import confidence as conf
from traductor.engine.translator import OnnxTranslator
from traductor.model.constraints import Constraints, looping
from traductor.options import DecodingOptions
from traductor.text import plan
from traductor.text.pieces import produced_nothing

GOOD, BAD = 70.0, 40.0

# Ordinary sentences, far from program messages (written for this script).
EVERYDAY = [
    "My grandmother baked an apple pie for the whole family.",
    "The train to the coast leaves at seven in the morning.",
    "We spent the afternoon walking along the river.",
    "Could you pass me the salt, please?",
    "The children are playing football in the park.",
    "It rained all weekend, so we stayed at home and read books.",
    "She bought a red dress for her sister's wedding.",
    "The museum is closed on Mondays.",
    "I have never seen so many stars in the sky.",
    "He forgot his umbrella on the bus again.",
    "Our neighbours have a small dog that barks at night.",
    "The soup needs a little more pepper.",
    "They are going to paint the kitchen yellow.",
    "The doctor told him to drink more water.",
    "We watched the sunset from the top of the hill.",
    "The bakery on the corner sells fresh bread every morning.",
    "My brother is learning to play the guitar.",
    "The old bridge was built more than two hundred years ago.",
    "Please remember to water the plants while I am away.",
    "The cat fell asleep on the warm windowsill.",
    "Tomorrow we will visit our cousins in the village.",
    "The teacher read a story to the class before lunch.",
    "I lost my keys somewhere in the garden.",
    "The fishermen came back with an empty boat.",
    "Her favourite season is autumn, when the leaves change colour.",
    "The wedding cake had three layers of chocolate.",
    "He wakes up early to run before work.",
    "The market is full of oranges and lemons in winter.",
    "We laughed so much that our stomachs hurt.",
    "The baby smiled at her grandfather for the first time.",
    "Thank you for the flowers, they are beautiful.",
    "The mountain road is dangerous when it snows.",
    "My aunt sings in the church choir on Sundays.",
    "The kids built a sandcastle near the waves.",
    "Dinner will be ready in half an hour.",
    "The farmer sold his cows at the spring fair.",
    "I would like a cup of tea with milk.",
    "The horse jumped over the fence and ran away.",
    "We need to buy potatoes, onions and carrots.",
    "The library gave me a card with my name on it.",
]


def read_split(path: Path, limit: int, seed: int) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 2 and cols[0].strip() and cols[1].strip():
            rows.append((cols[0], cols[1]))
    if limit and len(rows) > limit:
        rows = random.Random(seed).sample(rows, limit)
    return rows


class Run:
    """Segments of texts through the engine, loop rule off; per segment the outputs without and
    with the rule, and the signals of the latter."""

    def __init__(self, bundle: str, threads: int = 0):
        self.translator = OnnxTranslator.load(bundle, threads=threads, max_rows=32)
        self.tok = self.translator.tokenizer
        self.constraints = Constraints(self.tok.placeholder_ids, self.tok.eos_id)

    def texts(self, texts: list[str]) -> list[dict]:
        plans = [plan(t, language=self.translator.source_language) for t in texts]
        segments = [s.text for p in plans for s in p.segments]
        encoded = [self.tok.encode(s) for s in segments]
        limit = self.translator.bundle.max_len
        sources = [ids[:limit] for ids, _ in encoded]
        values = [v for _, v in encoded]
        options = DecodingOptions(return_scores=True, stop_loops=False)
        events = self.translator.generate(sources, options, batch_size=32, values=values)
        segs = [self._segment(s, v, e) for s, v, e in zip(sources, values, events)]
        stopped = [k for k, s in enumerate(segs) if s["stopped"]]
        if stopped:  # with the rule on: "after"
            again = self.translator.generate(
                [sources[k] for k in stopped], DecodingOptions(return_scores=True), 32, [values[k] for k in stopped]
            )
            for k, e in zip(stopped, again):
                s = segs[k]
                s["not_the_cut"] = e.token_ids != s["tokens"]
                s.update(tokens=list(e.token_ids), logprobs=list(e.logprobs), reason=e.reason.value, after=e.text)
                s["cut"] = True
        out, k = [], 0
        for p in plans:
            mine, k = segs[k : k + len(p.segments)], k + len(p.segments)
            before, after = p.assemble([s["before"] for s in mine]), p.assemble([s["after"] for s in mine])
            out.append({"before": before, "after": after, "segments": mine})
        return self.rescore(out)

    def rescore(self, items: list[dict]) -> list[dict]:
        """Signals and confidence of every segment, and each text's, under the module's current weights."""
        eos = self.tok.eos_id
        for it in items:
            for s in it["segments"]:
                s["signals"] = conf.signals(s["source_ids"], s["tokens"], s["logprobs"], eos) if s["tokens"] else None
                s["confidence"] = (
                    0.0 if s["cut"] else conf.confidence(s["source_ids"], s["tokens"], s["logprobs"], eos, False)
                )
            it["confidence"] = min((s["confidence"] for s in it["segments"]), default=1.0)
        return items

    def _segment(self, source: list[int], values: list[str], event) -> dict:
        limit = self.constraints.repeat_limit(source)
        tokens, logprobs = list(event.token_ids), list(event.logprobs)
        stop = next((n for n in range(1, len(tokens) + 1) if looping(tokens[:n], limit)), None)
        reason = event.reason.value
        if stop is not None:
            tokens, logprobs, reason = tokens[:stop], logprobs[:stop], "loop"
        after = self.tok.decode(tokens, values)
        return {
            "before": event.text,
            "after": after,
            "reason": reason,
            "stopped": stop is not None,
            "source_ids": source,
            "tokens": tokens,
            "logprobs": logprobs,
            # confidence 0 by rule: cut short, or nothing came back (the server keeps the source)
            "cut": reason in ("length", "loop") or produced_nothing(after) or not tokens,
        }


def chrf(hyp: str, ref: str) -> float:
    return sacrebleu.sentence_chrf(hyp, [ref]).score


def labelled(items: list[dict], refs: list[str], single: bool) -> tuple[list[dict], np.ndarray]:
    """The messages labelled good (1) or bad (0) by chrF; the middle left out."""
    keep, labels = [], []
    for it, ref in zip(items, refs):
        if single and len(it["segments"]) != 1:
            continue
        score = chrf(it["after"], ref)
        if score > GOOD or score < BAD:
            keep.append(it)
            labels.append(score > GOOD)
    return keep, np.array(labels, dtype=float)


def fit(items: list[dict], labels: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression (Newton's method, a little L2) on the segments' signals; cut-short
    segments are left out (their confidence is 0 by rule)."""
    rows = [(it["segments"][0]["signals"], y) for it, y in zip(items, labels) if not it["segments"][0]["cut"]]
    X = np.array([s.vector() for s, _ in rows])
    y = np.array([y for _, y in rows])
    X1 = np.hstack([X, np.ones((len(X), 1))])
    w = np.zeros(X1.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-X1 @ w))
        grad = X1.T @ (p - y) + 1e-3 * w
        hess = (X1.T * (p * (1 - p))) @ X1 + 1e-3 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w[:-1], float(w[-1])


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC of `scores` for telling good (1) from bad (0): ties count half."""
    good, bad = scores[labels == 1], scores[labels == 0]
    if not len(good) or not len(bad):
        return float("nan")
    wins = (good[:, None] > bad[None, :]).sum() + 0.5 * (good[:, None] == bad[None, :]).sum()
    return float(wins / (len(good) * len(bad)))


def flag_stats(scores: np.ndarray, labels: np.ndarray, threshold: float) -> dict:
    flagged = scores < threshold
    bad = labels == 0
    tp = int((flagged & bad).sum())
    return {
        "bad": int(bad.sum()),
        "good": int((~bad).sum()),
        "flagged": int(flagged.sum()),
        "bad_flagged": tp,
        "good_flagged": int((flagged & ~bad).sum()),
        "precision": round(tp / max(1, int(flagged.sum())), 3),
        "recall": round(tp / max(1, int(bad.sum())), 3),
    }


def choose_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold that maximises (bad flagged / bad) - (good flagged / good)."""
    best, chosen = -1.0, 0.5
    for t in np.round(np.arange(0.05, 0.96, 0.01), 2):
        flagged = scores < t
        j = flagged[labels == 0].mean() - flagged[labels == 1].mean()
        if j > best:
            best, chosen = j, float(t)
    return chosen


def measure(run: Run, rows: list[tuple[str, str]], threshold: float) -> dict:
    sources, refs = [s for s, _ in rows], [r for _, r in rows]
    items = run.texts(sources)
    segments = [s for it in items for s in it["segments"]]
    out = {
        "messages": len(items),
        "segments": len(segments),
        "loop_rule": {
            "segments_stopped": sum(s["stopped"] for s in segments),
            "messages_changed": sum(it["before"] != it["after"] for it in items),
            "chrf_before": round(sacrebleu.corpus_chrf([it["before"] for it in items], [refs]).score, 2),
            "chrf_after": round(sacrebleu.corpus_chrf([it["after"] for it in items], [refs]).score, 2),
            "references_that_loop": sum(
                looping(run.tok.encode(r)[0][:-1], run.constraints.repeat_limit(run.tok.encode(s)[0])) for s, r in rows
            ),
            "stopped_examples": [
                {"source": s, "before": it["before"], "after": it["after"]}
                for (s, _), it in zip(rows, items)
                if it["before"] != it["after"]
            ][:10],
        },
    }
    out["loop_rule"]["stopped_not_just_cut"] = sum(s.get("not_the_cut", False) for s in segments)
    for name, single in (("one_segment", True), ("all", False)):
        kept, labels = labelled(items, refs, single)
        scores = np.array([it["confidence"] for it in kept])
        out[name] = {"auc": round(auc(scores, labels), 3), **flag_stats(scores, labels, threshold)}
        if not single:  # what other thresholds would give
            out[name]["thresholds"] = {t: flag_stats(scores, labels, t) for t in (0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9)}
    out["flagged_all_messages"] = round(float(np.mean([it["confidence"] < threshold for it in items])), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--fit", type=Path, help="split to fit the weights and threshold on")
    ap.add_argument("--split", type=Path, help="split to measure on")
    ap.add_argument("--limit", type=int, default=2000, help="messages drawn from each split (0: all)")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--threshold-only", action="store_true", help="with --fit: keep the weights, choose the threshold")
    ap.add_argument("--threads", type=int, default=0, help="ONNX Runtime threads (0: all cores)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    run = Run(args.bundle, args.threads)
    report: dict = {"bundle": args.bundle, "good_chrf_above": GOOD, "bad_chrf_below": BAD}
    if args.fit:
        rows = read_split(args.fit, args.limit, args.seed)
        items = run.texts([s for s, _ in rows])
        ratios = [
            (len(s["tokens"]) + 1) / (len([t for t in s["source_ids"] if t != run.tok.eos_id]) + 1)
            for it in items
            for s in it["segments"]
            if not s["cut"]
        ]
        if not args.threshold_only:
            conf.LENGTH_RATIO = round(float(np.median(ratios)), 3)  # the signals read it: set it first
            run.rescore(items)
        kept, labels = labelled(items, [r for _, r in rows], single=True)
        if not args.threshold_only:
            weights, bias = fit(kept, labels)
            conf.WEIGHTS, conf.BIAS = tuple(round(float(w), 4) for w in weights), round(bias, 4)
            run.rescore(items)
        scores = np.array([it["confidence"] for it in kept])
        conf.LOW = choose_threshold(scores, labels)
        report["fit"] = {
            "split": str(args.fit),
            "messages": len(rows),
            "labelled_one_segment": len(kept),
            "weights": conf.WEIGHTS,
            "bias": conf.BIAS,
            "length_ratio": conf.LENGTH_RATIO,
            "median_length_ratio": round(float(np.median(ratios)), 3),
            "threshold_only": args.threshold_only,
            "threshold": conf.LOW,
            "auc": round(auc(scores, labels), 3),
        }
        print(json.dumps(report["fit"]), file=sys.stderr)
    report["weights"] = {"weights": conf.WEIGHTS, "bias": conf.BIAS, "length_ratio": conf.LENGTH_RATIO, "low": conf.LOW}
    if args.split:
        rows = read_split(args.split, args.limit, args.seed)
        report["measure"] = {"split": str(args.split), **measure(run, rows, conf.LOW)}
    if run.translator.source_language != "en":  # the everyday sentences are English
        finish(report, args.out)
        return
    everyday = run.texts(EVERYDAY)
    report["everyday"] = {
        "sentences": len(EVERYDAY),
        "flagged": sum(it["confidence"] < conf.LOW for it in everyday),
        "stopped_looping": sum(s["stopped"] for it in everyday for s in it["segments"]),
        "examples": [
            {"source": s, "translation": it["after"], "confidence": round(it["confidence"], 3)}
            for s, it in zip(EVERYDAY[:8], everyday)
        ],
    }
    finish(report, args.out)


def finish(report: dict, out: Path | None) -> None:
    text = json.dumps(report, indent=1, ensure_ascii=False, default=str)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
