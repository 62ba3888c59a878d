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

from traductor.model.transformer import MASK_VALUE, DecoderLayer, Transformer, padding_bias, sublayer


def io_names(n_layers: int) -> dict[str, list[str]]:
    layers = range(n_layers)
    past = [n for i in layers for n in (f"past_key_{i}", f"past_value_{i}")]
    cross = [n for i in layers for n in (f"cross_key_{i}", f"cross_value_{i}")]
    new = [n for i in layers for n in (f"new_key_{i}", f"new_value_{i}")]
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
    """One decoder layer for one new position per sequence, reading (never copying) a padded cache.

    A step has exactly one query position, so the token path stays two-dimensional, y (B, d):
    every projection is a single Gemm with its bias, and splitting into heads, (B, d) ->
    (B, h, 1, d_k), is a reshape with a constant shape (no transpose, no shape arithmetic).
    Q, K and V come from one fused (d, 3d) projection. Fewer, larger kernels per step matter
    most at batch 1, where the step is a few milliseconds.
    """
    attn, cross, pre = layer.self_attn, layer.cross_attn, layer.pre_norm
    h, dk = attn.h, attn.d_k
    d = h * dk
    scale = 1.0 / math.sqrt(dk)
    new_kv = []

    def self_attention(z):  # z (B, d): y, or LN(y) when pre-norm
        w_qkv = torch.cat([attn.w_q.weight * scale, attn.w_k.weight, attn.w_v.weight])  # (3d, d), folded at export
        b_qkv = torch.cat([attn.w_q.bias * scale, attn.w_k.bias, attn.w_v.bias])
        qkv = F.linear(z, w_qkv, b_qkv)  # (B, 3d); constant slices below, no shape arithmetic
        q, new_k, new_v = (qkv[:, i * d : (i + 1) * d].reshape(-1, h, 1, dk) for i in range(3))
        new_kv.extend([new_k, new_v])
        s_past = q @ past_k.transpose(-2, -1) + past_bias  # (B, h, 1, T)
        s_new = (q * new_k).sum(-1, keepdim=True)  # (B, h, 1, 1)
        w = F.softmax(torch.cat([s_past, s_new], dim=-1), dim=-1)  # (B, h, 1, T+1)
        out = w[..., :-1] @ past_v + w[..., -1:] * new_v  # (B, h, 1, d_k)
        return attn.w_o(out.reshape(-1, d))

    def cross_attention(z):
        q = F.linear(z, cross.w_q.weight * scale, cross.w_q.bias * scale).reshape(-1, h, 1, dk)
        w = F.softmax(q @ cross_k.transpose(-2, -1) + src_bias, dim=-1)  # (B, h, 1, n)
        return cross.w_o((w @ cross_v).reshape(-1, d))

    y = sublayer(y, layer.norm_1, self_attention, pre)
    y = sublayer(y, layer.norm_2, cross_attention, pre)
    return sublayer(y, layer.norm_3, layer.ffn, pre), new_kv[0], new_kv[1]


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
        y = m.embedding(input_ids[:, 0]) * m.embed_scale + m.positions[positions]  # (B, d), as embed()
        new = []
        for i, layer in enumerate(m.decoder_layers):
            y, k, v = step_layer(
                layer, y, past[2 * i], past[2 * i + 1], past_bias, cross[2 * i], cross[2 * i + 1], src_bias
            )
            new += [k, v]
        # y @ E^T is stored as a product with E's transposed copy, which ONNX Runtime packs and
        # then frees; one Gemm reading E itself (transB) made the NLLB-600M fp32 decoder 1 GB
        # smaller on disk but 1.1 GB larger resident (E's pages, mapped and read whole by the
        # packing, stay for the lookup): docs/big-models.md
        return (m.logits(y), *new)
