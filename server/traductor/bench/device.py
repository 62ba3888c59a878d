"""`traductor bench --device`: the same timed work as the engine's (engine.time_runner: SOURCE_LENGTH
source ids, exactly NEW_TOKENS new tokens, greedy, through the serving scheduler), on the PyTorch
runner (engine/torch_runner.py) on a device: random weights of --shape (seed 0, built in PyTorch,
nothing exported), or a bundle's model (--bundle) with its weights (engine/torch_weights.py).

The comparison with transformers' generate() on the same card, and the served throughput, are the
prepared GPU script's (scripts/measure/gpu_bench.py, docs/gpu.md). This module knows nothing of
the anchors, the service or ONNX.
"""

from __future__ import annotations

import json


def run(args, shape, batches: list[int]) -> dict:
    """The device's figures: {"device", "dtype", "runner", "tokens_per_second": {"1": ...}}."""
    from ..engine import torch_weights

    torch_weights.check_device(args.device, args.dtype or "")
    import torch

    from ..engine.torch_runner import TorchRunner
    from .engine import open_bundle, time_runner

    if args.bundle:
        bundle = open_bundle(args.bundle)
        runner = torch_weights.torch_runner(bundle, args.device, args.dtype or "", threads=args.threads)
        model = bundle.path.name
    else:
        runner = TorchRunner(random_transformer(shape), None, args.device, args.dtype or "", threads=args.threads)
        model = "random " + ",".join(map(str, shape))
    device = torch.cuda.get_device_name(runner.device) if runner.device.type == "cuda" else "cpu"
    return {
        "command": "traductor " + " ".join(args.argv),
        "model": model,
        "device": device,
        "runner": runner.describe(),
        "torch": torch.__version__,
        "tokens_per_second": time_runner(runner, batches, args.runs),
    }


def random_transformer(shape):
    """Random weights of (d_model, layers, heads, d_ff, vocab), seed 0: the model the exporter's
    bench bundles are made of (traductor_export/bench_bundle.py), in PyTorch."""
    import torch

    from ..model.config import ModelConfig
    from ..model.transformer import Transformer

    d, layers, heads, d_ff, vocab = shape
    torch.manual_seed(0)
    cfg = ModelConfig(vocab, d, heads, d_ff, layers, layers, dropout=0.0, max_len=128)
    return Transformer(cfg).eval()


def show(report: dict) -> str:
    """The figures as a few lines of text, then the JSON."""
    rows = [f"{report['model']} on {report['device']} ({report['runner']}, torch {report['torch']})"]
    rows += [f"  batch {b:>4}: {tps:>10.1f} output tokens/s" for b, tps in report["tokens_per_second"].items()]
    return "\n".join(rows) + "\n" + json.dumps(report)
