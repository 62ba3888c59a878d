"""The PyTorch runner: the model's own weights in PyTorch, on a CUDA GPU or the CPU, behind the
same scheduler as the ONNX Runtime runner (runner_protocol.Runner).

    encode(ids, padding)   the encoder once per admitted batch, then every decoder layer's
                           cross-attention K/V, stacked (2L, B, h, n, d_k) for the cache
    step(tokens, positions, padding, cache, ...)
                           one decoder step over the running rows: each row's new self-attention
                           key/value written into the cache at its position, attention over the
                           cache's windows (T positions, N source tokens; entries past a row's
                           position or source masked), logits (B, V) float32: left on the device
                           for `choice` (torch_choice.py: the tokens chosen there, only they come
                           to the host), or, with device_choice=False, copied to host memory

It runs the modules of model/transformer.py (the reference's own layers: the same embedding,
sinusoid, norms, feed-forward and output projection), so a model is what its checkpoint or its
importer built, and its shape is the ModelConfig that came with it: nothing is restated here.

On CUDA the weights run in fp16 (or bf16, fp32), and a decoder step is captured as a CUDA graph
per shape (rows padded to a power of two, the windows) and replayed: one launch instead of a few
hundred kernels, which is what a small step's time is made of. A capture that fails turns graphs
off for the runner (logged) and it goes on eagerly. On the CPU it runs eagerly in fp32, which
is how the suite tests it against the reference decoding (tests/test_torch_runner.py).

A row's result reads only that row's inputs and cache; whether its bits also do not depend on the
batch's shape (rows, windows) is the kernels' business: `fixed_shapes` runs every step at
max_rows rows and full windows, so that no shape changes (docs/gpu.md, "Same input, same output").

It does not know requests, sampling or beams (the scheduler and its chooser do, on the logits:
torch_choice.py on the device, decoding.py on the host), nor where the weights came from
(torch_weights.py).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..model.generation import GenerationConfig
from ..model.transformer import MASK_VALUE, Transformer, sublayer
from .cache import capacity
from .torch_cache import TorchKVCache
from .torch_choice import TorchChoice

log = logging.getLogger("traductor.engine")

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
MAX_GRAPHS = 64  # captured steps kept per cache (the least recently used beyond go)


def mask_value(dtype: torch.dtype) -> float:
    """Added to masked attention scores: the reference's -1e9 in fp32; in half precision a value
    that stays finite when scores are added to it (exp of it is 0 all the same)."""
    return MASK_VALUE if dtype == torch.float32 else torch.finfo(dtype).min / 2


class TorchRunner:
    def __init__(
        self,
        transformer: Transformer,
        generation: GenerationConfig | None = None,
        device: str = "cpu",
        dtype: str = "",
        cuda_graphs: bool = True,
        fixed_shapes: bool = False,
        threads: int = 0,
        device_choice: bool = True,
    ):
        """Takes `transformer` over (moved to the device, cast to the dtype). dtype: fp32, fp16,
        bf16, or "" for fp16 on CUDA and fp32 on the CPU. threads: on the CPU, PyTorch's intra-op
        threads (the process's setting; 0: PyTorch's default, every core). device_choice: tokens
        chosen on the device (`choice`, torch_choice.py), the logits never copied to the host;
        False: `step` copies them to the host and decoding.py chooses there."""
        self.device = torch.device(device)
        cuda = self.device.type == "cuda"
        if threads and not cuda:
            torch.set_num_threads(threads)
        self.dtype = DTYPES[dtype or ("fp16" if cuda else "fp32")]
        self.net = transformer.eval().to(device=self.device, dtype=self.dtype)
        self.model, self.generation = transformer.cfg, generation  # runner_protocol.Runner
        self.mask = mask_value(self.dtype)
        self.cuda_graphs = cuda and cuda_graphs
        self.fixed_shapes = fixed_shapes
        self.choice = TorchChoice(self.device) if device_choice else None  # choice.chooser reads it

    def describe(self) -> str:
        """How it runs, for logs and reports: "cuda:0 fp16, CUDA graphs"."""
        graphs = ", CUDA graphs" if self.cuda_graphs else ""
        name = {v: k for k, v in DTYPES.items()}[self.dtype]
        choice = ", tokens chosen on the device" if self.choice else ", tokens chosen on the host"
        return f"{self.device} {name}{graphs}" + (", fixed shapes" if self.fixed_shapes else "") + choice

    def new_cache(self, max_rows: int) -> TorchKVCache:
        m = self.model
        return TorchKVCache(
            m.n_decoder_layers, m.n_heads, m.d_k, max_rows, m.max_len, self.device, self.dtype, self.mask
        )

    # ---- the encoder ------------------------------------------------------------------------

    @torch.no_grad()
    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> torch.Tensor:
        """(B, n) ids and padding -> cross-attention K/V of every decoder layer, (2L, B, h, n, d_k)."""
        net = self.net
        src = torch.from_numpy(source_ids).to(self.device)
        pad = torch.from_numpy(source_padding).to(self.device)
        bias = (pad.to(self.dtype) * self.mask)[:, None, None, :]  # model/transformer.padding_bias
        x = net.embed(src)
        for layer in net.encoder_layers:
            x = layer(x, bias)
        if net.cfg.pre_norm:
            x = net.encoder_norm(x)
        return torch.stack([t for kv in net.cross_kv(x) for t in kv])

    # ---- a decoder step ---------------------------------------------------------------------

    @torch.no_grad()
    def step(self, input_ids: np.ndarray, positions: np.ndarray, source_padding, past: TorchKVCache, cross=None):
        """One step of the cache's B rows -> logits (B, V) float32 (valid until the next step) and
        None (the new K/V are in the cache already). The logits stay on the device with
        device_choice (for `choice` to read; on CUDA the step may still be running: the choice's
        copy of its result waits for it), else they come to the host as numpy."""
        cache = past
        B = len(positions)
        shape = self._shape(cache, B)
        rows = shape[0]
        tokens = np.full(rows, self.model.pad_id, dtype=np.int64)  # rows past B: padding, at position 0
        tokens[:B] = input_ids[:, 0]
        where = np.zeros(rows, dtype=np.int64)
        where[:B] = positions
        cache.tokens[:rows].copy_(torch.from_numpy(tokens), non_blocking=True)
        cache.positions[:rows].copy_(torch.from_numpy(where), non_blocking=True)
        logits = self._graph(cache, shape) if self.cuda_graphs else None
        if logits is None:
            logits = self._forward(cache, *shape)
        if self.choice is not None:
            return logits[:B], None
        if self.device.type != "cuda":
            return logits[:B].numpy(), None
        host = self._host(cache)
        host[:B].copy_(logits[:B], non_blocking=True)
        torch.cuda.current_stream(self.device).synchronize()
        return host[:B].numpy(), None

    def _shape(self, cache: TorchKVCache, B: int) -> tuple[int, int, int]:
        """(rows, T, N) of the step: B rows (on CUDA, padded to a power of two so that graphs are
        few), the cache's windows; with fixed_shapes every row and the full windows."""
        if self.fixed_shapes:
            return cache.max_rows, cache.max_len, cache.max_len
        rows = min(capacity(B, 1), cache.max_rows) if self.device.type == "cuda" else B
        return rows, cache.T, cache.N

    def _forward(self, cache: TorchKVCache, rows: int, T: int, N: int) -> torch.Tensor:
        """The step over `rows` rows of the cache (its tokens and positions already in place):
        logits (rows, V) float32. Reads only fixed buffers, so that a CUDA graph can replay it."""
        net, pre = self.net, self.net.cfg.pre_norm
        tokens, positions = cache.tokens[:rows], cache.positions[:rows]
        index = torch.arange(rows, device=self.device)
        y = net.embedding(tokens) * net.embed_scale + net.positions[positions]  # (rows, d), as embed()
        past_bias = (torch.arange(T, device=self.device)[None, :] > positions[:, None]).to(self.dtype) * self.mask
        past_bias = past_bias[:, None, None, :]  # (rows, 1, 1, T): a row sees its positions 0..p
        src_bias = cache.cross_bias[:rows, :N][:, None, None, :]
        h, dk = self.model.n_heads, self.model.d_k
        scale = math.sqrt(dk)

        def attend(q, k, v, bias):  # q (rows, d); k, v (rows, h, S, d_k) -> (rows, d)
            scores = q.view(rows, h, 1, dk) @ k.transpose(-2, -1) / scale + bias
            return (F.softmax(scores, dim=-1) @ v).reshape(rows, h * dk)

        for i, layer in enumerate(net.decoder_layers):
            keys, values = cache.self_kv[2 * i], cache.self_kv[2 * i + 1]
            cross_k, cross_v = cache.cross_kv[2 * i, :rows, :, :N], cache.cross_kv[2 * i + 1, :rows, :, :N]
            attn, cross = layer.self_attn, layer.cross_attn

            def self_attention(z, keys=keys, values=values, attn=attn):
                keys[index, :, positions] = attn.w_k(z).view(rows, h, dk)  # this position's, in place
                values[index, :, positions] = attn.w_v(z).view(rows, h, dk)
                out = attend(attn.w_q(z), keys[:rows, :, :T], values[:rows, :, :T], past_bias)
                return attn.w_o(out)

            def cross_attention(z, k=cross_k, v=cross_v, cross=cross):
                return cross.w_o(attend(cross.w_q(z), k, v, src_bias))

            y = sublayer(y, layer.norm_1, self_attention, pre)
            y = sublayer(y, layer.norm_2, cross_attention, pre)
            y = sublayer(y, layer.norm_3, layer.ffn, pre)
        return net.logits(y).float()

    # ---- CUDA graphs ------------------------------------------------------------------------

    def _graph(self, cache: TorchKVCache, shape: tuple[int, int, int]) -> torch.Tensor | None:
        """Replay the step captured for `shape` (capturing it first); None when graphs are off."""
        entry = cache.graphs.pop(shape, None)
        if entry is None:
            try:
                entry = self._capture(cache, shape)
            except Exception:  # an op or a driver that cannot capture: run eagerly from now on
                log.exception("CUDA graph capture failed at rows, T, N = %s; decoding without graphs", shape)
                self.cuda_graphs = False
                cache.graphs.clear()
                return None
            if len(cache.graphs) >= MAX_GRAPHS:
                cache.graphs.pop(next(iter(cache.graphs)))
        cache.graphs[shape] = entry  # most recently used last
        graph, logits = entry
        graph.replay()
        return logits

    def _capture(self, cache: TorchKVCache, shape: tuple[int, int, int]):
        """Warm up on a side stream, then capture. Both run the step on the current inputs, and
        write what the replay writes (each row's new K/V at its position): nothing is disturbed."""
        if cache.pool is None:
            cache.pool = torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream(self.device)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            self._forward(cache, *shape)
        torch.cuda.current_stream(self.device).wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=cache.pool):
            logits = self._forward(cache, *shape)
        return graph, logits

    def _host(self, cache: TorchKVCache) -> torch.Tensor:
        """Pinned host memory for a cache's logits, (R, V) float32, made at its first step."""
        if cache.host_logits is None:
            cache.host_logits = torch.empty((cache.max_rows, self.model.vocab_size), pin_memory=True)
        return cache.host_logits
