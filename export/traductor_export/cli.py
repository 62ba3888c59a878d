"""`traductor export`: checkpoint -> ONNX bundle (the work is in traductor_export.convert)."""

from __future__ import annotations

import json
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("export", help="export a checkpoint to an ONNX bundle (encoder + KV-cached decoder step)")
    p.add_argument("--checkpoint", help="checkpoint directory (default: the bundled model)")
    p.add_argument("--out", required=True, help="bundle directory to write")
    p.add_argument("--quantize", choices=["int8"], help="dynamic int8 quantization of the matrix multiplications")
    p.add_argument("--force", action="store_true", help="overwrite an existing bundle")
    p.add_argument("--parity-tsv", help="check parity on the sources of this TSV (default: a built-in set)")
    p.set_defaults(func=run)


def run(args) -> None:
    from ..cli import UserError
    from ..training.corpus import load_split

    try:
        from traductor_export.convert import ExportError, export
    except ImportError as e:
        raise UserError(f"export needs torch and onnx ({e}); install the training extras") from e
    sentences = [p.source for p in load_split(Path(args.parity_tsv))] if args.parity_tsv else None
    try:
        config = export(Path(args.checkpoint) if args.checkpoint else None, Path(args.out), args.quantize, args.force,
                        sentences, progress=lambda msg: print(msg, flush=True))
    except ExportError as e:
        raise UserError(str(e)) from e
    print(json.dumps({"bundle": args.out, "quantization": config["quantization"], "parity": config["parity"],
                      "sha256": config["sha256"]}, indent=2))
