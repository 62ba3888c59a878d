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


def test_a_looping_output_pays_the_placeholders_it_owes_before_it_ends():
    """A row that loops ends (EOS only), unless it still owes placeholders: then only those may
    come next (a URL behind <ph1> is never lost to a loop); another row of the batch is untouched."""
    import torch

    c = Constraints({PH0, PH1}, EOS)
    loop = [20, 21] * 6  # "a b a b ..." past the repeat limit
    for make in (np.zeros, torch.zeros):
        scores = make((3, 30))
        c.apply(scores, [Counter({PH1: 1}), Counter(), Counter()], [False] * 3, [loop, loop, [20, 21, 22]], [4, 4, 4])
        allowed = [set(np.flatnonzero(np.asarray(row) > -np.inf).tolist()) for row in scores]
        assert allowed[0] == {PH1}  # owes <ph1>: that, not EOS
        assert allowed[1] == {EOS}  # owes nothing: EOS only
        assert allowed[2] == set(range(30)) - {PH0, PH1}  # not looping, owes nothing
