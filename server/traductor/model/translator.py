"""Translate text with the PyTorch model: the reference engine (`--engine pytorch`)."""

from __future__ import annotations

from pathlib import Path

import torch

from ..options import auto_max_new_tokens
from . import checkpoint
from .generate import beam_search, greedy
from .tokenizer import Tokenizer, clip_source
from .transformer import Transformer


class TorchTranslator:
    def __init__(self, model: Transformer, tokenizer: Tokenizer, source_language: str = "", target: str = ""):
        self.model, self.tokenizer = model.eval(), tokenizer
        self.source_language = source_language  # the checkpoint's (its sentences are split by its rules)
        self.target = target  # its target language (the verifier reads punctuation by it)
        # a register tag's bans (model/constraints.py); {} decodes as the weights alone would
        self.register_bans = tokenizer.register_bans

    @classmethod
    def load(cls, model_dir: Path | None = None) -> "TorchTranslator":
        model, tokenizer, config = checkpoint.load(model_dir)
        pair = checkpoint.languages(config)
        return cls(model, tokenizer, pair["source"], pair["target"])

    def translate(
        self, texts: list[str], beam_size: int = 1, max_new_tokens: int = 0, batch_size: int = 32, register: str = ""
    ) -> list[str]:
        """Translate `texts` in batches of similar length; results come back in input order;
        `register`: "formal"/"informal" for a model trained with the tags (model/controls.py)."""
        encoded = [self.tokenizer.encode(t, register=register) for t in texts]
        limit = self.model.cfg.max_len
        sources = [clip_source(ids, limit) for ids, _ in encoded]
        # Each sentence gets its own length limit, as in the ONNX engine
        work = [(s, beam_size, max_new_tokens or auto_max_new_tokens(len(s), limit - 1)) for s in sources]
        return [
            self.tokenizer.decode(tokens, values) for tokens, (_, values) in zip(self.decode(work, batch_size), encoded)
        ]

    @torch.no_grad()
    def decode(self, work: list[tuple[list[int], int, int]], batch_size: int = 32) -> list[list[int]]:
        """Decode (source ids, beam size, max new tokens) requests; each one's new tokens (EOS
        included if produced), in input order. Batches hold requests of the same beam and limit,
        sorted by length so that neighbours mostly share it. `translate` and the offline commands'
        decoder for --engine pytorch (offline.py) call it."""
        order = sorted(range(len(work)), key=lambda i: (work[i][1:], len(work[i][0])))
        batches: list[list[int]] = []
        for i in order:
            if batches and len(batches[-1]) < batch_size and work[batches[-1][0]][1:] == work[i][1:]:
                batches[-1].append(i)
            else:
                batches.append([i])
        out: list[list[int]] = [[] for _ in work]
        ph, bans = self.tokenizer.placeholder_ids, self.register_bans
        for idx in batches:
            chunk, (_, beam, n) = [list(work[i][0]) for i in idx], work[idx[0]]
            if beam > 1:
                tokens = beam_search(self.model, chunk, beam, n, placeholder_ids=ph, register_bans=bans)
            else:
                tokens = greedy(self.model, chunk, n, placeholder_ids=ph, register_bans=bans)
            for i, toks in zip(idx, tokens):
                out[i] = list(toks)
        return out
