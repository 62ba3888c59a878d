"""The model runner: the two ONNX Runtime sessions and nothing else.

It knows the graphs' input and output names and shapes; it does not know about requests,
slots or sampling. It is one of the two runners the scheduler drives (runner_protocol.Runner; the
other is torch_runner.py), and makes its cache (cache.KVCache) with `new_cache`. The cache views
it is given are zero-copy slices of the cache manager's buffers; the decoder's outputs are written
into preallocated buffers through IO binding, so a step allocates nothing that grows with the
batch.
"""

from __future__ import annotations

import os

import numpy as np
import onnxruntime as ort

from ..errors import BundleError
from .bundle import Bundle
from .bundle_config import GRAPHS
from .cache import KVCache


def session_options(threads: int, spin: bool = True) -> ort.SessionOptions:
    """Sequential execution on `threads` intra-op threads. With `spin`, idle worker threads
    busy-wait for the next op *within* a run (lower latency per op, but CPU taken from anything
    else that runs: in the server, the gRPC and event-loop threads).

    Each session has its own thread pool, and a pool whose workers spin keeps spinning after its
    run returns, until its next run. The encoder runs once per admitted batch, so its workers
    would spin through every decoder step that follows, and the decoder's through every encoder
    run: three busy threads on two cores. `force_spinning_stop` ends the spinning when a run
    returns (docs/performance.md, "Thread pools and the cache's memory": x1.4 tokens/s at batch 1 on
    2 cores)."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    opts.add_session_config_entry("session.force_spinning_stop", "1")
    return opts


def _session(bundle: Bundle, name: str, opts: ort.SessionOptions) -> ort.InferenceSession:
    """An ONNX Runtime session of one graph; a graph it cannot load is a BundleError naming the file."""
    try:
        return ort.InferenceSession(str(bundle.file(name)), opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # ONNX Runtime's own exception types (InvalidProtobuf, Fail, ...)
        raise BundleError(f"{bundle.path / name}: ONNX Runtime cannot load this graph ({e})") from e


class ModelRunner:
    def __init__(self, bundle: Bundle, threads: int = 0, max_rows: int = 64, spin: bool = True):
        self.bundle = bundle
        opts = session_options(threads, spin)
        encoder, decoder = GRAPHS
        self.encoder, self.decoder = _session(bundle, encoder, opts), _session(bundle, decoder, opts)
        io = bundle.config.io  # the graphs' input and output names, as the bundle records them
        self.enc_in, self.enc_out = io["encoder_inputs"], io["encoder_outputs"]
        self.dec_in, self.dec_out = io["decoder_inputs"], io["decoder_outputs"]
        self.model, self.generation = bundle.model, bundle.config.generation  # runner_protocol.Runner
        L, h, dk = bundle.n_layers, bundle.n_heads, bundle.d_k
        self.n_layers = L
        self.max_rows = max_rows
        # Output buffers, reused every step: logits, and each layer's new key/value.
        self.logits = np.zeros((max_rows, bundle.vocab_size), dtype=np.float32)
        self.new_kv = np.zeros((2 * L, max_rows, h, 1, dk), dtype=np.float32)
        self.binding = self.decoder.io_binding()
        # IO bindings persist between runs: remember what each name is bound to, and rebind
        # only when a view changed (the batch grew or shrank, the cache window doubled).
        # Callers pass the *same* view objects while nothing changed, so identity is the test;
        # holding the bound arrays here also keeps their memory alive while ORT points at it.
        self._bound: dict[str, np.ndarray] = {}
        self._outputs: dict[int, tuple[np.ndarray, np.ndarray, list[np.ndarray]]] = {}

    def new_cache(self, max_rows: int) -> KVCache:
        """The numpy cache whose views this runner's step binds without a copy."""
        b = self.bundle
        return KVCache(b.n_layers, b.n_heads, b.d_k, max_rows)

    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> list[np.ndarray]:
        """(B, n) ids and padding -> [cross_key_0, cross_value_0, ...], each (B, h, n, d_k)."""
        return self.encoder.run(self.enc_out[1:], dict(zip(self.enc_in, (source_ids, source_padding), strict=True)))

    def step(
        self,
        input_ids: np.ndarray,
        positions: np.ndarray,
        source_padding: np.ndarray,
        past: list[np.ndarray],
        cross: list[np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray]:
        """One decode step for B rows -> logits (B, V) and new K/V (2L, B, h, 1, d_k).

        Both results are views of buffers that the next step overwrites: use them before then.
        """
        B = input_ids.shape[0]
        if B > self.max_rows:
            raise ValueError(f"{B} rows exceed the runner's max_rows={self.max_rows}")
        arrays = [input_ids, positions, source_padding, *past, *cross]
        for name, array in zip(self.dec_in, arrays):
            self._bind(name, array, output=False)
        if B not in self._outputs:
            new_kv = self.new_kv[:, :B]
            self._outputs[B] = (self.logits[:B], new_kv, [new_kv[i] for i in range(len(new_kv))])
        logits, new_kv, per_layer = self._outputs[B]
        self._bind(self.dec_out[0], logits, output=True)
        for name, array in zip(self.dec_out[1:], per_layer):
            self._bind(name, array, output=True)
        self.decoder.run_with_iobinding(self.binding)
        return logits, new_kv

    def _bind(self, name: str, array: np.ndarray, output: bool) -> None:
        """Bind a C-contiguous numpy array by pointer (zero copy), unless already bound to it."""
        if self._bound.get(name) is array:
            return
        if not array.flags.c_contiguous:
            raise ValueError(f"{name}: array must be C-contiguous to bind without a copy")
        bind = self.binding.bind_output if output else self.binding.bind_input
        bind(name, "cpu", 0, array.dtype, list(array.shape), array.ctypes.data)
        self._bound[name] = array
