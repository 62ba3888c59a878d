"""Calibration for the int8 export: the range of every activation that int8 will quantize, read
off the optimized fp32 graphs while they translate a few sources greedily.

    encoder   the sources in batches of similar length; a padding position's values are left
              out (they never reach a real token, and their range is not the text's)
    decoder   greedy steps from the model's start token until every row has produced EOS or
              `max_new_tokens`; a row that has finished is left out from then on

The result maps each activation (a tensor name in the graphs) to (lowest, highest) value seen.
This module runs ONNX Runtime on the graphs as files: it knows the graphs' input and output
names (the bundle's `io`), the model's special ids and which tensors int8 quantizes
(quantize.activations), nothing of torch, tokenizers or bundles.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from traductor.model.config import ModelConfig

from .quantize import activations

BATCH = 32
MAX_NEW_TOKENS = 64


def _watching(path: Path) -> tuple[ort.InferenceSession, list[str]]:
    """A session of the graph at `path` that also returns the tensors int8 quantizes in it
    (quantize.activations), and their names. The graph goes to ONNX Runtime as a file beside
    `path` with its weights in a file of their own: an fp32 graph of NLLB-600M's size is over
    protobuf's 2 GB, which no single message (nor SerializeToString) can hold."""
    model = onnx.load(str(path))
    watched = activations(model.graph)
    have = {o.name for o in model.graph.output}
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(x) for x in watched if x not in have)
    copy = path.with_name(f"watched-{path.name}")
    onnx.save_model(model, str(copy), save_as_external_data=True, location=f"{copy.name}.weights")
    return ort.InferenceSession(str(copy), providers=["CPUExecutionProvider"]), watched


class Ranges:
    """The running (lowest, highest) of each watched tensor."""

    def __init__(self, names: list[str]):
        self.low = dict.fromkeys(names, np.inf)
        self.high = dict.fromkeys(names, -np.inf)

    def see(self, outputs: dict[str, np.ndarray], rows: np.ndarray, names: list[str]) -> None:
        """Take the values of `names` in the selected rows (a boolean mask over the leading axes)."""
        for x in names:
            values = outputs[x].reshape(*rows.shape, -1)[rows]
            if values.size:
                self.low[x] = min(self.low[x], float(values.min()))
                self.high[x] = max(self.high[x], float(values.max()))

    def result(self) -> dict[str, tuple[float, float]]:
        missing = [x for x, v in self.low.items() if not np.isfinite(v)]
        if missing:
            raise ValueError(f"calibration saw no value of {missing[:3]}: no sources, or all empty")
        return {x: (self.low[x], self.high[x]) for x in self.low}


def activation_ranges(
    graphs: tuple[Path, Path],
    io: dict,
    cfg: ModelConfig,
    sources: Sequence[Sequence[int]],
    max_new_tokens: int = MAX_NEW_TOKENS,
) -> dict[str, tuple[float, float]]:
    """The (lowest, highest) value of every tensor int8 quantizes in the fp32 `graphs` (encoder,
    decoder) while they translate `sources` (token ids ending with EOS)."""
    (encoder, enc_watched), (decoder, dec_watched) = _watching(graphs[0]), _watching(graphs[1])
    watched = (enc_watched, dec_watched)
    enc_names = [o.name for o in encoder.get_outputs()]
    dec_names = [o.name for o in decoder.get_outputs()]
    past_names = io["decoder_inputs"][3 : 3 + 2 * cfg.n_decoder_layers]
    cross_names = io["decoder_inputs"][3 + 2 * cfg.n_decoder_layers :]
    new_names = io["decoder_outputs"][1:]
    h, dk = cfg.n_heads, cfg.d_model // cfg.n_heads
    max_new_tokens = min(max_new_tokens, cfg.max_len)  # positions index the model's table
    ranges = Ranges(watched[0] + watched[1])
    by_length = sorted((list(s) for s in sources if len(s)), key=len)
    for start in range(0, len(by_length), BATCH):
        group = by_length[start : start + BATCH]
        B, n = len(group), max(map(len, group))
        ids = np.full((B, n), cfg.pad_id, np.int64)
        padding = np.ones((B, n), bool)
        for b, s in enumerate(group):
            ids[b, : len(s)], padding[b, : len(s)] = s, False
        out = dict(zip(enc_names, encoder.run(None, {"source_ids": ids, "source_padding": padding}), strict=True))
        ranges.see(out, ~padding, watched[0])
        feeds = {"source_padding": padding, **{name: out[name] for name in cross_names}}
        past = np.zeros((len(past_names), B, h, max_new_tokens, dk), np.float32)
        tokens = np.full((B, 1), cfg.bos_id, np.int64)
        active = np.ones(B, bool)
        for t in range(max_new_tokens):
            feeds["input_ids"], feeds["positions"] = tokens, np.full(B, t, np.int64)
            for i, name in enumerate(past_names):  # entries at t and after are masked: one is enough at t = 0
                feeds[name] = np.ascontiguousarray(past[i, :, :, : max(t, 1)])
            out = dict(zip(dec_names, decoder.run(None, feeds), strict=True))
            ranges.see(out, active, watched[1])
            for i, name in enumerate(new_names):
                past[i, :, :, t] = out[name][:, :, 0]
            chosen = out["logits"].argmax(-1)
            active &= chosen != cfg.eos_id
            if not active.any():
                break
            tokens = chosen[:, None].astype(np.int64)
    return ranges.result()
