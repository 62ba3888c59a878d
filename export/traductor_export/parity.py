"""Proof that the bundle computes what the PyTorch model computes.

Three decoders translate the same sentences greedily with the same length limit:

    reference   PyTorch, no cache: the whole prefix re-run at every step (model.md's loop)
    cached      PyTorch with its KV cache (Transformer.decode_step)
    onnx        the bundle, through the serving scheduler (padded cache, continuous batching)

Reported: the fraction of sentences whose tokens are identical to the reference (cached and
onnx), and the largest absolute logit difference between the reference and the ONNX decoder
step at any step of any sentence, the ONNX graphs being fed the reference's tokens.
"""

from __future__ import annotations

import numpy as np
import torch

from traductor.engine.runner import ModelRunner
from traductor.engine.translator import OnnxTranslator
from traductor.model.generate import greedy, pad_batch
from traductor.model.generation import GenerationConfig
from traductor.model.tokenizer import Tokenizer
from traductor.model.transformer import Transformer
from traductor.options import DecodingOptions

# Written for this project: the kind of text the default model translates.
BUILTIN_SENTENCES = [
    "cannot open file %s",
    "Permission denied",
    "invalid option -- '%c'",
    "Try '%s --help' for more information.",
    "write error",
    "memory exhausted",
    "%s: No such file or directory",
    "missing operand after '%s'",
    "the --force option requires an argument",
    "Usage: %s [OPTION]... [FILE]...",
    "warning: ignoring trailing garbage",
    "could not connect to server: %s",
    "%d files changed, %d insertions",
    "Do you want to continue? [Y/n]",
    "error while loading shared libraries",
    "unable to create temporary directory",
    "the repository is empty",
    "connection timed out",
    "Print version information and exit.",
    "display this help and exit",
    "%s is not a directory",
    "Reading package lists...",
    "the file {name} was removed",
    "invalid number of arguments",
    "failed to read configuration file '%s'",
    "Saving to: %s",
    "The operation was cancelled by the user.",
    "unknown command",
    "server closed the connection unexpectedly",
    "Select a file to open",
    "out of memory",
    "cannot remove '%s': Is a directory",
]


def reference_logits(model: Transformer, sources: list[list[int]], targets: list[list[int]]) -> list[np.ndarray]:
    """Logits (t, V) at every step of each target, from the no-cache model (teacher forcing)."""
    cfg = model.cfg
    src, src_pad = pad_batch(sources, cfg.pad_id)
    tgt_in, tgt_pad = pad_batch([[cfg.bos_id] + t[:-1] if t else [cfg.bos_id] for t in targets], cfg.pad_id)
    tgt_in[:, 0] = cfg.bos_id
    with torch.no_grad():
        logits = model.decode(tgt_in, model.encode(src, src_pad), src_pad).numpy()
    return [logits[i, : max(len(t), 1)] for i, t in enumerate(targets)]


def onnx_logits(
    runner: ModelRunner, bos: int, pad: int, sources: list[list[int]], targets: list[list[int]]
) -> list[np.ndarray]:
    """The same logits from the ONNX graphs, stepping with a cache grown by concatenation."""
    src, _ = pad_batch(sources, pad)
    ids = src.numpy()
    padding = ids == pad
    cross = runner.encode(ids, padding)
    B, L = len(sources), runner.n_layers
    T = max(max(len(t), 1) for t in targets)
    b = runner.bundle
    past = [np.zeros((B, b.n_heads, 0, b.d_k), np.float32) for _ in range(2 * L)]
    tokens = np.full((B, 1), bos, np.int64)
    out = np.zeros((B, T, b.vocab_size), np.float32)
    for t in range(T):
        logits, new_kv = runner.step(tokens, np.full(B, t, np.int64), padding, past, cross)
        out[:, t] = logits
        past = [np.ascontiguousarray(np.concatenate([p, new_kv[i]], axis=2)) for i, p in enumerate(past)]
        tokens = np.array([[tg[t] if t < len(tg) else pad] for tg in targets], np.int64)
    return [out[i, : max(len(tg), 1)] for i, tg in enumerate(targets)]


def check(
    model: Transformer,
    tokenizer: Tokenizer,
    translator: OnnxTranslator,
    sentences: list[str],
    max_new_tokens: int = 48,
    batch_size: int = 8,
    generation: GenerationConfig | None = None,
) -> dict:
    """The parity report; `generation` (an imported model's rules) applies to both sides, with
    the tokenizer's default target language as the forced first token."""
    model.eval()  # the reference is the inference model: no dropout
    sources = [tokenizer.encode(s)[0][: model.cfg.max_len] for s in sentences]
    ref, cached, onnx = [], [], []
    forced = tokenizer.forced_first(None)
    rules = {"placeholder_ids": tokenizer.placeholder_ids, "generation": generation, "forced_first": forced}
    for start in range(0, len(sources), batch_size):
        chunk = sources[start : start + batch_size]
        ref += greedy(model, chunk, max_new_tokens, use_cache=False, **rules)
        cached += greedy(model, chunk, max_new_tokens, use_cache=True, **rules)
    events = translator.generate(sources, DecodingOptions(max_new_tokens=max_new_tokens), batch_size=batch_size)
    eos = model.cfg.eos_id
    onnx = [e.token_ids + ([eos] if e.reason.value in ("eos", "loop") else []) for e in events]  # loop: a forced EOS
    max_diff = 0.0
    for start in range(0, len(sources), batch_size):
        s, t = sources[start : start + batch_size], ref[start : start + batch_size]
        for a, b in zip(
            reference_logits(model, s, t), onnx_logits(translator.runner, model.cfg.bos_id, model.cfg.pad_id, s, t)
        ):
            max_diff = max(max_diff, float(np.abs(a - b).max()))
    n = len(sources)
    return {
        "sentences": n,
        "max_new_tokens": max_new_tokens,
        "cached_identical": sum(a == b for a, b in zip(ref, cached)) / n,
        "onnx_identical": sum(a == b for a, b in zip(ref, onnx)) / n,
        "max_abs_logit_diff": max_diff,
        "onnx_texts": [e.text for e in events],
    }
