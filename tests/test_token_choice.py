"""The plain requests' token choice (engine/decoding.choose_plain) reads a wide vocabulary's logits
in place (issue 46): each row's softmax normalizer before the masking, the chosen token's logit
after it. Its log p must be exactly those of the algorithm it replaced (copy the rows, mask,
choose, log p of the choice under the copy's softmax), for every kind of row the rules treat apart."""

from __future__ import annotations

import types
from collections import Counter

import numpy as np
import pytest

from traductor.engine import decoding, selection
from traductor.model.constraints import Constraints
from traductor.model.generation import GenerationConfig
from traductor.options import DecodingOptions

EOS, PLACEHOLDERS, V = 3, (4, 5, 6), 50


def check(plain, logits, n_rows, constraints, generation=None):
    """choose_plain's choice, and its log p against the copying algorithm's: log p of each chosen
    token under the softmax of an unmasked copy of its row (selection.token_logprobs), bit for bit."""
    rows = [r.state.rows[0] for r in plain]
    original = logits[rows]  # a copy, before choose_plain masks `logits`
    got = decoding.choose_plain(plain, logits, n_rows, constraints, generation)
    tokens = np.array([t for t, _ in got])
    assert [lp for _, lp in got] == selection.token_logprobs(original, tokens).tolist()
    return got


def request(row, tokens=(), missing=(), min_new=0, max_new=20, temperature=0.0, forced_first=None, seed=0):
    state = types.SimpleNamespace(
        rows=[row],
        tokens=list(tokens),
        missing=Counter(missing),
        repeat_limit=3,
        register=None,
        rng=np.random.default_rng(seed) if temperature else None,
    )
    options = DecodingOptions(max_new_tokens=max_new, min_new_tokens=min_new, temperature=temperature)
    return types.SimpleNamespace(state=state, options=options, forced_first=forced_first)


def requests(rows):
    """One request of each kind the masking treats apart, on the given rows."""
    kinds = [
        dict(tokens=[9, 10]),  # plain
        dict(tokens=[9], min_new=5),  # too short: EOS banned
        dict(tokens=[9], missing=[5]),  # owes a placeholder: EOS banned, that placeholder allowed
        dict(tokens=[7, 8] * 4),  # loops: EOS is all it may produce
        dict(tokens=[7, 8] * 4, missing=[4]),  # loops and owes: the placeholder only
        dict(tokens=[], forced_first=12),  # an imported model's forced first token (scores 0)
        dict(tokens=list(range(10, 29))),  # at its length limit (forced EOS when the model says so)
        dict(tokens=[9, 11], temperature=0.8, seed=7),  # sampling
    ]
    return [request(row, **kinds[i % len(kinds)]) for i, row in enumerate(rows)]


@pytest.mark.parametrize("generation", [None, GenerationConfig(suppressed_ids=(7, 20), forced_eos_at_limit=True)])
@pytest.mark.parametrize("rows", [[0], list(range(8)), [5, 0, 3, 7, 1, 2, 6, 4], [9, 2, 11]])
def test_same_choice_and_logprobs_as_the_copying_algorithm(rows, generation):
    rng = np.random.default_rng(len(rows))
    constraints = Constraints(PLACEHOLDERS, EOS)
    n_rows = max(rows) + 1
    for _ in range(5):
        logits = (rng.standard_normal((n_rows, V)) * 4).astype(np.float32)
        logits[:, 13] = logits[:, 14]  # ties
        plain = requests(rows)
        got = check(plain, logits.copy(), n_rows, constraints, generation)
        masked = logits.copy()
        decoding.choose_plain(requests(rows), masked, n_rows, constraints, generation)
        for r, (token, _) in zip(plain, got):
            if not r.options.sampling:  # greedy: the first best of the masked row
                assert token == int(np.argmax(masked[r.state.rows[0]]))


def test_a_row_masked_whole_reports_the_original_logit_of_token_0():
    """Every token banned (suppressed by the model's rules, EOS banned as too short): argmax 0,
    log p from token 0's original logit, as the copying algorithm did."""
    constraints = Constraints(PLACEHOLDERS, EOS)
    generation = GenerationConfig(suppressed_ids=tuple(i for i in range(V) if i != EOS))
    logits = np.random.default_rng(1).standard_normal((2, V)).astype(np.float32)
    plain = [request(0, tokens=[9], min_new=5), request(1, tokens=[9])]
    got = check(plain, logits.copy(), 2, constraints, generation)
    assert got[0][0] == 0 and got[1][0] == EOS and np.isfinite(got[0][1])


