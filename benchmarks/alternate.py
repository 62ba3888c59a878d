"""traductor and the anchors in ONE process, their decodes alternating one by one: for a machine
whose speed drifts by tens of percent within a minute (shared, loaded), where engines timed
minutes apart (run_anchors.py, `traductor bench --anchors`) compare mostly the load.

    python benchmarks/alternate.py --shape 1024,12,16,4096,256206 --precision int8 \
        --bundle DIR --batch 1 --batch 8 --pairs 3

Needs one interpreter that imports traductor, ctranslate2, torch and transformers (the anchors
venv with the project's venv on its path, or the project's venv with ctranslate2 added). The work
is the anchors' (common.py): the random Marian of `--shape` (make_marian.py; `--bundle` must be
traductor's export of that same model, as `traductor bench --anchors --keep` writes it), their
sources, greedy, exactly 32 new tokens, `--threads` threads for every engine. Per batch size,
`--pairs` rounds; in each, every engine decodes the batch once, the order rotated every round.
Prints each engine's median output tokens/s and the median over rounds of traductor's ratio to
each anchor (a ratio of decodes seconds apart), as a table and as JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import make_marian  # noqa: E402


def traductor_engine(bundle_dir: Path, threads: int, max_rows: int, spin: bool = True):
    from traductor.bench.engine import NEW_TOKENS, anchor_sources
    from traductor.engine.bundle import load_bundle
    from traductor.engine.runner import ModelRunner
    from traductor.engine.scheduler import Scheduler
    from traductor.engine.translator import drive
    from traductor.options import DecodingOptions

    runner = ModelRunner(
        load_bundle(bundle_dir, verify=False, tokenizer=False), threads=threads, max_rows=max_rows, spin=spin
    )
    options = DecodingOptions(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)

    def make(batch: int):
        srcs = anchor_sources(runner.model, batch)
        scheduler = Scheduler(runner, None, max_rows=batch, max_queue=batch)
        return lambda: drive(scheduler, [(s, [], options) for s in srcs])

    return make


def ctranslate2_engine(model_dir: Path, shape, precision: str, threads: int, seed: int):
    import anchor_ctranslate2
    import ctranslate2

    translator = ctranslate2.Translator(
        str(anchor_ctranslate2.convert(model_dir, shape)),
        device="cpu",
        compute_type=anchor_ctranslate2.COMPUTE_TYPES[precision],
        intra_threads=threads,
        inter_threads=1,
    )

    def make(batch: int):
        source = [[common.token_string(int(i), shape) for i in row] for row in common.source_ids(batch, shape, seed)]
        n = common.NEW_TOKENS
        return lambda: translator.translate_batch(source, beam_size=1, min_decoding_length=n, max_decoding_length=n)

    return make


def pytorch_engine(model_dir: Path, shape, precision: str, threads: int, seed: int):
    import torch
    from transformers import MarianMTModel

    torch.set_num_threads(threads)
    model = MarianMTModel.from_pretrained(model_dir).eval()
    if precision == "int8":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8).eval()

    def make(batch: int):
        ids = torch.from_numpy(common.source_ids(batch, shape, seed))
        n = common.NEW_TOKENS

        def generate():
            with torch.inference_mode():
                return model.generate(
                    input_ids=ids,
                    attention_mask=torch.ones_like(ids),
                    num_beams=1,
                    do_sample=False,
                    min_new_tokens=n,
                    max_new_tokens=n,
                )

        return generate

    return make


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", type=common.parse_shape, required=True)
    ap.add_argument("--bundle", type=Path, required=True, help="traductor's export of the same random Marian")
    ap.add_argument("--precision", choices=("fp32", "int8"), required=True)
    ap.add_argument("--batch", type=int, action="append")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=common.DEFAULT_SEED)
    ap.add_argument("--engines", default="ctranslate2,pytorch")
    ap.add_argument(
        "--no-spin",
        dest="spin",
        action="store_false",
        help="traductor's ONNX Runtime threads do not busy-wait (as `traductor serve` runs them; the bench spins)",
    )
    args = ap.parse_args()
    batches = args.batch or [1, 8, 32]
    model_dir = make_marian.ensure_model(args.shape, args.seed, None)
    builders = {"traductor": lambda: traductor_engine(args.bundle, args.threads, max(batches), args.spin)}
    if "ctranslate2" in args.engines:
        builders["ctranslate2"] = lambda: ctranslate2_engine(
            model_dir, args.shape, args.precision, args.threads, args.seed
        )
    if "pytorch" in args.engines:
        builders["pytorch"] = lambda: pytorch_engine(model_dir, args.shape, args.precision, args.threads, args.seed)
    engines = {name: build() for name, build in builders.items()}
    names = list(engines)
    report: dict = {"shape": args.shape.as_list(), "precision": args.precision, "threads": args.threads}
    report.update(spin=args.spin, batches={})
    for batch in batches:
        runs = {name: engines[name](batch) for name in names}
        for run in runs.values():
            run()  # warm-up
        rates: dict[str, list[float]] = {name: [] for name in names}
        for p in range(args.pairs):
            order = names[p % len(names) :] + names[: p % len(names)]
            for name in order:
                t0 = time.perf_counter()
                runs[name]()
                rates[name].append(batch * common.NEW_TOKENS / (time.perf_counter() - t0))
            common.log(f"batch {batch} round {p + 1}: " + ", ".join(f"{n} {rates[n][-1]:.1f}" for n in names))
        ratios = {
            n: round(statistics.median(t / a for t, a in zip(rates["traductor"], rates[n])), 3)
            for n in names
            if n != "traductor"
        }
        medians = {n: round(statistics.median(v), 2) for n, v in rates.items()}
        report["batches"][str(batch)] = {"tok_s": medians, "traductor_over": ratios, "rounds": rates}
        print(
            f"batch {batch}: "
            + ", ".join(f"{n} {v} tok/s" for n, v in medians.items())
            + f"; traductor / anchor {ratios}",
            flush=True,
        )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
