"""The GPU figures of docs/gpu.md in one run (issue 42): the PyTorch runner behind the serving
scheduler against transformers' generate() on the same card, and `traductor serve --device cuda`
under load. Writes one JSON (default docs/gpu-<card>.json).

1. Two shapes with random weights (no model hub): OPUS-MT (Marian: d 512, 6+6 layers, 8 heads,
   d_ff 2048, vocab 59,514) and NLLB-200-distilled-600M (M2M100: d 1024, 12+12 layers, 16 heads,
   d_ff 4096, vocab 256,206). One transformers model per shape (seed 0) on the card; the runner's
   Transformer is built from that model's state dict by the importer's mapping (importers.build_model),
   so both run the same weights, cast to the same precision. For each batch size (1, 8, 32, 128):
   SOURCE_LENGTH source ids, exactly NEW_TOKENS new tokens (min = max, greedy), output tokens/s of
   the runner (through Scheduler + drive, as `traductor bench --device`) and of
   `generate(num_beams=1, do_sample=False, min_new_tokens=max_new_tokens=NEW_TOKENS)`, median of
   --runs timed runs after a warm-up, engines alternating which goes first.
2. Same weights, proven: the runner in fp32 and generate() in fp32 on 8 sources, identical outputs
   counted; and at the run's precision the count of outputs of 8 sources that change between
   decoding alone and in a batch of 32 (rows padded to a power of two, CUDA graphs) and with
   fixed_shapes (every step at max_rows rows and full windows).
   Then the same runner with its tokens chosen on the host (device_choice=False: every row's
   logits copied to the host as float32 each step, as before issue 58): identical outputs of 8,
   its tokens/s at each batch, and the step's milliseconds with and without the copy.
3. `traductor serve --device cuda` on the packaged en-es model (its bundle, its checkpoint's
   weights), the load generator's TranslateStream calls at 64 and 256 concurrent streams (closed
   loop, NEW_TOKENS tokens each), against the runner's own tokens/s on that model at batch 64 and
   256 with the same texts.

    python scripts/measure/gpu_bench.py                     # on a CUDA machine: under 8 minutes
    python scripts/measure/gpu_bench.py --smoke --out /tmp/gpu-smoke.json   # tiny shapes, any CPU

Needs torch (with CUDA), transformers and the exporter (bash scripts/setup.sh).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import transformers

from traductor.bench.engine import NEW_TOKENS, SOURCE_LENGTH, time_runner
from traductor.engine.request import FinishReason
from traductor.engine.scheduler import Scheduler
from traductor.engine.torch_runner import TorchRunner
from traductor.engine.translator import drive
from traductor.options import DecodingOptions
from traductor_export.hf_checkpoint import model_config, variants
from traductor_export.importers import build_model
from traductor_export.random_models import m2m100_config, marian_config

ROOT = Path(__file__).resolve().parents[2]
# name -> (model_type, d_model, layers, heads, d_ff, vocab, max positions): the published configs
SHAPES = {
    "opus-mt": ("marian", 512, 6, 8, 2048, 59514, 512),
    "nllb-600M": ("m2m_100", 1024, 12, 16, 4096, 256206, 1024),
}
SMOKE_SHAPES = {
    "opus-mt-tiny": ("marian", 64, 2, 4, 128, 1000, 128),
    "nllb-tiny": ("m2m_100", 64, 2, 4, 128, 1200, 128),
}
BATCHES, SMOKE_BATCHES = (1, 8, 32, 128), (1, 2)
SERVE_LEVELS, SMOKE_LEVELS = (64, 256), (2, 4)


def hf_model(kind: str, d: int, layers: int, heads: int, d_ff: int, vocab: int, positions: int, device):
    """A transformers model of the shape, random weights (seed 0), fp32 on `device`."""
    if kind == "marian":  # OPUS-MT's ids: EOS 0, PAD last and the decoder's start
        config = marian_config(vocab, d_model=d, layers=layers, heads=heads, d_ff=d_ff, max_positions=positions)
        cls = transformers.MarianMTModel
    else:  # NLLB's: BOS 0, PAD 1, EOS 2 (the decoder's start)
        sizes = dict(d_model=d, layers=layers, heads=heads, d_ff=d_ff, max_positions=positions)
        config = m2m100_config(vocab, pad_id=1, eos_id=2, bos_id=0, **sizes)
        cls = transformers.M2M100ForConditionalGeneration
    torch.manual_seed(0)
    with torch.device(device):
        model = cls(config).eval()
    # the length rules of generate() stay out: both engines take exactly NEW_TOKENS steps
    model.generation_config.forced_eos_token_id = None
    model.generation_config.bad_words_ids = None
    return model


def runner_for(model, kind: str, device: str, dtype: str, **options) -> TorchRunner:
    """The runner on the same weights: the importer's mapping of the model's state dict."""
    hf = model.config.to_dict()
    cfg = model_config(hf, hf["vocab_size"], **variants(kind, hf))
    with torch.device(device):  # the Transformer made where it runs: NLLB's init on a CPU takes long
        transformer = build_model(model, cfg)
    return TorchRunner(transformer, None, device, dtype, **options)


def make_sources(model, batch: int, seed: int = 0) -> list[list[int]]:
    """`batch` sources: SOURCE_LENGTH - 1 random ordinary ids, then EOS."""
    cfg = model.config
    rng = np.random.default_rng([seed, batch])
    ids = rng.integers(4, cfg.vocab_size - 1, size=(batch, SOURCE_LENGTH - 1))  # past both layouts' specials
    return [row + [cfg.eos_token_id] for row in ids.tolist()]


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def generate_ids(model, sources: list[list[int]], device: str) -> list[list[int]]:
    ids = torch.tensor(sources, device=device)
    with torch.no_grad():
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            num_beams=1,
            do_sample=False,
            min_new_tokens=NEW_TOKENS,
            max_new_tokens=NEW_TOKENS,
        )
    return [row[1:].tolist() for row in out]  # after the decoder's start


def time_generate(model, batch: int, runs: int, device: str) -> float:
    sources = make_sources(model, batch)
    generate_ids(model, sources, device)  # warm-up
    times = []
    for _ in range(runs):
        sync(device)
        t0 = time.perf_counter()
        out = generate_ids(model, sources, device)
        sync(device)
        times.append(time.perf_counter() - t0)
        if any(len(row) != NEW_TOKENS for row in out):
            raise RuntimeError(f"generate() did not give exactly {NEW_TOKENS} tokens per sentence")
    return round(batch * NEW_TOKENS / statistics.median(times), 1)


def runner_ids(runner: TorchRunner, sources: list[list[int]], rows: int) -> list[list[int]]:
    """The runner's greedy tokens (exactly NEW_TOKENS each) through a scheduler of `rows` rows."""
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, stop_loops=False)
    scheduler = Scheduler(runner, None, max_rows=rows, max_queue=len(sources) + 1)
    events = drive(scheduler, [(s, [], options) for s in sources])
    if any(e.reason is FinishReason.ERROR for e in events):
        raise RuntimeError(f"the runner failed: {next(e.error for e in events if e.error)}")
    return [e.token_ids for e in events]


