"""Anchor: CTranslate2 ``Translator.translate_batch`` on the random Marian model.

The saved Transformers model is converted once with CTranslate2's own
``TransformersConverter`` (its Marian loader) to a float32 CTranslate2 model under
``<model_dir>/ct2``. The converter normally reads a tokenizer from the model folder
only to learn the vocabulary and the EOS/UNK token strings; the random model has no
tokenizer, so :class:`VocabOnlyConverter` hands it a minimal stand-in that names
each id (``</s>``, ``<unk>``, ``tok2`` ... ``<pad>``, see ``common.token_string``).

Each source id is then passed as its token string, and the translator runs greedy
search with ``beam_size=1, min_decoding_length=32, max_decoding_length=32``,
``intra_threads=threads, inter_threads=1``. The hypotheses are checked to hold 32
tokens each.

Precisions: ``fp32`` (``compute_type="float32"``) and ``int8``
(``compute_type="int8"``: the float32 model quantized when loaded, as CTranslate2
users usually do).

Run it from the anchors virtual environment::

    python benchmarks/anchor_ctranslate2.py --shape 64,2,4,128,1000 --runs 1
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402
import make_marian  # noqa: E402

ENGINE = "ctranslate2"
PRECISIONS = ("fp32", "int8")
COMPUTE_TYPES = {"fp32": "float32", "int8": "int8"}


class VocabOnlyTokenizer:
    """The few tokenizer attributes CTranslate2's Marian loader reads."""

    bos_token = None
    eos_token = "</s>"
    unk_token = "<unk>"
    pad_token = "<pad>"

    def __init__(self, shape: common.Shape):
        self._tokens = common.vocabulary(shape)

    def get_vocab(self) -> dict[str, int]:
        return {token: index for index, token in enumerate(self._tokens)}

    def convert_ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self._tokens[ids]
        return [self._tokens[i] for i in ids]


def convert(model_dir: Path, shape: common.Shape) -> Path:
    """Convert the saved Marian model to CTranslate2 (float32) once; return its folder."""
    from ctranslate2.converters import TransformersConverter

    class VocabOnlyConverter(TransformersConverter):
        """TransformersConverter that does not look for tokenizer files."""

        def load_tokenizer(self, tokenizer_class, model_name_or_path, **kwargs):
            return VocabOnlyTokenizer(shape)

    output_dir = model_dir / "ct2"
    marker = output_dir / "converted.ok"
    if not marker.is_file():
        if output_dir.exists():
            shutil.rmtree(output_dir)
        common.log(f"[{ENGINE}] converting {model_dir} -> {output_dir}")
        VocabOnlyConverter(str(model_dir)).convert(str(output_dir), quantization=None)
        marker.write_text("ok\n")
    return output_dir


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_common_args(parser, PRECISIONS)
    args = parser.parse_args(argv)
    precisions = common.selected_precisions(args, PRECISIONS)

    import ctranslate2

    model_dir = make_marian.ensure_model(args.shape, args.seed, args.model_dir)
    ct2_dir = convert(model_dir, args.shape)
    translators: dict[str, "ctranslate2.Translator"] = {}

    def make_generate(precision: str, batch: int):
        if precision not in translators:
            translators.clear()  # keep one model in memory at a time
            translators[precision] = ctranslate2.Translator(
                str(ct2_dir),
                device="cpu",
                compute_type=COMPUTE_TYPES[precision],
                intra_threads=args.threads,
                inter_threads=1,
            )
        translator = translators[precision]
        source = [
            [common.token_string(int(i), args.shape) for i in row]
            for row in common.source_ids(batch, args.shape, args.seed)
        ]

        def generate() -> list[list[int]]:
            results = translator.translate_batch(
                source,
                beam_size=1,
                min_decoding_length=common.NEW_TOKENS,
                max_decoding_length=common.NEW_TOKENS,
                return_end_token=True,  # count an EOS too, should one be produced
            )
            return [[common.token_id(t, args.shape) for t in r.hypotheses[0]] for r in results]

        return generate

    doc = common.run_engine(
        ENGINE,
        args,
        precisions,
        make_generate,
        common.versions("ctranslate2", "transformers", "torch", "numpy"),
    )
    doc["settings"] = {
        "api": "Translator.translate_batch",
        "compute_types": {p: COMPUTE_TYPES[p] for p in precisions},
        "intra_threads": args.threads,
        "inter_threads": 1,
    }
    common.emit(doc)
    return 0 if doc["results"] else 1


if __name__ == "__main__":
    sys.exit(main())
