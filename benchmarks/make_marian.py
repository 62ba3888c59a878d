"""Build and save the random-weight Marian model that every anchor benchmarks.

The model is a ``transformers.MarianMTModel`` of the original Transformer
architecture at the requested shape, with weights drawn from ``torch.manual_seed(seed)``,
saved with ``save_pretrained`` (safetensors) under
``work/anchors/marian-SHAPE-seedSEED/``. Saving once and loading the same files
everywhere means every engine runs exactly the same weights.

Usage (from the anchors virtual environment)::

    python benchmarks/make_marian.py --shape 512,6,8,2048,32000 --seed 1234

The last stdout line is JSON: ``{"model_dir": "...", "created": true|false}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

#: Written next to the model once it is complete; its absence means "rebuild".
MARKER = "anchor-model.json"


def marian_config(shape: common.Shape):
    """A ``MarianConfig`` describing the benchmark architecture."""
    from transformers import MarianConfig

    return MarianConfig(
        vocab_size=shape.vocab,
        decoder_vocab_size=shape.vocab,
        d_model=shape.d_model,
        encoder_layers=shape.layers,
        decoder_layers=shape.layers,
        encoder_attention_heads=shape.heads,
        decoder_attention_heads=shape.heads,
        encoder_ffn_dim=shape.d_ff,
        decoder_ffn_dim=shape.d_ff,
        activation_function="relu",
        scale_embedding=True,  # embeddings times sqrt(d_model)
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,  # output projection = shared embedding
        max_position_embeddings=512,  # sinusoidal table; 24 + 32 positions are used
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=shape.pad_id,
        eos_token_id=common.EOS_ID,
        decoder_start_token_id=shape.pad_id,
        # Plain greedy decoding: no forced EOS as the last token, so the 32 new
        # tokens are 32 ordinary greedy steps in every engine.
        forced_eos_token_id=None,
        use_cache=True,
    )


def is_complete(model_dir: Path) -> bool:
    return (model_dir / MARKER).is_file()


def build_and_save(shape: common.Shape, seed: int, model_dir: Path) -> Path:
    """Create the random model and save it to ``model_dir`` (overwriting)."""
    import torch
    from transformers import GenerationConfig, MarianMTModel

    torch.manual_seed(seed)
    config = marian_config(shape)
    model = MarianMTModel(config).eval()
    model.generation_config = GenerationConfig(
        decoder_start_token_id=shape.pad_id,
        eos_token_id=common.EOS_ID,
        pad_token_id=shape.pad_id,
        forced_eos_token_id=None,
        num_beams=1,
        do_sample=False,
        use_cache=True,
    )
    model_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(model_dir)
    (model_dir / MARKER).write_text(json.dumps({"shape": shape.as_list(), "seed": seed}) + "\n")
    return model_dir


def ensure_model(shape: common.Shape, seed: int, model_dir: Path | None = None) -> Path:
    """Return the model directory, building the model there first if needed."""
    model_dir = model_dir or common.default_model_dir(shape, seed)
    if not is_complete(model_dir):
        common.log(f"building random Marian model {shape.as_list()} seed {seed} in {model_dir}")
        build_and_save(shape, seed, model_dir)
    return model_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", type=common.parse_shape, default=common.parse_shape(common.DEFAULT_SHAPE))
    parser.add_argument("--seed", type=int, default=common.DEFAULT_SEED)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--force", action="store_true", help="rebuild even if present")
    args = parser.parse_args(argv)
    model_dir = args.model_dir or common.default_model_dir(args.shape, args.seed)
    created = args.force or not is_complete(model_dir)
    if args.force:
        build_and_save(args.shape, args.seed, model_dir)
    else:
        ensure_model(args.shape, args.seed, model_dir)
    print(json.dumps({"model_dir": str(model_dir), "created": created}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