def shape_figures(name: str, spec, batches, runs: int, device: str, dtype: str, progress) -> dict:
    kind, d, layers, heads, d_ff, vocab, positions = spec
    progress(f"{name}: building the random model and the runner on its weights")
    model = hf_model(kind, d, layers, heads, d_ff, vocab, positions, device)
    out = {"model_type": kind, "d_model": d, "layers": layers, "heads": heads, "d_ff": d_ff, "vocab": vocab}
    out["parameters"] = sum(p.numel() for p in model.parameters())

    # same weights: fp32 against fp32
    check = make_sources(model, 8, seed=1)
    fp32_runner = runner_for(model, kind, device, "fp32", cuda_graphs=False)
    same = sum(a == b for a, b in zip(runner_ids(fp32_runner, check, 8), generate_ids(model, check, device)))
    out["fp32_identical_to_generate"] = f"{same} of {len(check)}"
    del fp32_runner

    half = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[dtype]
    runner = runner_for(model, kind, device, dtype)
    model = model.to(half)
    out["runner"] = runner.describe()
    same = sum(a == b for a, b in zip(runner_ids(runner, check, 8), generate_ids(model, check, device)))
    out[f"{dtype}_identical_to_generate"] = f"{same} of {len(check)}"

    # same input, same output: alone against in a batch of 32 (bucketed shapes), and fixed shapes
    crowd = check + make_sources(model, 24, seed=2)
    alone = [runner_ids(runner, [s], 1)[0] for s in check]
    changed = sum(a != b for a, b in zip(alone, runner_ids(runner, crowd, 32)[: len(check)]))
    out["batch_changes_outputs"] = f"{changed} of {len(check)} (alone vs in a batch of 32)"
    fixed = runner_for(model.float(), kind, device, dtype, fixed_shapes=True)
    model = model.to(half)
    alone = [runner_ids(fixed, [s], 32)[0] for s in check]
    changed = sum(a != b for a, b in zip(alone, runner_ids(fixed, crowd, 32)[: len(check)]))
    out["batch_changes_outputs_fixed_shapes"] = f"{changed} of {len(check)} (alone vs in a batch of 32, 32 rows)"
    del fixed

    out["tokens_per_second"] = speeds(runner, model, batches, runs, device, progress, name)
    tps = out["tokens_per_second"]
    out["ratio"] = {b: round(tps["traductor"][b] / tps["transformers"][b], 2) for b in tps["traductor"]}
    # the same runner choosing on the host (every row's logits copied as float32, numpy's rules):
    # what token choice on the device (issue 58) is worth
    progress(f"{name}: the runner with tokens chosen on the host")
    host = runner_for(model.float(), kind, device, dtype, device_choice=False)
    model = model.to(half)
    same = sum(a == b for a, b in zip(runner_ids(host, check, 8), runner_ids(runner, check, 8)))
    out["host_choice_identical"] = f"{same} of {len(check)}"
    tps["traductor_host_choice"] = time_runner(host, batches, runs, sources_for=lambda n: make_sources(model, n))
    out["device_over_host_choice"] = {
        b: round(tps["traductor"][b] / tps["traductor_host_choice"][b], 2) for b in tps["traductor"]
    }
    # where a step's time goes: the runner's step alone (graph replay; the host-choice runner's also
    # copies the logits to the host) against a whole scheduler step (that, plus choosing the tokens
    # and the bookkeeping; encoder included)
    out["milliseconds_per_step"] = {
        "runner_step": {str(b): step_ms(runner, model, b, device) for b in batches},
        "runner_step_with_logits_copy": {str(b): step_ms(host, model, b, device) for b in batches},
        "scheduler_step": {b: round(1000 * int(b) / v, 3) for b, v in tps["traductor"].items()},
        "scheduler_step_host_choice": {b: round(1000 * int(b) / v, 3) for b, v in tps["traductor_host_choice"].items()},
    }
    del host
    return out