def test_a_rows_logprob_does_not_depend_on_the_other_rows():
    """Batch invariance: the same row's (token, log p) alone and among others."""
    constraints = Constraints(PLACEHOLDERS, EOS)
    rng = np.random.default_rng(3)
    row = (rng.standard_normal(V) * 3).astype(np.float32)
    alone = decoding.choose_plain([request(0, tokens=[9])], row[None].copy(), 1, constraints)
    others = (rng.standard_normal((6, V)) * 3).astype(np.float32)
    batch = np.concatenate([others[:4], row[None], others[4:]])
    together = decoding.choose_plain([request(i, tokens=[9]) for i in range(7)], batch, 7, constraints)
    assert together[4] == alone[0]


def test_row_normalizers_equal_the_full_log_softmax():
    x = (np.random.default_rng(4).standard_normal((3, 1000)) * 5).astype(np.float32)
    tokens = np.array([5, 999, 0])
    m, total = selection.row_normalizers(x, np.arange(3))
    want = selection.log_softmax(x.astype(np.float64))[np.arange(3), tokens]
    got = selection.token_logprobs_from(x[np.arange(3), tokens], m, total)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
    assert np.array_equal(got, selection.token_logprobs(x.copy(), tokens))


def _beam_step_over_every_sum(raw, banned, scores, finished, pad_id, k):
    """The project's beam step written out: log-softmax of the raw rows, the rules' -inf, a finished
    beam going on with PAD only, then the k best of the K x V sums, ties by the lower index."""
    K, V = raw.shape
    logp = selection.log_softmax(raw)
    logp[banned] = -np.inf
    logp[finished] = -np.inf
    logp[finished, pad_id] = 0.0
    sums = (scores[:, None] + logp).reshape(-1)
    best = np.argsort(-sums, kind="stable")[:k]
    return sums[best], best // V, best % V


def test_the_beam_step_equals_every_sum_ranked_whatever_the_ties_and_the_requests_beside():
    """selection.beam_step takes each beam's k + 1 largest scores first and goes over every sum only
    where those cannot prove the answer; its choice is the K x V sums' k best (ties by the lower
    index), for each request alone and for the requests together."""
    rng = np.random.default_rng(11)
    K, V, pad = 4, 50, 0
    cases = []
    for case in range(300):
        if case % 3 == 0:  # few distinct values: ties everywhere, across the k-th place too
            raw = rng.integers(-2, 2, (K, V)).astype(np.float32)
        else:
            raw = rng.normal(size=(K, V)).astype(np.float32)
        x = raw.copy()
        x[rng.random((K, V)) < 0.3] = -np.inf  # the rules' bans
        if case % 5 == 0:
            x[rng.integers(K)] = -np.inf
            row = rng.integers(K)
            x[row] = np.where(np.arange(V) == 2, raw[row, 2], -np.inf)  # the loop rule: EOS only
        scores = rng.choice([0.0, -1.0, -2.5, -np.inf], K)
        if case % 4 == 0:
            scores = np.round(scores)  # equal scores: equal sums between beams
        finished = rng.random(K) < 0.3
        cases.append((raw, x, scores, finished))
        want = _beam_step_over_every_sum(raw, np.isneginf(x), scores, finished, pad, K)
        m, lse = selection.log_normalizers(raw)
        got = selection.beam_step(x[None], m[None], lse[None], scores[None], finished[None], pad, K)
        finite = np.isfinite(want[0])
        assert np.array_equal(got[0][0], want[0]), case
        assert np.array_equal(got[1][0][finite], want[1][finite]) and np.array_equal(got[2][0][finite], want[2][finite])
    raws, xs, scores, finished = (np.stack(parts) for parts in zip(*cases))
    m, lse = selection.log_normalizers(raws)
    together = selection.beam_step(xs, m, lse, scores, finished, pad, K)
    for i, (raw, x, s, f) in enumerate(cases):
        mi, li = selection.log_normalizers(raw)
        alone = selection.beam_step(x[None], mi[None], li[None], s[None], f[None], pad, K)
        assert all(np.array_equal(a[0], t[i]) for a, t in zip(alone, together)), i
