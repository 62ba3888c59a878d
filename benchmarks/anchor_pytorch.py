"""Anchor: PyTorch + Hugging Face Transformers ``generate`` on the random Marian model.

What a user gets by running the model straight from Transformers on CPU:
``MarianMTModel.generate`` with greedy search (``num_beams=1, do_sample=False``) and
``min_new_tokens = max_new_tokens = 32`` under ``torch.inference_mode()``, with
``torch.set_num_threads(threads)``.

Precisions:

* ``fp32``: the model as saved.
* ``int8``: ``torch.ao.quantization.quantize_dynamic`` over every ``nn.Linear``
  (weights int8, activations quantized on the fly); embeddings stay fp32. The API is
  deprecated in recent PyTorch; when it is missing or fails, int8 is reported under
  ``skipped`` and fp32 is still measured.

Run it from the anchors virtual environment (see ``benchmarks/README.md``)::

    python benchmarks/anchor_pytorch.py --shape 64,2,4,128,1000 --runs 1

The last stdout line is the result JSON (see ``common.run_engine``).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import make_marian  # noqa: E402

ENGINE = "pytorch"
PRECISIONS = ("fp32", "int8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_common_args(parser, PRECISIONS)
    args = parser.parse_args(argv)
    precisions = common.selected_precisions(args, PRECISIONS)

    import torch
    from transformers import MarianMTModel

    torch.set_num_threads(args.threads)
    model_dir = make_marian.ensure_model(args.shape, args.seed, args.model_dir)
    fp32_model = MarianMTModel.from_pretrained(model_dir).eval()
    models: dict[str, torch.nn.Module] = {}

    def get_model(precision: str) -> torch.nn.Module:
        if precision not in models:
            if precision == "fp32":
                models[precision] = fp32_model
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the deprecation notices
                    models[precision] = torch.ao.quantization.quantize_dynamic(
                        fp32_model, {torch.nn.Linear}, dtype=torch.qint8
                    ).eval()
        return models[precision]

    def make_generate(precision: str, batch: int):
        model = get_model(precision)
        input_ids = torch.from_numpy(common.source_ids(batch, args.shape, args.seed))
        attention_mask = torch.ones_like(input_ids)

        def generate() -> list[list[int]]:
            with torch.inference_mode():
                out = model.generate(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    num_beams=1,
                    do_sample=False,
                    min_new_tokens=common.NEW_TOKENS,
                    max_new_tokens=common.NEW_TOKENS,
                )
            # Each row is the decoder start token followed by the new tokens.
            return out[:, 1:].tolist()

        return generate

    doc = common.run_engine(
        ENGINE,
        args,
        precisions,
        make_generate,
        common.versions("torch", "transformers", "numpy"),
    )
    doc["settings"] = {
        "api": "MarianMTModel.generate",
        "int8": "torch.ao.quantization.quantize_dynamic(nn.Linear, qint8)",
        "torch_num_threads": torch.get_num_threads(),
    }
    common.emit(doc)
    return 0 if doc["results"] else 1


if __name__ == "__main__":
    sys.exit(main())