def free(device: str) -> None:
    """Give back what the last shape's models, caches and graphs held on the card."""
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def step_ms(runner: TorchRunner, model, batch: int, device: str, steps: int = 20) -> float:
    """Milliseconds of one runner.step over `batch` rows (after two warm-up steps), positions moving on."""
    sources = np.asarray(make_sources(model, batch))
    padding = sources == model.config.pad_token_id
    cache = runner.new_cache(batch)
    cache.add_rows(runner.encode(sources, padding), padding, [1] * batch)
    tokens = np.full((batch, 1), runner.model.bos_id, dtype=np.int64)
    times = []
    for position in range(steps + 2):
        positions = np.full(batch, position, dtype=np.int64)
        cache.ensure_positions(position)
        past, cross, source_padding = cache.views()
        sync(device)
        t0 = time.perf_counter()
        runner.step(tokens, positions, source_padding, past, cross)
        sync(device)  # with device choice the logits stay on the card and the step may still run
        times.append(time.perf_counter() - t0)
    return round(1000 * statistics.median(times[2:]), 3)


def speeds(runner, model, batches, runs: int, device: str, progress, name: str) -> dict:
    """Output tokens/s of the runner and of generate() at each batch size, alternating which goes first."""
    out: dict = {"traductor": {}, "transformers": {}}
    for i, batch in enumerate(batches):
        progress(f"{name}: batch {batch}")
        for engine in ("transformers", "traductor") if i % 2 else ("traductor", "transformers"):
            if engine == "traductor":
                timed = time_runner(runner, [batch], runs, sources_for=lambda n: make_sources(model, n))
                out[engine][str(batch)] = timed[str(batch)]
            else:
                out[engine][str(batch)] = time_generate(model, batch, runs, device)
    return out


