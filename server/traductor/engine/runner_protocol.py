"""What the scheduler needs from a runner and from the row cache that runner makes: the two
Protocols where the ONNX Runtime runner (runner.py, with cache.py's numpy cache) and the PyTorch
runner (torch_runner.py, with torch_cache.py's device cache) meet.

    Runner      model (ModelConfig: special ids, layers, heads), generation (an imported model's
                rules or None), new_cache(max_rows), encode(ids, padding) at admission,
                step(tokens, positions, padding, past, cross) once per decoder step, the last
                three from the cache's views(); optionally `choice` (choice.Choice, or None)
    RowCache    the running rows' self- and cross-attention keys/values, packed at rows 0..B-1:
                add_rows, remove_rows, reorder (beams), ensure_positions, views, append, nbytes

A runner's `encode` returns what its own cache's `add_rows` takes, and its `step` what its
cache's `append` takes: the scheduler and batch.py pass them along without looking inside. Only
the logits are common ground: a (B, V) float32 numpy array, which decoding.py reads and masks
in place (the runner's buffer, valid until the next step) - unless the runner has a `choice` of
its own (choice.py): then they are the runner's own array (the PyTorch runner's device tensor),
read by that chooser only, and only the chosen tokens come to the host.

This module knows nothing of ONNX Runtime or torch, and imports neither.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..model.config import ModelConfig
from ..model.generation import GenerationConfig


class RowCache(Protocol):
    rows: int  # rows in use, packed at the front

    def add_rows(self, cross: Any, padding: np.ndarray, copies: list[int]) -> list[int]:
        """Rows for new sources (cross: the runner's `encode` output; copies: rows per source)."""
        ...

    def remove_rows(self, rows: list[int]) -> dict[int, int]:
        """Free rows; the last rows move into the holes: {old row: new row}."""
        ...

    def reorder(self, rows: np.ndarray, sources: np.ndarray, length: int) -> None:
        """rows[i] takes the self-attention cache of sources[i] (beam search): its first `length`
        positions, the ones written (the rest is never read before it is written)."""
        ...

    def ensure_positions(self, max_position: int) -> None:
        """Room for writing position `max_position` at the next step."""
        ...

    def views(self) -> tuple:
        """(past, cross, padding): what the runner's step takes beside the tokens and positions."""
        ...

    def append(self, new_kv: Any, positions: np.ndarray) -> None:
        """The step's new keys/values (the runner's `step` output) written at each row's position."""
        ...

    def nbytes(self) -> int:
        """Bytes held by the rows in use (the metrics' cache size)."""
        ...


class Runner(Protocol):
    model: ModelConfig  # dimensions and special ids: the bundle's, or the checkpoint's
    generation: GenerationConfig | None  # an imported model's decoding rules

    def new_cache(self, max_rows: int) -> RowCache:
        """An empty cache of `max_rows` rows for this runner's steps (one per scheduler)."""
        ...

    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> Any:
        """(B, n) int64 ids and bool padding -> every decoder layer's cross-attention K/V, in the
        form the runner's cache takes in `add_rows`."""
        ...

    def step(
        self, input_ids: np.ndarray, positions: np.ndarray, source_padding: Any, past: Any, cross: Any
    ) -> tuple[np.ndarray, Any]:
        """One decoder step of B rows: input_ids (B, 1) and positions (B,) int64 numpy, the rest
        the cache's `views()` -> logits (B, V) float32 (numpy; the runner's own array when it has
        a `choice`), and the new K/V for the cache's `append`."""
        ...
