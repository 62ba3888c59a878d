"""OPUS-MT (Marian) checkpoints for `traductor import`: their variant of the Transformer, their
tokenizer section (two SentencePiece models, one vocab.json, >>xx<< target codes) and languages.
The recipe (importers.py) loads, builds, exports and proves; this module only reads what differs.
"""

from __future__ import annotations

from pathlib import Path

from traductor.errors import ExportError
from traductor.model.tokenizer import TokenizerConfig

from .hf_checkpoint import Imported, cleans_up_spaces, generation_config, model_config, read_json, require, variants


def load_marian(hf_dir: Path, hf: dict, hf_tokenizer, source: str | None, target: str | None) -> Imported:
    """OPUS-MT: post-norm, [sin | cos] sinusoid, final_logits_bias; source.spm and target.spm with
    one vocab.json; a multi-target model takes a >>xx<< token at the start of the source.

    The languages the bundle declares (what calls are routed by) are `source` and `target`, else
    tokenizer_config.json's source_lang and target_lang, else "und"; a multi-target model's target
    is one of its >>xx<< codes (the default one; without it the text's own prefix, or none)."""
    if not hf.get("share_encoder_decoder_embeddings", True):
        raise ExportError(
            "config.json: share_encoder_decoder_embeddings=false (separate vocabularies) is not supported"
        )
    for key in ("normalize_before", "normalize_embedding", "add_final_layer_norm"):
        if hf.get(key):
            raise ExportError(f"config.json: {key}=true is not supported for marian")
    require(hf_dir, ["source.spm", "target.spm", "vocab.json"])
    vocab = read_json(hf_dir / "vocab.json")
    if len(vocab) > hf["vocab_size"]:
        raise ExportError(f"vocab.json has {len(vocab)} pieces, config.json's vocab_size is {hf['vocab_size']}")
    codes = {p[2:-2]: i for p, i in vocab.items() if p.startswith(">>") and p.endswith("<<")}
    cfg = model_config(hf, hf["vocab_size"], **variants("marian", hf))
    if codes and target is not None and target not in codes:
        raise ExportError(f"--target {target!r} is not one of the model's >>xx<< codes ({', '.join(sorted(codes))})")
    tokenizer = TokenizerConfig(
        source_model="source.spm",
        target_model="target.spm",
        decode_with="source",  # what transformers' MarianTokenizer.decode uses with a shared vocabulary
        vocab="vocab.json",
        special_ids=tuple(sorted(hf_tokenizer.all_special_ids)),
        languages=codes,
        target_language=target if codes else None,
        target_mode="prefix" if codes else "none",
        placeholders=False,
        clean_up_spaces=cleans_up_spaces(hf_tokenizer),
        unk_id=hf_tokenizer.unk_token_id,
        eos_id=hf["eos_token_id"],
    )
    files = {n: hf_dir / n for n in ("source.spm", "target.spm", "vocab.json")}
    source = source or getattr(hf_tokenizer, "source_lang", None) or "und"
    target = target or getattr(hf_tokenizer, "target_lang", None) or ("mul" if codes else "und")
    return Imported(cfg, tokenizer, files, {"source": source, "target": target}, generation_config(hf_dir, hf)[0])
