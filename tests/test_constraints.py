"""The EOS/placeholder rules of model/constraints.py, which every decoder applies."""

from __future__ import annotations

from collections import Counter

import numpy as np

from traductor.model.constraints import Constraints

EOS, PH0, PH1 = 3, 10, 11


def banned_set(c: Constraints, missing, too_short) -> set[tuple[int, int]]:
    rows, cols = c.banned(missing, too_short)
    return set(zip(rows.tolist(), cols.tolist()))


def test_required_and_missing_count_occurrences():
    c = Constraints({PH0, PH1}, EOS)
    need = c.required([5, PH0, 6, PH0, PH1, EOS])
    assert need == Counter({PH0: 2, PH1: 1})
    assert c.missing(need, [2, PH0, 7]) == Counter({PH0: 1, PH1: 1})
    assert c.missing(need, [PH0, PH0, PH1, PH1]) == Counter()


def test_a_placeholder_only_while_the_source_has_an_unused_one_and_eos_after_all():
    c = Constraints({PH0, PH1}, EOS)
    rows = banned_set(c, [Counter({PH0: 1}), Counter()], [False, False])
    # row 0 still owes <ph0>: EOS and <ph1> banned, <ph0> allowed; row 1 owes nothing: both banned, EOS free
    assert rows == {(0, EOS), (0, PH1), (1, PH0), (1, PH1)}


def test_eos_waits_for_min_new_tokens():
    c = Constraints(set(), EOS)
    assert banned_set(c, [Counter(), Counter()], [True, False]) == {(0, EOS)}


def test_apply_sets_exactly_the_banned_entries_to_minus_inf():
    c = Constraints({PH0, PH1}, EOS)
    scores = np.zeros((2, 12))
    c.apply(scores, [Counter({PH1: 1}), Counter()], [False, True])
    assert {tuple(x) for x in np.argwhere(np.isinf(scores)).tolist()} == {
        (0, EOS),
        (0, PH0),
        (1, EOS),
        (1, PH0),
        (1, PH1),
    }
    assert np.isfinite(scores).sum() == 24 - 5
