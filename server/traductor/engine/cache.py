"""The cache manager: every active row's self-attention K/V and cross-attention K/V, in place.

A *row* is one decoding hypothesis (a greedy or sampled request has one, a beam request one per
beam). Rows are kept packed at the front of the buffers (rows 0..B-1), so that each layer's
cache for the whole batch is the contiguous view `self_kv[i, :B]`, handed to ONNX Runtime
without a copy:

    self_kv   (2L, R, h, T, d_k)   layer l's keys at 2l, values at 2l+1; T grows in powers of two
    cross_kv  (2L, R, h, N, d_k)   C W_K, C W_V of each row's source, written once at admission
    padding   (R, N) bool          True where a row's source is padding (N >= every source)

Each step writes the new key/value of row b at position positions[b] (one vectorised
assignment per buffer). A row that leaves is replaced by the last row (one row copied), so the
pack stays dense; beam search reorders rows with one gather. T and N double when a longer
sequence arrives and go back to their minimum when the batch empties, so attention runs over a
window that fits the batch rather than over the maximum length.

The memory under the buffers is kept (two arenas per buffer, up to KEEP_BYTES each once the batch
empties, see `_Arena`): a buffer of tens of megabytes freed and allocated again would fault
every page in again, which on a virtual machine cost more than the copy itself (at batch 32 of
the bench's model, 3 to 4 ms per step). Only the rows in use are ever written in bulk: a row is
written whole when it is admitted, growth copies and fills the rows in use, and the rest of the
memory is left as it is (never read), so neither an emptied batch nor a short call's admission
clears the buffers of all `max_rows` rows.
"""

from __future__ import annotations

import numpy as np

MIN_T = 16
MIN_N = 16


KEEP_BYTES = 32 << 20  # a memory larger than this is given back when the batch empties


class _Arena:
    """Memory for one buffer, kept between shapes: an array of a given shape is a C-contiguous
    view of the first elements of one of two memories, which only grow while rows are in use.

    Two, because growing copies the array in one memory into a larger array in the other; a
    fresh array (the batch emptied) takes the smaller one that fits, leaving the larger to grow
    into. When the batch empties, a memory over KEEP_BYTES is given back: both memories kept at
    the size of a long burst would hold twice the largest buffer for good (a server with 64 rows
    of 256 positions), where the growth alone held one and a half while it lasted."""

    def __init__(self, dtype):
        self.memory = [np.empty(0, dtype), np.empty(0, dtype)]

    def array(self, shape: tuple[int, ...], fill) -> np.ndarray:
        """A fresh array of `shape`, every element `fill` (nothing of earlier arrays shows); with
        fill None, whatever the memory holds."""
        self.memory = [m if m.nbytes <= KEEP_BYTES else np.empty(0, m.dtype) for m in self.memory]
        size = int(np.prod(shape))
        fits = [i for i in (0, 1) if self.memory[i].size >= size]
        smaller = int(self.memory[1].size < self.memory[0].size)
        return self._take(min(fits, key=lambda i: self.memory[i].size) if fits else smaller, shape, fill)

    def grow(self, array: np.ndarray, axis: int, size: int, fill, rows: tuple[int, int] | None = None) -> np.ndarray:
        """`array` (in one memory) widened to `size` along `axis` (new entries `fill`), in the other.
        With `rows` = (row axis, n), only the first n rows are copied and filled (the cache's rows
        in use: the others are never read, and are written whole when taken)."""
        shape = list(array.shape)
        shape[axis] = size
        out = self._take(0 if np.may_share_memory(array, self.memory[1]) else 1, tuple(shape))
        old, new = [slice(None)] * array.ndim, [slice(None)] * array.ndim
        if rows is not None:
            old[rows[0]] = new[rows[0]] = slice(0, rows[1])
        old[axis], new[axis] = slice(0, array.shape[axis]), slice(array.shape[axis], None)
        out[tuple(old)] = array[tuple(old)]
        out[tuple(new)] = fill
        return out

    def _take(self, i: int, shape: tuple[int, ...], fill=None) -> np.ndarray:
        """An array of `shape` over memory i (grown if too small), filled with `fill` if given."""
        size = int(np.prod(shape))
        if size > self.memory[i].size:
            self.memory[i] = np.empty(size, self.memory[i].dtype)
        out = self.memory[i][:size].reshape(shape)
        if fill is not None:
            out.fill(fill)
        return out


def pack(rows: list[int], used: int, copy) -> tuple[int, dict[int, int]]:
    """Free `rows` of the `used` packed rows, filling each hole with the last row (`copy(src,
    dst)`): the rows left in use, and {old row: new row} of the rows that moved (any cache's)."""
    moves: dict[int, int] = {}
    for row in sorted(rows, reverse=True):
        last = used - 1
        if row != last:
            copy(last, row)
            moves[last] = row
        used -= 1
    # A row moved into a hole that is freed later in this loop is moved again: resolve chains.
    resolved = {}
    for old, new in moves.items():
        while new in moves and new != old:
            new = moves[new]
        if old not in rows:
            resolved[old] = new
    return used, resolved


