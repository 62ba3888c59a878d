"""A model that loops on purpose, for the loop rule's tests (model/constraints.py): the same
rule as an engine runner (runner_protocol.Runner, numpy) and as the PyTorch reference's model
(model/generate.py's steppers), so that every decoder can be driven into a loop.

The "model" reads its source as a program. A source [t1, ..., tn] (EOS cut) is said again and
again: token k is t(k mod n), forever; a PLACEHOLDER token in it is never said (only the rules
can make the model give it). A source that starts with END ([END, t1, ..., tn]) is said
once, then EOS: an ordinary sentence. The chosen token has logit FAVOURED, EOS EOS_LOGIT (when
not chosen), PAD and BOS NEVER (a trained model does not produce them), every other token 0, so a
beam search has other candidates and sampling at temperature 1 still picks the chosen token.
"""

from __future__ import annotations

import numpy as np
import torch

from traductor.engine.cache import pack
from traductor.model.config import ModelConfig

VOCAB = 32
END = 4
FAVOURED = 20.0
EOS_LOGIT = 10.0
NEVER = -100.0
PLACEHOLDER = 20
CONFIG = ModelConfig(vocab_size=VOCAB, d_model=8, n_heads=2, d_ff=8, n_encoder_layers=1, n_decoder_layers=1)


def program(source) -> list[int]:
    """The source's tokens without padding, EOS and placeholders."""
    return [int(t) for t in source if t not in (CONFIG.pad_id, CONFIG.eos_id, PLACEHOLDER)]


def next_logits(source, generated: int) -> np.ndarray:
    """The logits of token number `generated` (0-based) of the output of `source`."""
    prog = program(source)
    logits = np.zeros(VOCAB, dtype=np.float32)
    logits[CONFIG.eos_id] = EOS_LOGIT
    logits[[CONFIG.pad_id, CONFIG.bos_id]] = NEVER
    if prog and prog[0] == END:
        said = prog[1:]
        chosen = said[generated] if generated < len(said) else CONFIG.eos_id
    else:
        chosen = prog[generated % len(prog)]
    logits[chosen] = FAVOURED
    return logits


class RowSources:
    """A RowCache (runner_protocol) that keeps each row's source instead of keys and values."""

    def __init__(self) -> None:
        self.rows = 0
        self.sources: list[tuple[int, ...]] = []

    def add_rows(self, cross, padding, copies: list[int]) -> list[int]:
        start = self.rows
        for source, k in zip(cross, copies):
            self.sources[self.rows :] = [source] * k
            self.rows += k
        return list(range(start, self.rows))

    def remove_rows(self, rows: list[int]) -> dict[int, int]:
        self.rows, moves = pack(rows, self.rows, self._copy)
        del self.sources[self.rows :]
        return moves

    def _copy(self, src: int, dst: int) -> None:
        self.sources[dst] = self.sources[src]

    def reorder(self, rows: np.ndarray, sources: np.ndarray, length: int) -> None:
        taken = [self.sources[s] for s in sources.tolist()]
        for r, source in zip(rows.tolist(), taken):
            self.sources[r] = source

    def ensure_positions(self, max_position: int) -> None:
        pass

    def views(self) -> tuple:
        return None, self.sources[: self.rows], None

    def append(self, new_kv, positions: np.ndarray) -> None:
        pass

    def nbytes(self) -> int:
        return 0


class PlaceholderTokenizer:
    """What the scheduler asks a tokenizer, for a model whose PLACEHOLDER is a placeholder token."""

    placeholder_ids = frozenset({PLACEHOLDER})

    def forced_first(self, target_language):
        return None

    def decode(self, ids, values) -> str:
        return " ".join(map(str, ids))


class LoopRunner:
    """An engine runner (runner_protocol.Runner) of the looping model."""

    model = CONFIG

    def __init__(self, generation=None) -> None:
        self.generation = generation

    def new_cache(self, max_rows: int) -> RowSources:
        return RowSources()

    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> list[tuple[int, ...]]:
        return [tuple(program(row)) for row in source_ids.tolist()]

    def step(self, input_ids, positions, source_padding, past, cross):
        logits = np.stack([next_logits(source, int(p)) for source, p in zip(cross, positions.tolist())])
        return logits, None


class LoopModel:
    """The looping model as the PyTorch reference decoder's steppers call it (use_cache=True)."""

    cfg = CONFIG

    def encode(self, src: torch.Tensor, src_pad: torch.Tensor) -> torch.Tensor:
        return src

    def cross_kv(self, memory: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [(memory, memory)]

    def empty_cache(self, batch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [(torch.zeros(batch, 0), torch.zeros(batch, 0))]

    def decode_step(self, tokens, position, cache, cross, src_pad):
        sources = cross[0][0].tolist()
        logits = np.stack([next_logits(s, int(p)) for s, p in zip(sources, position.tolist())])
        return torch.from_numpy(logits), cache
