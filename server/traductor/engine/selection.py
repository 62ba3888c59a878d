"""Choosing the next token from a step's logits: greedy, sampling, beam search.

These functions follow the PyTorch reference (traductor/model/generate.py) step for step, so
that the engine gives exactly the reference's tokens: log-softmax first, then EOS suppressed
while fewer than min_new_tokens are out; beams ranked by summed log-probability (equal sums by
the lower index), a finished beam extended by PAD at no cost, the best hypothesis picked by
score / length**1.0.
"""

from __future__ import annotations

import numpy as np

NEG_INF = -np.inf


def log_normalizers(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's max m and log-sum-exp of x - m (keepdims): log_softmax(x) is (x - m) - lse, and
    any entry of it can be made from these alone, op for op the same float32 value."""
    m = x.max(axis=-1, keepdims=True)
    return m, np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def log_softmax(x: np.ndarray) -> np.ndarray:
    m, lse = log_normalizers(x)
    return (x - m) - lse


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


def top(x: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest values of each row of `x` (R, N), largest first, equal values by the
    lower index: np.argsort(-x, kind="stable")[:, :k] without sorting the rows. The k-th value
    found, every value above it is in, and of those equal to it the lowest indices that fill k
    (torch_choice.top, the same on a device)."""
    kth = -np.partition(-x, k - 1, axis=-1)[:, k - 1 : k]
    above, equal = x > kth, x == kth
    need = k - above.sum(axis=-1, keepdims=True)
    take = above | (equal & (np.cumsum(equal, axis=-1) <= need))  # exactly k a row, by index
    index = np.nonzero(take)[1].reshape(len(x), k)
    order = np.lexsort((index, -np.take_along_axis(x, index, -1)), axis=-1)
    return np.take_along_axis(index, order, -1)


def beam_step(
    x: np.ndarray, m: np.ndarray, lse: np.ndarray, scores: np.ndarray, finished: np.ndarray, pad_id: int, k: int
):
    """One beam search step for R requests of K beams each, chosen together.

    x (R, K, V) each beam's next-token scores with the rules applied (banned: -inf), m and lse (R,
    K, 1) their rows' `log_normalizers` taken before the rules; scores (R, K); finished (R, K) bool.
    Returns (new scores (R, k), source beam of each new beam (R, k), token of each new beam (R, k)):
    each request's k best sums score + log p(token) over its K x V, a finished beam going on with
    PAD at no cost, by sum, descending, equal sums by the lower index beam * V + token.

    log p is (x - m) - lse, which only grows with x: the k best of a request are among the k + 1
    largest x of each of its beams. Those are taken first (one partition of each row, no K x V
    sums), and they are the answer when, in every beam, the sum at its (k + 1)-th largest x falls
    strictly below the request's k-th best sum: then nothing else reaches it, not even an equal x
    rounded to an equal log p. A request where that does not hold (sums tied at the boundary, or
    fewer than k finite ones) is chosen over all its K x V sums. Every operation runs along a
    request's own rows, so a request's choice never depends on the others beside it.
    """
    R, K, V = x.shape
    c = min(k + 1, V)
    part = np.argpartition(x, V - c, axis=-1)[..., V - c :]  # (R, K, c): each beam's c largest, any order
    logp = (np.take_along_axis(x, part, -1) - m) - lse
    part[finished], logp[finished] = pad_id, NEG_INF  # a finished beam: PAD at no cost, nothing else
    logp[finished, 0] = 0.0
    total = (scores[..., None] + logp).reshape(R, K * c)
    flat = (np.arange(K)[:, None] * V + part).reshape(R, K * c)
    best = np.lexsort((flat, -total), axis=-1)[:, :k]
    chosen, index = np.take_along_axis(total, best, -1), np.take_along_axis(flat, best, -1)
    kth = chosen[:, -1:]
    bound = np.where(finished, NEG_INF, scores + logp.min(axis=-1))  # each beam's sum at its c-th x
    exact = np.isfinite(kth[:, 0]) & (bound < kth).all(axis=-1)
    for r in np.flatnonzero(~exact):  # over every sum of the request
        full = np.where(finished[r][:, None], NEG_INF, (x[r] - m[r]) - lse[r])
        full[finished[r], pad_id] = 0.0
        sums = (scores[r][:, None] + full).reshape(1, K * V)
        index[r] = top(sums, k)[0]
        chosen[r] = sums[0, index[r]]
    return chosen, index // V, index % V


def best_beam(scores: np.ndarray, lengths: np.ndarray, length_penalty: float = 1.0) -> int:
    return int(np.argmax(scores / np.maximum(lengths, 1) ** length_penalty))


def ranked_beams(scores: np.ndarray, lengths: np.ndarray, length_penalty: float = 1.0) -> list[int]:
    """Every beam, best first as `best_beam` ranks them (ties by the lower index)."""
    return np.argsort(-(scores / np.maximum(lengths, 1) ** length_penalty), kind="stable").tolist()
