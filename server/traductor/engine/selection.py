"""Choosing the next token from a step's logits: greedy, sampling, beam search.

These functions follow the PyTorch reference (traductor/model/generate.py) step for step, so
that the engine gives exactly the reference's tokens: log-softmax first, then EOS suppressed
while fewer than min_new_tokens are out; beams ranked by summed log-probability, a finished
beam extended by PAD at no cost, the best hypothesis picked by score / length**1.0.
"""

from __future__ import annotations

import numpy as np

NEG_INF = -np.inf


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    shifted = x - m
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def token_logprobs(logits: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """log p(token) under each row's softmax, without materialising the full log-softmax.
    Overwrites `logits` (the caller's scratch copy): the engine computes this every step."""
    m = logits.max(axis=-1)
    chosen = logits[np.arange(len(tokens)), tokens] - m
    np.subtract(logits, m[:, None], out=logits)
    np.exp(logits, out=logits)
    return chosen - np.log(logits.sum(axis=-1))


def row_normalizers(logits: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's max and sum of exp(logit - max), for `token_logprobs_from` once the chosen
    tokens are known; `logits` is only read. Row by row through one scratch row, so that a wide
    vocabulary (256k tokens: 1 MB a row) is read in place, not copied, and the scratch stays in
    the core's cache; each row's sums are those `token_logprobs` takes (the same float32 ops in
    the same order), and a row's result never depends on the other rows."""
    m = np.empty(len(rows), dtype=logits.dtype)
    total = np.empty(len(rows), dtype=logits.dtype)
    scratch = np.empty(logits.shape[-1], dtype=logits.dtype)
    for i, row in enumerate(rows.tolist()):
        x = logits[row]
        m[i] = x.max()
        np.subtract(x, m[i], out=scratch)
        np.exp(scratch, out=scratch)
        total[i] = scratch.sum()
    return m, total


def token_logprobs_from(chosen: np.ndarray, m: np.ndarray, total: np.ndarray) -> np.ndarray:
    """log p of tokens whose logits are `chosen`, from their rows' `row_normalizers`: equal to
    `token_logprobs` on the same rows."""
    return (chosen - m) - np.log(total)


def sample(logits: np.ndarray, temperature: float, top_k: int, top_p: float, rng: np.random.Generator) -> int:
    """One token from one row: temperature, then top-k, then nucleus (top-p) filtering."""
    x = logits.astype(np.float64) / temperature
    if 0 < top_k < x.shape[-1]:
        kth = np.partition(x, -top_k)[-top_k]
        x = np.where(x < kth, NEG_INF, x)
    p = np.exp(x - x.max())
    p /= p.sum()
    if top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        cum = np.cumsum(p[order])
        keep = order[: int(np.searchsorted(cum, top_p)) + 1]
        q = np.zeros_like(p)
        q[keep] = p[keep]
        p = q / q.sum()
    cdf = np.cumsum(p)
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(p) - 1))


def beam_step(logp: np.ndarray, scores: np.ndarray, finished: np.ndarray, pad_id: int, k: int):
    """One beam search step for R requests of K beams each, chosen together.

    logp (R, K, V) log-probabilities of each beam's next token; scores (R, K); finished (R, K) bool.
    Returns (new scores (R, k), source beam of each new beam (R, k), token of each new beam (R, k)),
    each request's by score, descending, ties by the lower index. Every operation runs along a
    request's own K x V sums, so a request's choice never depends on the others beside it.
    """
    R, K, V = logp.shape
    if finished.any():  # a finished beam goes on with PAD at no cost
        frozen = np.full(V, NEG_INF, dtype=logp.dtype)
        frozen[pad_id] = 0.0
        logp = np.where(finished[..., None], frozen, logp)
    total = (scores[..., None] + logp).reshape(R, K * V)
    top = np.argpartition(-total, k - 1, axis=-1)[:, :k]
    order = np.lexsort((top, -np.take_along_axis(total, top, -1)), axis=-1)
    top = np.take_along_axis(top, order, -1)
    return np.take_along_axis(total, top, -1), top // V, top % V


def best_beam(scores: np.ndarray, lengths: np.ndarray, length_penalty: float = 1.0) -> int:
    return int(np.argmax(scores / np.maximum(lengths, 1) ** length_penalty))


def ranked_beams(scores: np.ndarray, lengths: np.ndarray, length_penalty: float = 1.0) -> list[int]:
    """Every beam, best first as `best_beam` ranks them (ties by the lower index)."""
    return np.argsort(-(scores / np.maximum(lengths, 1) ** length_penalty), kind="stable").tolist()
