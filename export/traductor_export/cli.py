"""`traductor export`: checkpoint -> ONNX bundle (the work is in traductor_export.convert);
`traductor import`: a Hugging Face checkpoint -> ONNX bundle (traductor_export.importers).

Registered through the `traductor.commands` entry points of this distribution (export/pyproject.toml),
which `traductor.cli` discovers (traductor/plugins.py); importing this module needs neither torch
nor onnx (a torch-free install that asks for an export gets one line naming what to install).
"""

from __future__ import annotations

import json
from pathlib import Path

from traductor.errors import require_torch

# quantize.QUANTIZATIONS, repeated: that module needs onnx (tests/test_quantize.py checks they agree)
QUANTIZE_CHOICES = ("int8",)
QUANTIZE_HELP = (
    "int8: each weight product in 8 bits, activations quantized with scales calibrated on the parity "
    "sources (batch-invariant)"
)


def register(sub) -> None:
    p = sub.add_parser("export", help="export a checkpoint to an ONNX bundle (encoder + KV-cached decoder step)")
    p.add_argument("--checkpoint", help="checkpoint directory (default: the bundled model's checkpoint)")
    p.add_argument("--out", required=True, help="bundle directory to write")
    p.add_argument("--quantize", choices=QUANTIZE_CHOICES, help=QUANTIZE_HELP)
    p.add_argument("--force", action="store_true", help="overwrite an existing bundle")
    p.add_argument(
        "--parity-tsv",
        help="check parity, and calibrate int8, on the sources of this TSV (default: a built-in set)",
    )
    p.add_argument("--memory", help="translation memory to bundle (memory.tsv from `traductor corpus`)")
    p.set_defaults(func=run)


def run(args) -> None:
    from traductor.training.corpus import load_split

    require_torch("export", ("torch", "safetensors", "onnx"))
    from .convert import export

    sentences = [p.source for p in load_split(Path(args.parity_tsv))] if args.parity_tsv else None
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    config = export(
        checkpoint,
        Path(args.out),
        args.quantize,
        args.force,
        sentences,
        progress=lambda m: print(m, flush=True),
        memory=Path(args.memory) if args.memory else None,
    )
    summary = {"bundle": args.out, "quantization": config["quantization"], "parity": config["parity"]}
    if "memory" in config:
        summary["memory"] = config["memory"]
    print(json.dumps({**summary, "sha256": config["sha256"]}, indent=2))


def register_import(sub) -> None:
    p = sub.add_parser(
        "import",
        help="import a Hugging Face checkpoint (OPUS-MT/Marian, NLLB/M2M100) as an ONNX bundle",
        description="Reads a folder as save_pretrained writes it and writes a bundle equal to transformers "
        "token for token (docs/import.md). Needs torch and transformers; the bundle needs neither.",
    )
    p.add_argument(
        "hf_dir",
        metavar="MODEL",
        help="a checkpoint folder (config.json, model.safetensors, tokenizer files), or a Hugging Face Hub "
        "name such as Helsinki-NLP/opus-mt-en-fr, fetched into the Hub's cache (HF_HOME; HF_HUB_OFFLINE=1: "
        "the cache only)",
    )
    p.add_argument("--revision", help="with a Hub name: the branch, tag or commit to fetch (default: main)")
    p.add_argument("--out", required=True, help="bundle directory to write")
    p.add_argument("--quantize", choices=QUANTIZE_CHOICES, help=QUANTIZE_HELP)
    p.add_argument("--name", help="the name the bundle records (default: the folder's or the model's name)")
    p.add_argument(
        "--source",
        help="NLLB, M2M100: the default source, for calls that name none (every language is a source; "
        "default: the tokenizer's src_lang, e.g. eng_Latn); OPUS-MT: the code calls are routed by "
        "(default: tokenizer_config.json's source_lang)",
    )
    p.add_argument(
        "--target",
        help="a multilingual model's default target (NLLB: e.g. fra_Latn; a multi-target OPUS-MT: a >>xx<< code); "
        "a one-target OPUS-MT: the code calls are routed by (default: tokenizer_config.json's target_lang)",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing bundle")
    p.add_argument(
        "--parity-tsv",
        help="check parity, and calibrate int8, on the sources of this TSV (default: a built-in set of "
        "English messages; give sources in the model's language)",
    )
    p.set_defaults(func=run_import)


def run_import(args) -> None:
    require_torch("import", ("torch", "safetensors", "onnx", "transformers"))
    from traductor.training.corpus import load_split

    from .hub import locate
    from .importers import import_model

    hf_dir = locate(args.hf_dir, args.revision)
    sentences = [p.source for p in load_split(Path(args.parity_tsv))] if args.parity_tsv else None

    config = import_model(
        hf_dir,
        Path(args.out),
        args.quantize,
        args.name or Path(args.hf_dir).name or None,  # a Hub name's last part, not its snapshot's commit
        args.force,
        args.target,
        progress=lambda m: print(m, flush=True),
        source=args.source,
        parity_sentences=sentences,
    )
    summary = {"bundle": args.out, "name": config["name"], "quantization": config["quantization"]}
    print(json.dumps({**summary, "languages": config["languages"], "parity": config["parity"]}, indent=2))
