"""What a Hugging Face checkpoint's files say, read for the importers (importers.py runs the recipe):

    read_json, require          a file's JSON object; the files a loader needs (ExportError names a missing one)
    model_config                config.json -> the Transformer's ModelConfig (both stacks of one shape)
    generation_config           generation_config.json -> the decoding rules (GenerationConfig), refusing
                                the ones traductor does not apply
    variants                    the ModelConfig variant fields of a model_type
    cleans_up_spaces            whether transformers' decode() cleans up spaces for this tokenizer
    Imported                    what a family's loader (load_marian.py, load_m2m100.py) makes of a checkpoint

It does not load weights (the recipe does, through transformers) and knows no family's tokenizer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from traductor.errors import ExportError
from traductor.model.config import ModelConfig
from traductor.model.generation import GenerationConfig
from traductor.model.tokenizer import TokenizerConfig

ACTIVATIONS = {"relu": "relu", "swish": "swish", "silu": "swish", "gelu": "gelu"}
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


@dataclass
class Imported:
    """What a loader makes of a checkpoint."""

    cfg: ModelConfig
    tokenizer: TokenizerConfig
    files: dict[str, Path]  # bundle file name -> the checkpoint's file
    languages: dict  # {"source": ..., "target": ...} for the bundle's config
    generation: GenerationConfig


def read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ExportError(f"{path}: not readable JSON ({e})") from e
    if not isinstance(data, dict):
        raise ExportError(f"{path}: not a JSON object")
    return data


def require(hf_dir: Path, names: list[str]) -> None:
    missing = [n for n in names if not (hf_dir / n).is_file()]
    if missing:
        raise ExportError(f"{hf_dir} is missing {', '.join(missing)}")


def model_config(hf: dict, vocab_size: int, **variants) -> ModelConfig:
    """The Transformer's config from transformers' (both stacks must have the same shape)."""
    pairs = [("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim")]
    for a, b in pairs:
        if hf.get(a) != hf.get(b):
            raise ExportError(f"config.json: {a}={hf.get(a)} and {b}={hf.get(b)} differ; traductor needs them equal")
    activation = ACTIVATIONS.get(hf.get("activation_function", "relu"))
    if activation is None:
        raise ExportError(
            f"config.json: activation_function={hf.get('activation_function')!r}; supported: {', '.join(ACTIVATIONS)}"
        )
    try:
        return ModelConfig(
            vocab_size=vocab_size,
            d_model=hf["d_model"],
            n_heads=hf["encoder_attention_heads"],
            d_ff=hf["encoder_ffn_dim"],
            n_encoder_layers=hf["encoder_layers"],
            n_decoder_layers=hf["decoder_layers"],
            dropout=0.0,
            max_len=hf["max_position_embeddings"],
            pad_id=hf["pad_token_id"],
            eos_id=hf["eos_token_id"],
            bos_id=hf["decoder_start_token_id"],
            activation=activation,
            scale_embedding=bool(hf.get("scale_embedding", False)),
            **variants,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ExportError(f"config.json: missing or bad {e}") from e


def generation_config(hf_dir: Path, hf: dict) -> tuple[GenerationConfig, dict]:
    """The decoding rules transformers would apply (generation_config.json, else config.json)."""
    path = hf_dir / "generation_config.json"
    gen = read_json(path) if path.is_file() else hf
    unsupported = {
        "no_repeat_ngram_size": 0,
        "repetition_penalty": 1.0,
        "encoder_no_repeat_ngram_size": 0,
        "min_length": 0,
        "min_new_tokens": None,
        "diversity_penalty": 0.0,
        "num_beam_groups": 1,
        "do_sample": False,
    }
    for key, neutral in unsupported.items():
        if gen.get(key) not in (neutral, None):
            raise ExportError(f"{path.name}: {key}={gen[key]!r} is not supported (traductor decodes without it)")
    suppressed = list(gen.get("suppress_tokens") or [])
    for words in gen.get("bad_words_ids") or []:
        if len(words) != 1:
            raise ExportError(f"{path.name}: bad_words_ids of more than one token are not supported: {words}")
        suppressed += words
    early = gen.get("early_stopping", False)
    if early not in (True, False):
        raise ExportError(f"{path.name}: early_stopping={early!r} is not supported (true or false)")
    forced_eos = gen.get("forced_eos_token_id")
    if forced_eos not in (None, hf["eos_token_id"]):
        raise ExportError(f"{path.name}: forced_eos_token_id={forced_eos} is not the EOS token")
    config = GenerationConfig(
        beam="transformers",
        length_penalty=float(gen.get("length_penalty", 1.0)),
        early_stopping=early,
        suppressed_ids=tuple(sorted(set(suppressed))),
        forced_eos_at_limit=forced_eos is not None,
        renormalize=bool(gen.get("renormalize_logits", False)),
    )
    return config, gen


def cleans_up_spaces(hf_tokenizer) -> bool:
    """Whether transformers' decode() applies clean_up_tokenization for this tokenizer: when its
    tokenizer_config.json asks for it, except on a fast BPE tokenizer (NLLB's), where transformers
    skips it unless told to corrupt the output anyway. The import proves the texts equal."""
    if not getattr(hf_tokenizer, "clean_up_tokenization_spaces", False):
        return False
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    if backend is not None and type(backend.model).__name__ == "BPE":
        return bool(getattr(hf_tokenizer, "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output", 0))
    return True


def variants(model_type: str, hf: dict) -> dict:
    """The ModelConfig variant fields of a model_type (docs/import.md has the table)."""
    if model_type == "marian":
        return {"positions": "halves"}
    return {"positions": "fairseq", "position_offset": hf["pad_token_id"] + 1, "pre_norm": True}
