"""What a decoder may not produce next: the EOS and placeholder rules, in one place, in numpy.

    * EOS is impossible while fewer than min_new_tokens tokens are out;
    * a placeholder token (<phK>) is possible only while the source has an occurrence of it that
      the output does not have yet;
    * EOS is impossible while one of the source's placeholders is still missing from the output.

Every decoder applies these rules through `Constraints.banned`: greedy, sampling and beam search
in the serving engine (numpy), and the PyTorch reference decoder (model/generate.py, which
indexes its tensor with the same arrays). The module knows token ids only: which ids are
placeholders comes from the tokenizer, whatever kinds of placeholder it masks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

NEG_INF = -np.inf


class Constraints:
    def __init__(self, placeholder_ids: Iterable[int], eos_id: int):
        self.placeholder_ids = tuple(sorted(placeholder_ids))
        self._placeholders = frozenset(self.placeholder_ids)
        self._ids = np.asarray(self.placeholder_ids, dtype=np.int64)
        self.eos_id = eos_id

    def required(self, source_ids: Iterable[int]) -> Counter:
        """The placeholder tokens (with their counts) a translation of this source must contain."""
        return Counter(t for t in source_ids if t in self._placeholders)

    def missing(self, required: Counter, output: Iterable[int]) -> Counter:
        """The required placeholders not yet in `output` (which may hold BOS, EOS or PAD too)."""
        return required - Counter(t for t in output if t in self._placeholders)

    def banned(self, missing: Sequence[Counter], too_short: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
        """(rows, columns) of the tokens each row may not produce next.

        missing[i] is row i's missing placeholders; too_short[i] whether row i has produced fewer
        than min_new_tokens. Index the step's scores with the result and set them to -inf."""
        n, ids = len(missing), self._ids
        owing = [i for i, left in enumerate(missing) if left and +left]  # `+left` (a new Counter) only when non-empty
        eos_rows = np.array(
            [i for i in range(n) if too_short[i]] + [i for i in owing if not too_short[i]], dtype=np.int64
        )
        if not ids.size:
            return eos_rows, np.full(eos_rows.size, self.eos_id, dtype=np.int64)
        # This runs every decode step for every row: ban all placeholders for all rows at once, then
        # allow the few a row still owes (only rows that owe any are looked at in Python).
        allowed = np.zeros((n, ids.size), dtype=bool)
        for i in owing:
            allowed[i] = [missing[i][p] > 0 for p in self.placeholder_ids]
        ph_rows, ph_cols = np.nonzero(~allowed)
        rows = np.concatenate([eos_rows, ph_rows.astype(np.int64)])
        cols = np.concatenate([np.full(eos_rows.size, self.eos_id, dtype=np.int64), ids[ph_cols]])
        return rows, cols

    def apply(self, scores: np.ndarray, missing: Sequence[Counter], too_short: Sequence[bool]) -> None:
        """Set the banned entries of `scores` (rows in the order of `missing`) to -inf, in place."""
        rows, cols = self.banned(missing, too_short)
        if rows.size:
            scores[rows, cols] = NEG_INF