def capacity(needed: int, minimum: int) -> int:
    """The smallest power-of-two multiple of `minimum` that holds `needed` (a window's length)."""
    cap = minimum
    while cap < needed:
        cap *= 2
    return cap


class KVCache:
    def __init__(self, n_layers: int, n_heads: int, d_k: int, max_rows: int):
        self.L, self.h, self.d_k, self.max_rows = n_layers, n_heads, d_k, max_rows
        self.rows = 0
        self._arenas = {"self_kv": _Arena(np.float32), "cross_kv": _Arena(np.float32), "padding": _Arena(bool)}
        self._allocate(MIN_T, MIN_N)

    def _allocate(self, T: int, N: int) -> None:
        """Buffers of every row at the minimum window, over the kept memory as it is: nothing is
        cleared here (all rows at 64 rows and the default model: 12 MB, about 1 ms, which a short
        call paid every time the batch emptied). `add_rows` clears the rows it admits, and the
        rows past the packed ones are never read."""
        self._views = None
        L2, R, h, dk = 2 * self.L, self.max_rows, self.h, self.d_k
        self.self_kv = self._arenas["self_kv"].array((L2, R, h, T, dk), None)
        self.cross_kv = self._arenas["cross_kv"].array((L2, R, h, N, dk), None)
        self.padding = self._arenas["padding"].array((R, N), None)

    @property
    def T(self) -> int:
        return self.self_kv.shape[3]

    @property
    def N(self) -> int:
        return self.cross_kv.shape[3]

    def nbytes(self) -> int:
        """Bytes held by the rows in use (what the metrics report)."""
        per_row = self.self_kv[:, 0].nbytes + self.cross_kv[:, 0].nbytes + self.padding[0].nbytes
        return per_row * self.rows

    # ---- rows ---------------------------------------------------------------------------

    def add_rows(self, cross: list[np.ndarray], padding: np.ndarray, copies: list[int]) -> list[int]:
        """Admit new rows, each written whole (self K/V zero, its source's cross K/V and zeros past
        it, padding). cross[i] is (b, h, n, d_k) for b sources; source j gets copies[j] rows (its
        beam size). Returns the row index of each new row, in order."""
        b, n = padding.shape
        total = sum(copies)
        if self.rows + total > self.max_rows:
            raise ValueError("no free rows")
        if n > self.N:
            new_n = capacity(n, MIN_N)
            self.cross_kv = self._arenas["cross_kv"].grow(self.cross_kv, 3, new_n, 0.0, (1, self.rows))
            self.padding = self._arenas["padding"].grow(self.padding, 1, new_n, True, (0, self.rows))
            self._views = None
        src = np.repeat(np.arange(b), copies)  # source index of each new row
        rows = np.arange(self.rows, self.rows + total)
        self.self_kv[:, self.rows : self.rows + total] = 0.0  # nothing of an earlier row shows
        for i, array in enumerate(cross):
            self.cross_kv[i, rows, :, :n] = array[src]
        self.cross_kv[:, rows, :, n:] = 0.0
        self.padding[rows, :n] = padding[src]
        self.padding[rows, n:] = True
        self.rows += total
        return rows.tolist()

    def remove_rows(self, rows: list[int]) -> dict[int, int]:
        """Free rows; fill each hole with a row from the end. Returns {old_row: new_row} moves."""
        self.rows, moves = pack(rows, self.rows, self._copy)
        if self.rows == 0:
            self._allocate(MIN_T, MIN_N)
        return moves

    def _copy(self, src: int, dst: int) -> None:
        self.self_kv[:, dst] = self.self_kv[:, src]
        self.cross_kv[:, dst] = self.cross_kv[:, src]
        self.padding[dst] = self.padding[src]

    def reorder(self, rows: np.ndarray, sources: np.ndarray, length: int) -> None:
        """Beam search: rows[i] takes the cache of sources[i] (a gather, then a scatter), its first
        `length` positions: those written so far (the window beyond is written before it is read)."""
        self.self_kv[:, rows, :, :length] = self.self_kv[:, sources, :, :length]

    # ---- per step -----------------------------------------------------------------------

    def ensure_positions(self, max_position: int) -> None:
        """Make room for writing position `max_position`."""
        if max_position >= self.T:
            size = capacity(max_position + 1, MIN_T)
            self.self_kv = self._arenas["self_kv"].grow(self.self_kv, 3, size, 0.0, (1, self.rows))
            self._views = None

    def views(self) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """Zero-copy views of the packed rows: (past per layer, cross per layer, padding).

        The same objects come back until the rows or a buffer change, so that the runner can
        keep its IO bindings."""
        B = self.rows
        if self._views is None or self._views[0] != B:
            past = [self.self_kv[i, :B] for i in range(2 * self.L)]
            cross = [self.cross_kv[i, :B] for i in range(2 * self.L)]
            self._views = (B, past, cross, self.padding[:B])
        return self._views[1:]

    def append(self, new_kv: np.ndarray, positions: np.ndarray) -> None:
        """new_kv (2L, B, h, 1, d_k): write row b's new entry at positions[b]."""
        B = self.rows
        rows = np.arange(B)
        self.self_kv[:, rows, :, positions[:B], :] = new_kv[:, :B, :, 0, :].transpose(1, 0, 2, 3)