def served_figures(levels, seconds: float, device: str, dtype: str, runs: int, progress) -> dict:
    """serve --device on the packaged en-es (TranslateStream at each level) and the runner's own."""
    from traductor.bench.service import prepare_inputs, run_service
    from traductor.engine import torch_weights
    from traductor.engine.bundle import load_bundle
    from traductor.packaged import MODELS_DIR

    bundle = load_bundle(MODELS_DIR / "en-es")
    with tempfile.TemporaryDirectory() as tmp:
        texts, inputs = prepare_inputs(None, bundle.path / "tokenizer.model", bundle.max_len, Path(tmp))
        tokenizer = bundle.tokenizer()
        encoded = [tokenizer.encode(t)[0] for t in texts.read_text().splitlines()]
        runner = torch_weights.torch_runner(bundle, device, dtype)
        progress("en-es: the runner's own tokens/s with the served texts")
        own = time_runner(
            runner, list(levels), runs, sources_for=lambda n: [encoded[i % len(encoded)] for i in range(n)]
        )
        del runner
        free(device)
        flags = ("--device", device) + (("--dtype", dtype) if dtype else ()) + ("--max-queued-requests", "1024")
        served = run_service(bundle.path, list(levels), seconds, 1, texts, progress, serve_flags=flags)
    out = {"model": "en-es (packaged)", "inputs": inputs, "runner_tokens_per_second": own, "serve": served}
    out["served_over_runner"] = {}
    for row in served["levels"]:
        rate = row["stream"].get("output_tokens_per_second")
        if rate:
            out["served_over_runner"][str(row["level"])] = round(rate / own[str(row["level"])], 2)
    return out


def environment(device: str) -> dict:
    env = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "cpu": platform.processor() or platform.machine(),
    }
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(torch.device(device))
        env.update(
            device=torch.cuda.get_device_name(torch.device(device)),
            memory_gib=round(props.total_memory / 2**30, 1),
            capability=f"{props.major}.{props.minor}",
            cudnn=torch.backends.cudnn.version(),
        )
    else:
        env["device"] = "cpu"
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny shapes, batches 1 and 2, 2 and 4 streams: any CPU")
    parser.add_argument("--device", help="default: cuda, or cpu with --smoke")
    parser.add_argument("--dtype", default="", help="the runner's and generate()'s precision (default fp16 on CUDA)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per point (median)")
    parser.add_argument("--serve-seconds", type=float, default=20, help="measured seconds per served level")
    parser.add_argument("--skip-serve", action="store_true", help="only the runner against generate()")
    parser.add_argument("--out", type=Path, help="default: docs/gpu-<card>.json")
    args = parser.parse_args()
    device = args.device or ("cpu" if args.smoke else "cuda")
    if device.startswith("cuda") and not torch.cuda.is_available():
        print(f"gpu_bench: no CUDA device (torch {torch.__version__}); --smoke runs on the CPU", file=sys.stderr)
        return 2
    dtype = args.dtype or ("fp16" if device.startswith("cuda") else "fp32")
    shapes, batches = (SMOKE_SHAPES, SMOKE_BATCHES) if args.smoke else (SHAPES, BATCHES)
    levels, seconds = (SMOKE_LEVELS, 2.0) if args.smoke else (SERVE_LEVELS, args.serve_seconds)
    if device == "cpu":
        torch.set_num_threads(1)
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:6.1f} s] {message}", file=sys.stderr, flush=True)

    env = environment(device)
    card = env["device"].lower().replace("nvidia ", "").replace(" ", "-")
    out = args.out or ROOT / "docs" / f"gpu-{card}.json"
    report = {
        "command": "python scripts/measure/gpu_bench.py " + " ".join(sys.argv[1:]),
        "environment": env,
        "dtype": dtype,
        "work": {"source_tokens": SOURCE_LENGTH, "new_tokens": NEW_TOKENS, "decoding": "greedy", "runs": args.runs},
        "shapes": {},
    }
    for name, spec in shapes.items():
        report["shapes"][name] = shape_figures(name, spec, batches, args.runs, device, dtype, progress)
        free(device)
        out.write_text(json.dumps(report, indent=2) + "\n")  # what is done so far survives a later failure
    if not args.skip_serve:
        try:
            report["served"] = served_figures(
                levels, seconds, device, dtype if device != "cpu" else "", args.runs, progress
            )
        except Exception as e:  # the runner's figures are kept; the JSON says what stopped this part
            report["served"] = {"error": f"{type(e).__name__}: {e}"}
    report["seconds"] = round(time.monotonic() - started, 1)
    out.write_text(json.dumps(report, indent=2) + "\n")
    progress(f"wrote {out}")
    return 1 if "error" in report.get("served", {}) else 0


if __name__ == "__main__":
    sys.exit(main())
