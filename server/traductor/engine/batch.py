"""The running rows: which request owns each row, each row's newest token and position, and the KV
cache under them (cache.py), kept in step as rows join, move and leave.

    add(cross, padding, requests, bos_id)   new rows for admitted requests (their cross-attention
                                            K/V, BOS at position 0); each request's rows returned
    inputs() / advance(new_kv)              one decoder step's inputs over every row, then its new
                                            K/V appended and every position moved on by one
    reorder(rows, source, token)            a beam's rows take their source beams' caches
    remove(rows)                            a leaving request's rows freed; the last rows move into
                                            the holes and their owners' `state.rows` follow

It owns the per-row buffers and the row -> request table; the cache is the runner's kind
(runner_protocol.RowCache: numpy for ONNX Runtime, device tensors for PyTorch). It does not know
how tokens are chosen (decoding.py), when a request joins or leaves (scheduler.py) nor the model:
it hands the runner's step its inputs and takes its outputs, and never calls it.
"""

from __future__ import annotations

import numpy as np

from .request import Request
from .runner_protocol import RowCache


class Batch:
    """Rows 0..B-1 of the cache, packed, and what the scheduler keeps per row beside them."""

    def __init__(self, cache: RowCache, max_rows: int):
        self.cache = cache  # the runner's (runner_protocol.Runner.new_cache)
        self.tokens = np.zeros(max_rows, dtype=np.int64)  # each row's newest token
        self.positions = np.zeros(max_rows, dtype=np.int64)  # each row's position (= past length)
        self.row_request: list[Request] = []  # row -> request
        self._step_views: tuple = (-1, None, None)

    def add(self, cross, padding: np.ndarray, requests: list[Request], bos_id: int) -> list[list[int]]:
        """Rows for `requests` (their sources' cross-attention K/V and padding, in order), each
        starting from BOS at position 0; returns each request's rows."""
        rows = self.cache.add_rows(cross, padding, [r.n_rows for r in requests])
        mine = []
        for r in requests:
            mine.append(list(rows[: r.n_rows]))
            rows = rows[r.n_rows :]
            self.row_request.extend([r] * r.n_rows)
            self.tokens[mine[-1]] = bos_id
            self.positions[mine[-1]] = 0
        return mine

    def inputs(self) -> tuple:
        """One decoder step's inputs over every row: tokens, positions, padding, past, cross."""
        B = self.cache.rows
        self.cache.ensure_positions(int(self.positions[:B].max()))
        past, cross, padding = self.cache.views()
        if self._step_views[0] != B:  # stable view objects keep the runner's bindings valid
            self._step_views = (B, self.tokens[:B, None], self.positions[:B])
        _, tokens, positions = self._step_views
        return tokens, positions, padding, past, cross

    def advance(self, new_kv) -> None:
        """The step's new keys/values written at each row's position; every position moves on."""
        self.cache.append(new_kv, self.positions)
        self.positions[: self.cache.rows] += 1

    def reorder(self, rows: np.ndarray, source: np.ndarray, token) -> None:
        """A beam's rows continue their source beams with `token`: only the rows whose source beam
        is another one take a copy of its cache (most steps move one or two beams of K, or none)."""
        moved = source != np.arange(len(rows))
        if moved.any():  # a beam's rows are all at one position: the length written so far
            self.cache.reorder(rows[moved], rows[source[moved]], int(self.positions[rows[0]]))
        self.tokens[rows] = token

    def remove(self, rows: list[int]) -> None:
        """Free `rows`; the last rows move into the holes, their owners' rows follow."""
        moves = self.cache.remove_rows(rows)
        for old, new in moves.items():
            owner = self.row_request[old]
            owner.state.rows = [new if r == old else r for r in owner.state.rows]
            self.row_request[new] = owner
            self.tokens[new], self.positions[new] = self.tokens[old], self.positions[old]
        del self.row_request[self.cache.rows :]
