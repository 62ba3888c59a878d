"""KVCache: rows stay packed, their data survives removals, growth and beam reordering."""

from __future__ import annotations

import random

import numpy as np
import pytest

from traductor.engine import cache as cache_module
from traductor.engine.cache import MIN_N, MIN_T, KVCache

L, H, DK = 2, 2, 3


def cross_for(values: list[float], n: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Cross K/V for len(values) sources of length n, every entry of source j equal to values[j]
    (plus the layer index, so layers differ); the last position of each source is padding."""
    base = np.asarray(values, np.float32)[:, None, None, None] * np.ones((1, H, n, DK), np.float32)
    cross = [base + i for i in range(2 * L)]
    padding = np.zeros((len(values), n), bool)
    padding[:, -1] = True
    return cross, padding


def row_value(cache: KVCache, row: int) -> float:
    """The value a row's cross K/V was filled with (see cross_for), checked to be uniform."""
    block = cache.cross_kv[0, row, :, :1]
    assert np.all(block == block.flat[0])
    return float(block.flat[0])


def write_self(cache: KVCache, value_of_row: dict[int, float], position: int) -> None:
    """Append one self-attention entry per row at `position`, equal to the row's value."""
    B = cache.rows
    new = np.zeros((2 * L, B, H, 1, DK), np.float32)
    for row, v in value_of_row.items():
        new[:, row] = v
    cache.ensure_positions(position)
    cache.append(new, np.full(B, position))


def test_add_rows_places_sources_and_copies():
    """Each source's K/V lands in its rows (repeated for beams); padding past the source is True."""
    cache = KVCache(L, H, DK, max_rows=8)
    cross, padding = cross_for([1.0, 2.0], n=5)
    assert cache.add_rows(cross, padding, [1, 3]) == [0, 1, 2, 3]
    assert cache.rows == 4
    assert [row_value(cache, r) for r in range(4)] == [1.0, 2.0, 2.0, 2.0]
    for i in range(2 * L):
        assert np.all(cache.cross_kv[i, :4, :, :5] == np.array([1, 2, 2, 2])[:, None, None, None] + i)
        assert np.all(cache.cross_kv[i, :4, :, 5:] == 0)
    assert cache.padding[:4, :4].sum() == 0 and cache.padding[:4, 4:].all()
    cross, padding = cross_for([7.0], n=3)
    assert cache.add_rows(cross, padding, [2]) == [4, 5]
    with pytest.raises(ValueError, match="no free rows"):
        cache.add_rows(*cross_for([8.0, 9.0], n=2), [2, 1])


def test_views_are_zero_copy_and_packed():
    """views() are slices of the buffers covering exactly the active rows."""
    cache = KVCache(L, H, DK, max_rows=4)
    cache.add_rows(*cross_for([1.0, 2.0], 4), [1, 1])
    past, cross, padding = cache.views()
    assert len(past) == len(cross) == 2 * L
    assert past[0].shape == (2, H, MIN_T, DK) and cross[0].shape == (2, H, MIN_N, DK) and padding.shape == (2, MIN_N)
    assert all(np.shares_memory(p, cache.self_kv) and p.flags.c_contiguous for p in past)
    assert all(np.shares_memory(c, cache.cross_kv) and c.flags.c_contiguous for c in cross)


def test_append_writes_each_row_at_its_position():
    """Row b's new K/V goes to positions[b] and nowhere else."""
    cache = KVCache(L, H, DK, max_rows=4)
    cache.add_rows(*cross_for([1.0, 2.0, 3.0], 4), [1, 1, 1])
    new = np.arange(1, 4, dtype=np.float32)[None, :, None, None, None] * np.ones((2 * L, 3, H, 1, DK), np.float32)
    new += np.arange(2 * L, dtype=np.float32)[:, None, None, None, None] * 10
    cache.append(new, np.array([0, 5, 2]))
    for b, pos in enumerate([0, 5, 2]):
        for i in range(2 * L):
            assert np.all(cache.self_kv[i, b, :, pos] == b + 1 + 10 * i)
            others = np.delete(cache.self_kv[i, b], pos, axis=1)
            assert np.all(others == 0)


def test_remove_rows_keeps_remaining_data_and_reports_moves():
    """Removing rows fills holes from the end; every surviving row's data is where the moves say."""
    cache = KVCache(L, H, DK, max_rows=8)
    values = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    cache.add_rows(*cross_for(values, 4), [1] * 6)
    write_self(cache, {r: values[r] for r in range(6)}, position=3)
    moves = cache.remove_rows([1, 4])
    assert cache.rows == 4
    assert moves == {5: 1}  # 4 is freed, so only row 5 moves (into 1)
    where = {r: moves.get(r, r) for r in (0, 2, 3, 5)}
    for old, new in where.items():
        assert row_value(cache, new) == values[old]
        assert np.all(cache.self_kv[:, new, :, 3] == values[old])
        assert cache.padding[new, :3].sum() == 0 and cache.padding[new, 3]


def test_remove_rows_resolves_chains():
    """A row moved into a hole that is itself freed later in the same call is reported at its final row."""
    cache = KVCache(L, H, DK, max_rows=8)
    values = [0.0, 1.0, 2.0, 3.0, 4.0]
    cache.add_rows(*cross_for(values, 2), [1] * 5)
    moves = cache.remove_rows([2, 3])  # 4 -> 3, then 3 -> 2
    assert moves == {4: 2}
    assert [row_value(cache, r) for r in range(cache.rows)] == [0.0, 1.0, 4.0]


def test_remove_rows_random_against_a_model():
    """Random admissions and removals: the cache always holds exactly the live rows' data."""
    rng = random.Random(0)
    cache = KVCache(L, H, DK, max_rows=12)
    live: dict[float, int] = {}  # value -> row
    counter = 0.0
    for _ in range(200):
        if live and (rng.random() < 0.45 or cache.rows > 9):
            gone = rng.sample(sorted(live), rng.randint(1, min(3, len(live))))
            moves = cache.remove_rows([live[v] for v in gone])
            for v in gone:
                del live[v]
            live = {v: moves.get(r, r) for v, r in live.items()}
        else:
            k = rng.randint(1, 3)
            vals = [counter + i + 1 for i in range(k)]
            counter += k
            rows = cache.add_rows(*cross_for(vals, rng.randint(1, 40)), [1] * k)
            live.update(zip(vals, rows))
        assert cache.rows == len(live)
        assert sorted(live.values()) == list(range(cache.rows))
        for v, r in live.items():
            assert row_value(cache, r) == v


def test_growth_of_n_and_t_preserves_data():
    """A longer source doubles N and a later position doubles T; earlier rows keep their data and padding."""
    cache = KVCache(L, H, DK, max_rows=4)
    cache.add_rows(*cross_for([1.0], 5), [1])
    write_self(cache, {0: 1.0}, position=0)
    cache.add_rows(*cross_for([2.0], 40), [1])
    assert cache.N == 64
    assert row_value(cache, 0) == 1.0 and row_value(cache, 1) == 2.0
    assert np.all(cache.cross_kv[:, 0, :, 5:] == 0) and cache.padding[0, 4:].all() and not cache.padding[0, :4].any()
    assert not cache.padding[1, :39].any() and cache.padding[1, 39:].all()
    write_self(cache, {0: 5.0, 1: 6.0}, position=MIN_T + 3)
    assert cache.T == 2 * MIN_T
    assert np.all(cache.self_kv[:, 0, :, 0] == 1.0)
    assert np.all(cache.self_kv[:, 0, :, MIN_T + 3] == 5.0) and np.all(cache.self_kv[:, 1, :, MIN_T + 3] == 6.0)


def test_shrinks_back_when_empty():
    """When the last row leaves, T and N go back to their minimum."""
    cache = KVCache(L, H, DK, max_rows=2)
    cache.add_rows(*cross_for([1.0], 50), [1])
    cache.ensure_positions(40)
    assert (cache.T, cache.N) == (64, 64)
    assert cache.remove_rows([0]) == {}
    assert (cache.rows, cache.T, cache.N) == (0, MIN_T, MIN_N)


def test_memory_is_kept_and_cleared_when_the_batch_empties_and_grows_again():
    """The second fill of an emptied cache lands in the memory of the first (nothing allocated
    again), and a new row sees none of the old rows' data: zeros, padding past its source."""
    cache = KVCache(L, H, DK, max_rows=2)
    seen = []
    for value in (1.0, 2.0):
        cache.add_rows(*cross_for([value, value], 40), [1, 1])
        assert np.all(cache.self_kv == 0) and np.all(cache.cross_kv[:, :, :, 40:] == 0)
        assert cache.padding[:, 39:].all() and not cache.padding[:, :39].any()
        write_self(cache, {0: value, 1: value}, position=0)
        write_self(cache, {0: value, 1: value}, position=MIN_T + 3)
        assert np.all(cache.self_kv[:, :, :, 1 : MIN_T + 3] == 0)
        buffers = (cache.self_kv, cache.cross_kv, cache.padding)
        if value == 1.0:
            seen = buffers
        else:
            assert all(np.shares_memory(new, old) for new, old in zip(buffers, seen, strict=True))
        cache.remove_rows([0, 1])
        assert (cache.T, cache.N) == (MIN_T, MIN_N)


def test_a_row_taken_again_sees_nothing_of_the_row_before():
    """A row freed in a batch that goes on, or in one that emptied (its memory kept, not cleared),
    is written whole when a request takes it: zero self K/V, its own source, padding past it."""
    cache = KVCache(L, H, DK, max_rows=3)
    cache.add_rows(*cross_for([1.0, 2.0], 6), [1, 1])
    write_self(cache, {0: 1.0, 1: 2.0}, position=0)
    write_self(cache, {0: 1.0, 1: 2.0}, position=5)
    cache.remove_rows([1])  # the batch goes on with row 0
    for emptied in (False, True):
        (row,) = cache.add_rows(*cross_for([3.0], 3), [1])
        assert np.all(cache.self_kv[:, row] == 0) and row_value(cache, row) == 3.0
        assert np.all(cache.cross_kv[:, row, :, 3:] == 0) and cache.padding[row, 2:].all()
        assert not cache.padding[row, :2].any()
        if not emptied:
            assert np.all(cache.self_kv[:, 0, :, 5] == 1.0)  # the row that stayed keeps its data
            write_self(cache, {0: 1.0, row: 3.0}, position=7)
            cache.remove_rows([0, row])  # empties the batch: the memory is kept as it is


def test_memory_over_the_keep_limit_is_given_back_when_the_batch_empties(monkeypatch):
    """A buffer grown past KEEP_BYTES is not kept once the batch empties (a long burst must not
    hold twice its largest buffer for good); one under it is."""
    cache = KVCache(L, H, DK, max_rows=2)
    cache.add_rows(*cross_for([1.0], 3), [1])
    cache.ensure_positions(200)  # self K/V: 2L x 2 rows x H x 256 positions x DK floats
    big, small_cross = cache.self_kv, cache.cross_kv
    monkeypatch.setattr(cache_module, "KEEP_BYTES", small_cross.nbytes)
    assert big.nbytes > small_cross.nbytes
    cache.remove_rows([0])
    cache.add_rows(*cross_for([2.0], 3), [1])
    cache.ensure_positions(200)
    assert not np.shares_memory(cache.self_kv, big)
    assert np.shares_memory(cache.cross_kv, small_cross) and row_value(cache, 0) == 2.0


def test_reorder_gathers_self_attention_rows():
    """Beam reorder: rows[i] takes sources[i]'s self-attention cache (sources read before any write)."""
    cache = KVCache(L, H, DK, max_rows=4)
    cache.add_rows(*cross_for([1.0], 3), [4])
    write_self(cache, {0: 10.0, 1: 11.0, 2: 12.0, 3: 13.0}, position=0)
    write_self(cache, {0: 20.0, 1: 21.0, 2: 22.0, 3: 23.0}, position=1)
    rows = np.array([0, 1, 2, 3])
    cache.reorder(rows, np.array([2, 2, 0, 1]), length=2)
    assert [float(cache.self_kv[0, r, 0, 0, 0]) for r in range(4)] == [12.0, 12.0, 10.0, 11.0]
    assert [float(cache.self_kv[0, r, 0, 1, 0]) for r in range(4)] == [22.0, 22.0, 20.0, 21.0]
    assert [row_value(cache, r) for r in range(4)] == [1.0] * 4  # cross K/V is per source: untouched


def test_nbytes_counts_active_rows():
    """nbytes() grows with the rows in use."""
    cache = KVCache(L, H, DK, max_rows=4)
    assert cache.nbytes() == 0
    cache.add_rows(*cross_for([1.0, 2.0], 3), [1, 1])
    one = cache.nbytes() // 2
    assert one > 0 and cache.nbytes() == 2 * one
