"""The two graphs the server runs, written as small torch modules over a trained Transformer.

EncoderGraph (once per request)
    source_ids (B, n) int64, source_padding (B, n) bool (True at padding)
      -> encoder_output (B, n, d)
      -> cross_key_l, cross_value_l (B, h, n, d_k) for every decoder layer l: C W_K and C W_V,
         computed here once instead of at every step

DecoderStepGraph (once per generated token, for every active sequence at once)
    input_ids (B, 1) int64         the newest token of each sequence
    positions (B,) int64           its position, which is also how many past entries are valid
    source_padding (B, n) bool
    past_key_l, past_value_l       (B, h, T, d_k): the server's cache buffer, T >= max(positions);
                                   entries at j >= positions[b] are ignored (masked)
    cross_key_l, cross_value_l     (B, h, n, d_k)
      -> logits (B, V)             for the newest position only
      -> new_key_l, new_value_l    (B, h, 1, d_k): this position's self-attention key and value;
                                   the server writes them into its buffer at `positions`

Why the graph returns only the new entry instead of past->present: the server owns one
preallocated buffer per layer with a row per sequence ("slot"), hands ORT a zero-copy view of it
every step and writes the new entries in place, so no step copies or reallocates the cache.
Attention is computed over [past ; new] without concatenating the cache: scores for the past
(masked beyond each sequence's length) and for the new key are joined (a (B, h, 1, T+1) tensor,
tiny), softmaxed, and the two value products added. See docs/export.md.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from traductor.model.transformer import MASK_VALUE, DecoderLayer, Transformer, padding_bias


def io_names(n_layers: int) -> dict[str, list[str]]:
    layers = range(n_layers)
    past = [n for l in layers for n in (f"past_key_{l}", f"past_value_{l}")]
    cross = [n for l in layers for n in (f"cross_key_{l}", f"cross_value_{l}")]
    new = [n for l in layers for n in (f"new_key_{l}", f"new_value_{l}")]
    return {
        "encoder_inputs": ["source_ids", "source_padding"],
        "encoder_outputs": ["encoder_output"] + cross,
        "decoder_inputs": ["input_ids", "positions", "source_padding"] + past + cross,
        "decoder_outputs": ["logits"] + new,
    }


class EncoderGraph(nn.Module):
    def __init__(self, model: Transformer):
        super().__init__()
        self.model = model

    def forward(self, source_ids, source_padding):
        memory = self.model.encode(source_ids, source_padding)  # (B, n, d)
        flat = [t for kv in self.model.cross_kv(memory) for t in kv]
        return (memory, *flat)


def step_layer(layer: DecoderLayer, y, past_k, past_v, past_bias, cross_k, cross_v, src_bias):
    """One decoder layer for one new position, reading (never copying) a padded cache."""
    attn = layer.self_attn
    q = attn.split_heads(attn.w_q(y))  # (B, h, 1, d_k)
    new_k, new_v = attn.project_kv(y)  # (B, h, 1, d_k) each
    scale = 1.0 / math.sqrt(attn.d_k)
    s_past = (q @ past_k.transpose(-2, -1)) * scale + past_bias  # (B, h, 1, T)
    s_new = (q * new_k).sum(-1, keepdim=True) * scale  # (B, h, 1, 1)
    w = F.softmax(torch.cat([s_past, s_new], dim=-1), dim=-1)  # (B, h, 1, T+1)
    T = past_k.shape[2]
    out = w[..., :T] @ past_v + w[..., T:] * new_v  # (B, h, 1, d_k)
    B = out.shape[0]
    y = layer.norm_1(y + attn.w_o(out.transpose(1, 2).reshape(B, 1, attn.h * attn.d_k)))
    cross = layer.cross_attn
    y = layer.norm_2(y + cross.attend(cross.split_heads(cross.w_q(y)), cross_k, cross_v, src_bias))
    return layer.norm_3(y + layer.ffn(y)), new_k, new_v


class DecoderStepGraph(nn.Module):
    def __init__(self, model: Transformer):
        super().__init__()
        self.model = model

    def forward(self, input_ids, positions, source_padding, *caches):
        m = self.model
        L = len(m.decoder_layers)
        past, cross = caches[: 2 * L], caches[2 * L :]
        T = past[0].shape[2]
        valid = torch.arange(T, device=positions.device)[None, :] < positions[:, None]  # (B, T)
        past_bias = ((~valid).float() * MASK_VALUE)[:, None, None, :]  # (B, 1, 1, T)
        src_bias = padding_bias(source_padding)
        y = m.embed(input_ids, positions)  # (B, 1, d)
        new = []
        for l, layer in enumerate(m.decoder_layers):
            y, k, v = step_layer(layer, y, past[2 * l], past[2 * l + 1], past_bias, cross[2 * l], cross[2 * l + 1], src_bias)
            new += [k, v]
        return (m.logits(y[:, -1]), *new)
