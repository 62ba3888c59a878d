"""The model runner: the two ONNX Runtime sessions and nothing else.

It knows the graphs' input and output names and shapes; it does not know about requests,
slots or sampling. The cache views it is given are zero-copy slices of the cache manager's
buffers; the decoder's outputs are written into preallocated buffers through IO binding, so a
step allocates nothing that grows with the batch.
"""

from __future__ import annotations

import os

import numpy as np
import onnxruntime as ort

from .bundle import Bundle


def session_options(threads: int) -> ort.SessionOptions:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
    return opts


class ModelRunner:
    def __init__(self, bundle: Bundle, threads: int = 0, max_rows: int = 64):
        self.bundle = bundle
        opts = session_options(threads)
        providers = ["CPUExecutionProvider"]
        self.encoder = ort.InferenceSession(str(bundle.file("encoder.onnx")), opts, providers=providers)
        self.decoder = ort.InferenceSession(str(bundle.file("decoder.onnx")), opts, providers=providers)
        io = bundle.config["io"]
        self.enc_out = io["encoder_outputs"]
        self.dec_in, self.dec_out = io["decoder_inputs"], io["decoder_outputs"]
        L, h, dk = bundle.n_layers, bundle.n_heads, bundle.d_k
        self.n_layers = L
        self.max_rows = max_rows
        # Output buffers, reused every step: logits, and each layer's new key/value.
        self.logits = np.zeros((max_rows, bundle.vocab_size), dtype=np.float32)
        self.new_kv = np.zeros((2 * L, max_rows, h, 1, dk), dtype=np.float32)
        self.binding = self.decoder.io_binding()

    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> list[np.ndarray]:
        """(B, n) ids and padding -> [cross_key_0, cross_value_0, ...], each (B, h, n, d_k)."""
        outputs = self.encoder.run(self.enc_out[1:], {"source_ids": source_ids, "source_padding": source_padding})
        return outputs

    def step(self, input_ids: np.ndarray, positions: np.ndarray, source_padding: np.ndarray,
             past: list[np.ndarray], cross: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """One decode step for B rows -> logits (B, V) and new K/V (2L, B, h, 1, d_k).

        Both results are views of buffers that the next step overwrites: use them before then.
        """
        B = input_ids.shape[0]
        if B > self.max_rows:
            raise ValueError(f"{B} rows exceed the runner's max_rows={self.max_rows}")
        b = self.binding
        b.clear_binding_inputs()
        b.clear_binding_outputs()
        arrays = [input_ids, positions, source_padding, *past, *cross]
        for name, array in zip(self.dec_in, arrays):
            _bind(b.bind_input, name, array)
        logits = self.logits[:B]
        new_kv = self.new_kv[:, :B]
        _bind(b.bind_output, self.dec_out[0], logits)
        for i, name in enumerate(self.dec_out[1:]):
            _bind(b.bind_output, name, new_kv[i])
        self.decoder.run_with_iobinding(b)
        return logits, new_kv


def _bind(bind, name: str, array: np.ndarray) -> None:
    """Bind a C-contiguous numpy array by pointer (zero copy)."""
    if not array.flags.c_contiguous:
        raise ValueError(f"{name}: array must be C-contiguous to bind without a copy")
    bind(name, "cpu", 0, array.dtype, list(array.shape), array.ctypes.data)
