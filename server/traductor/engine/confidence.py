"""How much to trust one segment's translation: a number in [0, 1] from what the engine saw.

    signals                  the model's own scores of the tokens it chose (mean log p, the
                             lowest p), the length of the output against the source's, whether
                             the output is the source copied token for token
    confidence(signals)      a logistic model of those, fitted on the project's dev split to tell
                             translations scoring chrF < 40 from those scoring chrF > 70
                             (docs/confidence.md: how it was fitted, how well it separates them on
                             the test splits, and the threshold)
    LOW                      the threshold: under it a translation is `low` (the interfaces mark
                             it for review)

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


def score(s: Signals) -> float:
    """The logistic model's probability that the translation is good."""
    z = BIAS + sum(w * x for w, x in zip(WEIGHTS, s.vector()))
    return 1.0 / (1.0 + math.exp(-z)) if z > -60 else 0.0


def confidence(
    source_ids: Sequence[int], tokens: Sequence[int], logprobs: Sequence[float], eos_id: int, cut_short: bool
) -> float:
    """The segment's confidence (see the module docstring); 0 for a cut-short or empty output."""
    if cut_short or not tokens or len(logprobs) != len(tokens):
        return 0.0
    return round(score(signals(source_ids, tokens, logprobs, eos_id)), 4)


def low(value: float) -> bool:
    return value < LOW
