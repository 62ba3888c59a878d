"""How much to trust one segment's translation: a number in [0, 1] from what the engine saw.

    signals                  the model's own scores of the tokens it chose (mean log p, the
                             lowest p), the length of the output against the source's, whether
                             the output is the source copied token for token
    confidence(signals)      a logistic model of those, fitted on the project's dev split to tell
                             translations scoring chrF < 40 from those scoring chrF > 70
                             (docs/confidence.md: how it was fitted, how well it separates them on
                             the test splits, and the threshold)
    LOW                      the threshold: under it a translation is `low` (the interfaces mark
                             it for review); each packaged model's scores are shifted so that its
                             own threshold (THRESHOLDS) falls on LOW (`calibration`)

A segment cut short (at the length limit, or stopped looping) has confidence 0, and a segment
with no tokens (nothing came back) too. The engine computes it when a request finishes
(scheduler.py), from the log-probabilities it keeps for every token whether or not the caller
asked for scores. This module knows numbers only: no model, no tokenizer, no text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Fitted by scripts/measure/confidence_fit.py on 2,000 messages of the en-es dev split
# (docs/confidence.md, docs/confidence/en-es.json); the order of WEIGHTS is that of Signals.vector().
WEIGHTS = (5.8836, 0.0737, -0.6758, -3.3715)
BIAS = 4.3518
LENGTH_RATIO = 1.143  # the median output/source length ratio (tokens + 1) on the same split
LOW = 0.75  # under it, a translation needs review: the threshold that told bad from good best there

# Per packaged model (its pair): the threshold that told bad from good best on that model's own dev
# split with the weights above (scripts/measure/confidence_fit.py --threshold-only; the figures in
# docs/confidence.md). An engine of such a model shifts its logit (`calibration`) so that its
# threshold falls on LOW: for every model, under LOW means under its own threshold, and every
# interface flags with LOW alone. A model not listed (imported, retrained, a pair added later) keeps
# the en-es fit as it is until it is measured.
# measured 28 Nov 2026; de-en, en-it, en-pt-BR, en-nl, en-ru on 29 Nov (de-en, fr-en, en-it and en-ru
# again after their retraining)
THRESHOLDS = {
    "en-es": 0.81,
    "en-fr": 0.81,
    "en-de": 0.73,
    "en-it": 0.66,
    "en-pt-BR": 0.61,
    "en-nl": 0.74,
    "en-ru": 0.72,
    "es-en": 0.75,
    "fr-en": 0.50,
    "de-en": 0.75,
}


@dataclass(frozen=True)
class Signals:
    mean_logp: float  # mean log p of the chosen tokens
    min_logp: float  # log p of the least likely chosen token
    length_gap: float  # |log(output/source tokens) - log(LENGTH_RATIO)|
    copy: bool  # the output is the source's tokens, unchanged

    def vector(self) -> tuple[float, float, float, float]:
        return (self.mean_logp, self.min_logp, self.length_gap, float(self.copy))


def signals(source_ids: Sequence[int], tokens: Sequence[int], logprobs: Sequence[float], eos_id: int) -> Signals:
    """The signals of an output (`tokens` and their `logprobs`, EOS excluded) of a source (EOS included)."""
    source = [t for t in source_ids if t != eos_id]
    gap = abs(math.log((len(tokens) + 1) / (len(source) + 1)) - math.log(LENGTH_RATIO))
    return Signals(sum(logprobs) / len(logprobs), min(logprobs), gap, list(tokens) == source)


def score(s: Signals, shift: float = 0.0) -> float:
    """The logistic model's probability that the translation is good (its logit moved by `shift`)."""
    z = BIAS + shift + sum(w * x for w, x in zip(WEIGHTS, s.vector()))
    return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def calibration(pair: str, own: bool = True) -> float:
    """The shift of the logit that puts the THRESHOLDS entry of the model of `pair` ("en-fr") on
    LOW; 0 for a pair not listed or a model that is not the project's own (`own` false: imported)."""
    threshold = THRESHOLDS.get(pair) if own else None
    return 0.0 if threshold is None else round(_logit(LOW) - _logit(threshold), 4)


def bundle_calibration(config) -> float:
    """`calibration` of a bundle's model, from its config (BundleConfig: its languages; an imported
    model's has a tokenizer config of its own)."""
    languages = config.languages
    return calibration(f"{languages.source}-{languages.target}", getattr(config, "tokenizer", None) is None)


def confidence(
    source_ids: Sequence[int],
    tokens: Sequence[int],
    logprobs: Sequence[float],
    eos_id: int,
    cut_short: bool,
    shift: float = 0.0,
) -> float:
    """The segment's confidence (see the module docstring); 0 for a cut-short or empty output.
    `shift`: the model's `calibration`."""
    if cut_short or not tokens or len(logprobs) != len(tokens):
        return 0.0
    return round(score(signals(source_ids, tokens, logprobs, eos_id), shift), 4)


def low(value: float) -> bool:
    return value < LOW
