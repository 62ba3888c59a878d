"""What the model is fed in training: pairs with their placeholders masked, as token ids (too
long ones dropped), grouped by length into batches of about `batch_tokens` padded tokens, and
those batches as padded tensors for teacher forcing.

Owns the data's shape only; knows nothing of the model, the optimizer, the schedule or the
files a run writes (train.py, state.py).
"""

from __future__ import annotations

import random

from tqdm import tqdm

from ..model import placeholders
from ..model.generate import pad_batch
from ..model.tokenizer import BOS_ID, EOS_ID, PAD_ID, Tokenizer


def encode_pairs(
    tokenizer: Tokenizer, pairs, max_len: int, augment=None, progress: bool = False
) -> list[tuple[list[int], list[int]]]:
    """(source ids, target ids) of each pair that fits `max_len`; `augment(source, target)`, when
    given, is the source the model is trained on (training/augment.py). `progress`: a bar on
    stderr (half a million pairs take a minute or two)."""
    out = []
    for p in tqdm(pairs, desc="encode", unit="pair", disable=not progress, mininterval=2, dynamic_ncols=True):
        source = augment(p.source, p.target) if augment is not None else p.source
        m, target = placeholders.mask_pair(source, p.target)
        src = tokenizer.encode_masked(m.text) + [EOS_ID]
        tgt = tokenizer.encode_masked(target) + [EOS_ID]
        if len(src) <= max_len and len(tgt) + 1 <= max_len:
            out.append((src, tgt))
    return out


def make_batches(data, batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by similar length, each batch about batch_tokens (padded) tokens."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]) + rng.random() * 2, len(data[i][1])))
    batches, batch, longest = [], [], 0
    for i in order:
        longest_if = max(longest, len(data[i][0]), len(data[i][1]) + 1)
        if batch and longest_if * (len(batch) + 1) > batch_tokens:
            batches.append(batch)
            batch, longest_if = [], max(len(data[i][0]), len(data[i][1]) + 1)
        batch.append(i)
        longest = longest_if
    if batch:
        batches.append(batch)
    rng.shuffle(batches)
    return batches


def tensors(data, idx, device: str = "cpu"):
    src, src_pad = pad_batch([data[i][0] for i in idx], PAD_ID)
    tgt_in, tgt_pad = pad_batch([[BOS_ID] + data[i][1] for i in idx], PAD_ID)
    tgt_out, _ = pad_batch([data[i][1] + [PAD_ID] for i in idx], PAD_ID)
    return tuple(t.to(device) for t in (src, src_pad, tgt_in, tgt_pad, tgt_out))
