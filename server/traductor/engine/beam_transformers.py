"""Beam search as transformers' `generate(num_beams=K)` does it, for one request (imported models).

It differs from the project's own beam search (selection.beam_step), which keeps finished beams
in their rows. Here the K running beams never hold a finished hypothesis:

    every step   the 2K best continuations of the K running beams (sum of log p, fp32);
                 those ending in EOS (or reaching the length limit) and ranked in the first K are
                 offered to the finished set, scored sum log p / generated_length ** length_penalty,
                 which keeps its K best; the K best of the others run on
    stop         when the running beams cannot beat the finished set any more (transformers'
                 heuristic: the best running score over the current length against the worst
                 finished score, once K hypotheses are finished), when all are finished and
                 early_stopping is true, or at the length limit
    result       the best finished hypothesis

Scores stay in fp32, with transformers' -1e9 for beams that may not be chosen, so that the same
log-probabilities choose the same beams. Ties are broken by the lower index. This module knows
numpy only: the scheduler gives it a step's log-probabilities (or, on a device, their 2K best
candidates: `advance`) and reorders the cache rows to the source beams it returns.
"""

from __future__ import annotations

import numpy as np

from ..model.generation import GenerationConfig
from . import selection

BLOCKED = np.float32(-1.0e9)


def _top(x: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values, largest first; ties by the lower index (selection.top, the
    project's search's: a partition, not a sort of the K x V sums)."""
    return selection.top(x[None], k)[0]


class TransformersBeam:
    def __init__(self, k: int, eos_id: int, config: GenerationConfig):
        self.k, self.eos_id = k, eos_id
        self.length_penalty, self.early_stopping = config.length_penalty, config.early_stopping
        self.scores = np.array([0.0] + [BLOCKED] * (k - 1), dtype=np.float32)  # running beams
        self.prefixes = np.zeros((k, 0), dtype=np.int64)
        self.logprobs = np.zeros((k, 0), dtype=np.float32)
        self.finished_scores = np.full(k, BLOCKED, dtype=np.float32)
        self.finished_flags = np.zeros(k, dtype=bool)
        self.finished: list[tuple[list[int], list[float]]] = [([], [])] * k
        self.improvable = True  # transformers' is_early_stop_heuristic_unsatisfied
        self.done = False

    def step(self, logp: np.ndarray, at_limit: bool) -> tuple[np.ndarray, np.ndarray]:
        """logp (K, V) of the running beams (rules applied); `at_limit`: this token is the last one
        allowed. Returns (source beam, token) of the K new running beams, best first."""
        total = (logp.astype(np.float32) + self.scores[:, None]).reshape(-1)
        cand = _top(total, 2 * self.k)
        return self.advance(total[cand], cand, logp.shape[1], at_limit)

    def advance(
        self, cand_scores: np.ndarray, cand: np.ndarray, V: int, at_limit: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """The step from its 2K candidates: their summed scores (fp32) and flat indices (beam * V +
        token) into the (K, V) scores, best first, ties by the lower index (`step` finds them on
        the host, engine/torch_choice.py on a device). Returns what `step` returns."""
        k = self.k
        beam, token = cand // V, cand % V
        hits = (token == self.eos_id) | at_limit
        generated = self.prefixes.shape[1] + 1
        step_logp = cand_scores - self.scores[beam]
        # offer the candidates that finished among the first K to the finished set
        offered = cand_scores / np.float32(generated**self.length_penalty)
        if self.early_stopping and self.finished_flags.all():
            offered = offered + BLOCKED
        if not self.improvable:
            offered = offered + BLOCKED
        offered = offered + np.where(hits & (np.arange(2 * k) < k), np.float32(0), BLOCKED)
        merged = np.concatenate([self.finished_scores, offered])
        keep = _top(merged, k)
        pool = self.finished + [
            (self.prefixes[b].tolist() + [int(t)], self.logprobs[b].tolist() + [float(lp)])
            for b, t, lp in zip(beam, token, step_logp)
        ]
        flags = np.concatenate([self.finished_flags, hits & (np.arange(2 * k) < k)])
        self.finished = [pool[i] for i in keep]
        self.finished_scores, self.finished_flags = merged[keep], flags[keep]
        # the K best unfinished continuations run on
        running = cand_scores + np.where(hits, BLOCKED, np.float32(0))
        chosen = _top(running, k)
        source = beam[chosen]
        self.scores = running[chosen]
        self.prefixes = np.concatenate([self.prefixes[source], token[chosen][:, None]], axis=1)
        self.logprobs = np.concatenate([self.logprobs[source], step_logp[chosen][:, None]], axis=1)
        # can the running beams still beat the finished ones?
        best_possible = self.scores[0] / np.float32(generated**self.length_penalty)
        worst = np.where(self.finished_flags, self.finished_scores.min(), BLOCKED)
        self.improvable = self.improvable and bool((best_possible > worst).any())
        all_finished = self.early_stopping and self.finished_flags.all()
        self.done = not self.improvable or all_finished or bool(hits.all())
        return source, token[chosen]

    def best(self) -> tuple[list[int], list[float], bool]:
        """The best finished hypothesis: its tokens (EOS cut), their log p, whether it ended with EOS."""
        tokens, logprobs = self.finished[0]
        ended = self.eos_id in tokens
        if ended:
            n = tokens.index(self.eos_id)
            tokens, logprobs = tokens[:n], logprobs[:n]
        return tokens, logprobs, ended
