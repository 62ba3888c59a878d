"""The PyTorch runner's cache: every running row's self- and cross-attention K/V in device tensors,
allocated once at their largest and never moved, so that a captured CUDA graph of a decoder step
stays valid for the cache's life (torch_runner.py).

    self_kv     (2L, R, h, max_len, d_k)  layer l's keys at 2l, values at 2l+1; the runner's step
                                          writes each row's new entry at its position, in place
    cross_kv    (2L, R, h, max_len, d_k)  C W_K, C W_V of each row's source, written at admission
    cross_bias  (R, max_len)              0 at a row's source tokens, the mask value elsewhere
    tokens, positions (R,) int64          the step's inputs, copied in before each step

Rows are packed at 0..B-1 as in cache.py (a leaving row is replaced by the last one, `pack`), and
a step attends over windows of these buffers, T positions and N source tokens, powers of two that
grow with the longest row and go back to their minimum when the batch empties (the numpy cache's
rule). It is a runner_protocol.RowCache: `views()` hands the runner the cache itself, whose step
reads the windows and writes the new entries, so `append` has nothing left to do.

It knows nothing of the model's weights or of graphs beyond keeping the runner's (`graphs`, `pool`,
`host_logits`) with the buffers they read.
"""

from __future__ import annotations

import numpy as np
import torch

from .cache import MIN_N, MIN_T, capacity, pack


class TorchKVCache:
    def __init__(
        self,
        n_layers: int,
        n_heads: int,
        d_k: int,
        max_rows: int,
        max_len: int,
        device: torch.device,
        dtype: torch.dtype,
        mask_value: float,
    ):
        self.max_rows, self.max_len, self.mask_value = max_rows, max_len, mask_value
        shape = (2 * n_layers, max_rows, n_heads, max_len, d_k)
        # zeros, not empty: a masked entry weighs exactly 0, and 0 * NaN would not be 0
        self.self_kv = torch.zeros(shape, device=device, dtype=dtype)
        self.cross_kv = torch.zeros(shape, device=device, dtype=dtype)
        self.cross_bias = torch.full((max_rows, max_len), mask_value, device=device, dtype=dtype)
        self.tokens = torch.zeros(max_rows, device=device, dtype=torch.int64)
        self.positions = torch.zeros(max_rows, device=device, dtype=torch.int64)
        self.device = device
        self.rows = 0
        self.T, self.N = MIN_T, MIN_N
        self.graphs: dict = {}  # the runner's captured steps over these buffers, by shape
        self.pool = None  # their memory pool
        self.host_logits = None  # the runner's pinned host buffer for the logits

    def nbytes(self) -> int:
        per_row = self.self_kv[:, 0].nbytes + self.cross_kv[:, 0].nbytes + self.cross_bias[0].nbytes
        return per_row * self.rows

    # ---- rows ---------------------------------------------------------------------------

    def add_rows(self, cross: torch.Tensor, padding: np.ndarray, copies: list[int]) -> list[int]:
        """cross (2L, b, h, n, d_k) from the runner's encode; source j gets copies[j] rows."""
        b, n = padding.shape
        total = sum(copies)
        if self.rows + total > self.max_rows:
            raise ValueError("no free rows")
        if n > self.max_len:
            raise ValueError(f"a source of {n} tokens exceeds the model's max_len {self.max_len}")
        src = torch.from_numpy(np.repeat(np.arange(b), copies)).to(self.device)
        rows = torch.arange(self.rows, self.rows + total, device=self.device)
        self.cross_kv[:, rows, :, :n] = cross[:, src]
        bias = torch.full((total, self.max_len), self.mask_value, device=self.device, dtype=self.cross_bias.dtype)
        pad = torch.from_numpy(padding).to(self.device)[src]
        bias[:, :n] = torch.where(pad, self.mask_value, 0.0).to(bias.dtype)
        self.cross_bias[rows] = bias
        self.N = max(self.N, min(capacity(n, MIN_N), self.max_len))
        first = self.rows
        self.rows += total
        return list(range(first, self.rows))

    def remove_rows(self, rows: list[int]) -> dict[int, int]:
        self.rows, moves = pack(rows, self.rows, self._copy)
        if self.rows == 0:
            self.T, self.N = MIN_T, MIN_N
        return moves

    def _copy(self, src: int, dst: int) -> None:
        self.self_kv[:, dst, :, : self.T] = self.self_kv[:, src, :, : self.T]
        self.cross_kv[:, dst, :, : self.N] = self.cross_kv[:, src, :, : self.N]
        self.cross_bias[dst] = self.cross_bias[src]

    def reorder(self, rows: np.ndarray, sources: np.ndarray, length: int) -> None:
        """Beam search: rows[i] takes the self-attention cache of sources[i] (a gather, then a
        scatter), its first `length` positions: those written so far."""
        dst = torch.from_numpy(np.asarray(rows, dtype=np.int64)).to(self.device)
        src = torch.from_numpy(np.asarray(sources, dtype=np.int64)).to(self.device)
        self.self_kv[:, dst, :, :length] = self.self_kv[:, src, :, :length]

    # ---- per step -----------------------------------------------------------------------

    def ensure_positions(self, max_position: int) -> None:
        if max_position >= self.max_len:
            raise ValueError(f"position {max_position} is past the model's max_len {self.max_len}")
        self.T = max(self.T, min(capacity(max_position + 1, MIN_T), self.max_len))

    def views(self) -> tuple:
        """(past, cross, padding) as the runner's step takes them: the cache itself, whose
        windows the step reads and writes; cross and padding are in it."""
        return self, None, None

    def append(self, new_kv, positions: np.ndarray) -> None:
        """Nothing: the step wrote its new entries in place."""
