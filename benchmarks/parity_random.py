"""The export's parity proof on a bundle that `traductor bench --anchors --keep DIR` made from the
anchors' random Marian (benchmarks/make_marian.py): the same check `traductor export` runs before
it keeps a bundle (traductor_export/parity.py), for shapes no packaged checkpoint has.

    python benchmarks/parity_random.py BUNDLE MARIAN_DIR [--sentences 8] [--max-new-tokens 16]

BUNDLE is DIR/marian-<shape>/<precision> and MARIAN_DIR work/anchors/marian-<shape>-seed1234.
The sources are the parity's built-in sentences through the bundle's tokenizer (the default
model's, which the bench copies in: any ids will do for random weights). Prints the report as
one JSON line; fp32 must give onnx_identical 1.0 and max_abs_logit_diff <= 1e-4 (what the export
demands). Needs the exporter (pip install -e export).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from traductor.engine.bundle import load_bundle
from traductor.engine.translator import OnnxTranslator
from traductor_export import parity
from traductor_export.importers import transformer_from_pretrained


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", type=Path)
    ap.add_argument("marian", type=Path)
    ap.add_argument("--sentences", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=16)
    args = ap.parse_args()
    bundle = load_bundle(args.bundle)
    model = transformer_from_pretrained(args.marian).eval()
    translator = OnnxTranslator(bundle)
    sentences = parity.BUILTIN_SENTENCES[: args.sentences]
    report = parity.check(model, bundle.tokenizer(), translator, sentences, max_new_tokens=args.max_new_tokens)
    report.pop("onnx_texts")
    print(json.dumps({"bundle": str(args.bundle), "quantization": bundle.config.quantization, **report}))


if __name__ == "__main__":
    main()
