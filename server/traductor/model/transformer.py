"""The Transformer of "Attention Is All You Need", as the project's source documents describe it.

One file, read top to bottom:

    ModelConfig          the sizes (model/config.py, torch-free), saved with every checkpoint
    sinusoidal_positions PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)
    MultiHeadAttention   softmax(Q K^T / sqrt(d_k) + mask) V, per head, then W_O
    FeedForward          ReLU(x W1 + b1) W2 + b2
    EncoderLayer         post-norm: x = LN(x + SelfAttn(x)); x = LN(x + FFN(x))
    DecoderLayer         y = LN(y + MaskedSelfAttn(y)); y = LN(y + CrossAttn(y, C)); y = LN(y + FFN(y))
    Transformer          shared embedding (encoder input, decoder input, output projection + bias)

The paper's model is the default `ModelConfig`. Its variant fields describe the models people
import (traductor_export/importers.py): OPUS-MT (Marian) is this model with a swish feed-forward
and the sinusoid's sines and cosines in two halves; M2M100/NLLB is pre-norm (x = x + F(LN(x)),
with a last LN after the encoder and the decoder), fairseq's sinusoid starting at row pad + 1.

Shapes use the paper's names: B batch, n source length, t target length, d = d_model,
h = n_heads, d_k = d / h, V vocabulary size.

Two ways to run the decoder:
  * `decode(...)` over a whole target prefix with a causal mask (training, and the textbook
    no-cache inference loop that everything else is checked against);
  * `decode_step(...)` for one new token per sequence with a KV cache: the self-attention keys
    and values of earlier positions are passed in and the new ones returned, and the
    cross-attention keys/values `C W_K`, `C W_V` are computed once by `cross_kv(...)`.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import ModelConfig

# Added to attention scores at masked positions. A finite number keeps rows that are
# entirely masked (never the case for real inputs) free of NaN; exp(-1e9) is exactly 0 in fp32.
MASK_VALUE = -1e9


def sinusoidal_positions(max_len: int, d_model: int, layout: str = "interleaved", offset: int = 0) -> torch.Tensor:
    """Positional encodings of positions 0 .. max_len-1, (max_len, d_model); position p is row
    p + offset of the table.

    interleaved  the paper: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(the same)
    halves       Marian: the same angles, sines in the first half of the vector, cosines in the second
    fairseq      M2M100/NLLB: [sin | cos] of p * 10000^(-i/(d/2 - 1)), computed in fp32 as fairseq does
    """
    half = d_model // 2
    if layout == "fairseq":
        freq = torch.exp(torch.arange(half, dtype=torch.int64).float() * -(math.log(10000) / (half - 1)))
        angle = torch.arange(offset, offset + max_len, dtype=torch.int64).float()[:, None] * freq[None]
        return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)
    pos = torch.arange(offset, offset + max_len, dtype=torch.float64).unsqueeze(1)  # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d/2,)
    angle = pos / torch.pow(10000.0, two_i / d_model)  # (L, d/2)
    if layout == "halves":
        return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1).float()
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float()


ACTIVATIONS = {"relu": F.relu, "swish": F.silu, "gelu": F.gelu}


def padding_bias(pad_mask: torch.Tensor) -> torch.Tensor:
    """(B, n) bool, True at padding -> (B, 1, 1, n) additive bias for attention scores."""
    return (pad_mask.float() * MASK_VALUE)[:, None, None, :]


def causal_bias(t: int, device=None) -> torch.Tensor:
    """(1, 1, t, t) additive bias: position i may attend to positions <= i only."""
    future = torch.triu(torch.ones(t, t, dtype=torch.bool, device=device), diagonal=1)
    return (future.float() * MASK_VALUE)[None, None]


class MultiHeadAttention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.h, self.d_k = cfg.n_heads, cfg.d_k
        self.w_q = nn.Linear(cfg.d_model, cfg.d_model)
        self.w_k = nn.Linear(cfg.d_model, cfg.d_model)
        self.w_v = nn.Linear(cfg.d_model, cfg.d_model)
        self.w_o = nn.Linear(cfg.d_model, cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.d_k).transpose(1, 2)  # (B, h, T, d_k)

    def project_kv(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values of `x` (B, T, d), each (B, h, T, d_k)."""
        return self.split_heads(self.w_k(x)), self.split_heads(self.w_v(x))

    def attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """q (B, h, Tq, d_k), k/v (B, h, Tk, d_k), bias broadcastable to (B, h, Tq, Tk) -> (B, Tq, d)."""
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k) + bias  # (B, h, Tq, Tk)
        weights = self.dropout(F.softmax(scores, dim=-1))
        out = weights @ v  # (B, h, Tq, d_k)
        B, _, Tq, _ = out.shape
        return self.w_o(out.transpose(1, 2).reshape(B, Tq, self.h * self.d_k))

    def forward(self, x: torch.Tensor, memory: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """Queries from x (B, Tq, d); keys and values from memory (B, Tk, d)."""
        k, v = self.project_kv(memory)
        return self.attend(self.split_heads(self.w_q(x)), k, v, bias)


class FeedForward(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.w_1 = nn.Linear(cfg.d_model, cfg.d_ff)
        self.w_2 = nn.Linear(cfg.d_ff, cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)
        self.activation = ACTIVATIONS[cfg.activation]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


def sublayer(x: torch.Tensor, norm: nn.LayerNorm, f, pre_norm: bool) -> torch.Tensor:
    """Add & Norm around f: post-norm LN(x + f(x)) (the paper), or pre-norm x + f(LN(x))."""
    return x + f(norm(x)) if pre_norm else norm(x + f(x))


class EncoderLayer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(cfg)
        self.ffn = FeedForward(cfg)
        self.norm_1 = nn.LayerNorm(cfg.d_model)
        self.norm_2 = nn.LayerNorm(cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)
        self.pre_norm = cfg.pre_norm

    def forward(self, x: torch.Tensor, src_bias: torch.Tensor) -> torch.Tensor:
        x = sublayer(x, self.norm_1, lambda z: self.dropout(self.self_attn(z, z, src_bias)), self.pre_norm)
        return sublayer(x, self.norm_2, lambda z: self.dropout(self.ffn(z)), self.pre_norm)


class DecoderLayer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(cfg)
        self.cross_attn = MultiHeadAttention(cfg)
        self.ffn = FeedForward(cfg)
        self.norm_1 = nn.LayerNorm(cfg.d_model)
        self.norm_2 = nn.LayerNorm(cfg.d_model)
        self.norm_3 = nn.LayerNorm(cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)
        self.pre_norm = cfg.pre_norm

    def forward(self, y, memory, tgt_bias, src_bias):
        """Whole prefix at once: y (B, t, d), memory = C (B, n, d)."""
        pre = self.pre_norm
        y = sublayer(y, self.norm_1, lambda z: self.dropout(self.self_attn(z, z, tgt_bias)), pre)
        y = sublayer(y, self.norm_2, lambda z: self.dropout(self.cross_attn(z, memory, src_bias)), pre)
        return sublayer(y, self.norm_3, lambda z: self.dropout(self.ffn(z)), pre)

    def step(self, y, past_k, past_v, cross_k, cross_v, src_bias):
        """One new position: y (B, 1, d); past_k/v (B, h, p, d_k); cross_k/v (B, h, n, d_k).

        Returns the layer output (B, 1, d) and this position's self-attention key and value
        (B, h, 1, d_k) each, which the caller appends to the cache. No mask is needed: the
        cache holds only the past.
        """
        attn, cross, pre = self.self_attn, self.cross_attn, self.pre_norm
        new_kv = []

        def self_attention(z):
            new_k, new_v = attn.project_kv(z)
            new_kv.extend([new_k, new_v])
            k = torch.cat([past_k, new_k], dim=2)  # (B, h, p+1, d_k)
            v = torch.cat([past_v, new_v], dim=2)
            return attn.attend(attn.split_heads(attn.w_q(z)), k, v, 0.0)

        y = sublayer(y, self.norm_1, self_attention, pre)
        y = sublayer(
            y, self.norm_2, lambda z: cross.attend(cross.split_heads(cross.w_q(z)), cross_k, cross_v, src_bias), pre
        )
        return sublayer(y, self.norm_3, self.ffn, pre), new_kv[0], new_kv[1]


class Transformer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.embedding = nn.Embedding(cfg.vocab_size, cfg.d_model)  # W_E, shared three ways
        self.output_bias = nn.Parameter(torch.zeros(cfg.vocab_size))  # B in y W_E^T + B
        if not cfg.tied_output:  # y W_out + B instead of y W_E^T + B
            self.output_projection = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        positions = sinusoidal_positions(cfg.max_len, cfg.d_model, cfg.positions, cfg.position_offset)
        self.register_buffer("positions", positions, persistent=False)
        self.encoder_layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.n_encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.n_decoder_layers))
        if cfg.pre_norm:  # the last LN of each stack (post-norm layers end with one already)
            self.encoder_norm = nn.LayerNorm(cfg.d_model)
            self.decoder_norm = nn.LayerNorm(cfg.d_model)
        self.embed_scale = math.sqrt(cfg.d_model) if cfg.scale_embedding else 1.0
        self.dropout = nn.Dropout(cfg.dropout)
        self._init_weights()

    def _init_weights(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        nn.init.normal_(self.embedding.weight, mean=0.0, std=self.cfg.d_model**-0.5)

    def embed(self, ids: torch.Tensor, start: torch.Tensor | int = 0) -> torch.Tensor:
        """ids (B, T) -> (B, T, d): W_E[ids] * sqrt(d) + PE[start : start + T].

        `start` is an int, or a (B,) tensor of per-sequence positions (decode steps of a batch
        whose sequences are at different lengths).
        """
        T = ids.shape[1]
        if isinstance(start, int):
            pe = self.positions[start : start + T][None]  # (1, T, d)
        else:
            pe = self.positions[start[:, None] + torch.arange(T, device=ids.device)]  # (B, T, d)
        return self.dropout(self.embedding(ids) * self.embed_scale + pe)

    def encode(self, src: torch.Tensor, src_pad: torch.Tensor) -> torch.Tensor:
        """src (B, n) ids, src_pad (B, n) True at padding -> C (B, n, d)."""
        bias = padding_bias(src_pad)
        x = self.embed(src)
        for layer in self.encoder_layers:
            x = layer(x, bias)
        return self.encoder_norm(x) if self.cfg.pre_norm else x

    def logits(self, y: torch.Tensor) -> torch.Tensor:
        """(..., d) decoder output -> (..., V): y W_E^T + B (the last LN first, when pre-norm)."""
        if self.cfg.pre_norm:
            y = self.decoder_norm(y)
        if not self.cfg.tied_output:
            return self.output_projection(y) + self.output_bias
        return y @ self.embedding.weight.t() + self.output_bias

    def decode(self, tgt_in, memory, src_pad, tgt_pad=None):
        """Teacher forcing / no-cache decoding: tgt_in (B, t) -> logits (B, t, V)."""
        t = tgt_in.shape[1]
        bias = causal_bias(t, tgt_in.device)
        if tgt_pad is not None:
            bias = bias + padding_bias(tgt_pad)
        src_bias = padding_bias(src_pad)
        y = self.embed(tgt_in)
        for layer in self.decoder_layers:
            y = layer(y, memory, bias, src_bias)
        return self.logits(y)

    def forward(self, src, src_pad, tgt_in, tgt_pad=None):
        return self.decode(tgt_in, self.encode(src, src_pad), src_pad, tgt_pad)

    # ---- cached inference -------------------------------------------------------------

    def cross_kv(self, memory: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """C W_K and C W_V of every decoder layer, each (B, h, n, d_k): once per request."""
        return [layer.cross_attn.project_kv(memory) for layer in self.decoder_layers]

    def empty_cache(self, batch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
        shape = (batch, self.cfg.n_heads, 0, self.cfg.d_k)
        return [(torch.zeros(shape), torch.zeros(shape)) for _ in self.decoder_layers]

    def decode_step(self, token, position, cache, cross, src_pad):
        """token (B, 1), position (B,) -> logits (B, V) and the cache grown by one position."""
        y = self.embed(token, position)
        src_bias = padding_bias(src_pad)
        new_cache = []
        for layer, (pk, pv), (ck, cv) in zip(self.decoder_layers, cache, cross):
            y, k, v = layer.step(y, pk, pv, ck, cv, src_bias)
            new_cache.append((torch.cat([pk, k], dim=2), torch.cat([pv, v], dim=2)))
        return self.logits(y[:, -1]), new_cache
