"""Translate text with the PyTorch model: the reference engine (`--engine pytorch`)."""

from __future__ import annotations

from pathlib import Path

import torch

from ..options import auto_max_new_tokens
from . import checkpoint
from .generate import beam_search, greedy
from .tokenizer import Tokenizer
from .transformer import Transformer


class TorchTranslator:
    def __init__(self, model: Transformer, tokenizer: Tokenizer):
        self.model, self.tokenizer = model.eval(), tokenizer

    @classmethod
    def load(cls, model_dir: Path | None = None) -> "TorchTranslator":
        model, tokenizer, _ = checkpoint.load(model_dir)
        return cls(model, tokenizer)

    @torch.no_grad()
    def translate(self, texts: list[str], beam_size: int = 1, max_new_tokens: int = 0, batch_size: int = 32) -> list[str]:
        """Translate `texts` in batches of similar length; results come back in input order."""
        encoded = [self.tokenizer.encode(t) for t in texts]
        limit = self.model.cfg.max_len
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i][0]))
        out: list[str] = [""] * len(texts)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            sources = [encoded[i][0][:limit] for i in idx]
            longest = max(len(s) for s in sources)
            max_new = max_new_tokens or auto_max_new_tokens(longest, limit - 1)
            if beam_size > 1:
                tokens = beam_search(self.model, sources, beam_size, max_new)
            else:
                tokens = greedy(self.model, sources, max_new)
            for i, toks in zip(idx, tokens):
                out[i] = self.tokenizer.decode(toks, encoded[i][1])
        return out
