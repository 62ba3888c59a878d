"""M2M100-architecture checkpoints for `traductor import`: NLLB-200 with its NllbTokenizer
(FLORES-200 codes such as fra_Latn) and M2M100 with its own M2M100Tokenizer (vocab.json and
__fr__ codes). Both put the source language's token first and force the target's as the first
output token, so one bundle translates between all its languages: a call names its source and its
target (TokenizerConfig.source_mode "per_call"). The recipe (importers.py) loads, builds, exports
and proves.
"""

from __future__ import annotations

import re
from pathlib import Path

from traductor.errors import ExportError
from traductor.model.tokenizer import TokenizerConfig

from .hf_checkpoint import Imported, cleans_up_spaces, generation_config, model_config, read_json, require, variants

TOKENIZERS = ("NllbTokenizer", "NllbTokenizerFast", "M2M100Tokenizer")


def load_m2m_100(hf_dir: Path, hf: dict, hf_tokenizer, source: str | None, target: str | None) -> Imported:
    """NLLB-200 and M2M100: pre-norm with final layer norms, fairseq's sinusoid from row pad + 1, no
    output bias; the source language's token first, the target language's forced as the first output.

    Every language is a source and a target; the default source (a call naming none) is `source`,
    else the tokenizer's src_lang; the default target `target`, else generation_config.json's
    forced_bos_token_id, else the tokenizer's tgt_lang."""
    kind = type(hf_tokenizer).__name__
    if kind not in TOKENIZERS:
        raise ExportError(f"tokenizer {kind} is not supported for m2m_100; supported: {', '.join(TOKENIZERS)}")
    layout_of = m2m100_layout if kind == "M2M100Tokenizer" else nllb_layout
    codes, layout = layout_of(hf_dir, hf_tokenizer)
    generation, gen = generation_config(hf_dir, hf)
    by_id = {i: c for c, i in codes.items()}
    default_target = target or by_id.get(gen.get("forced_bos_token_id")) or getattr(hf_tokenizer, "tgt_lang", None)
    if default_target is not None and default_target not in codes:
        raise ExportError(f"--target {default_target!r} is not one of the model's languages")
    if source is not None:
        if source not in codes:
            raise ExportError(f"--source {source!r} is not one of the model's languages")
        hf_tokenizer.src_lang = source  # what the tokenizer check at import compares with
    source = hf_tokenizer.src_lang
    cfg = model_config(hf, hf["vocab_size"], **variants("m2m_100", hf))
    tokenizer = TokenizerConfig(
        source_model="sentencepiece.bpe.model",
        target_model="sentencepiece.bpe.model",
        special_ids=tuple(sorted(set(hf_tokenizer.all_special_ids) | set(codes.values()))),
        languages=codes,
        source_language=source,
        source_mode="per_call",
        target_language=default_target,
        target_mode="forced",
        placeholders=False,
        clean_up_spaces=cleans_up_spaces(hf_tokenizer),
        unk_id=hf_tokenizer.unk_token_id,
        eos_id=hf["eos_token_id"],
        **layout,
    )
    files = {name: hf_dir / name for name in tokenizer.files()}
    return Imported(cfg, tokenizer, files, {"source": source, "target": default_target or "mul"}, generation)


def nllb_layout(hf_dir: Path, hf_tokenizer) -> tuple[dict[str, int], dict]:
    """NLLB: FLORES-200 codes (eng_Latn) among the special tokens; SentencePiece ids + 1 (fairseq's layout)."""
    if getattr(hf_tokenizer, "legacy_behaviour", False):
        raise ExportError(
            "tokenizer_config.json: legacy_behaviour=true (language token after the text) is not supported"
        )
    require(hf_dir, ["sentencepiece.bpe.model"])
    extra = list(getattr(hf_tokenizer, "extra_special_tokens", None) or hf_tokenizer.additional_special_tokens or [])
    codes = {c: hf_tokenizer.convert_tokens_to_ids(c) for c in extra if re.fullmatch(r"[a-z]{3}_[A-Za-z]{4}", str(c))}
    if not codes:
        raise ExportError("the tokenizer names no language codes (like eng_Latn)")
    return codes, {"offset": 1}


def m2m100_layout(hf_dir: Path, hf_tokenizer) -> tuple[dict[str, int], dict]:
    """M2M100: pieces mapped by vocab.json, the language tokens (__fr__) after it; a model's own
    codes are the tokenizer's src_lang values (fr), which `languages.py` reads in both forms."""
    require(hf_dir, ["sentencepiece.bpe.model", "vocab.json"])
    vocab = read_json(hf_dir / "vocab.json")
    codes = dict(hf_tokenizer.lang_code_to_id)
    if not codes:
        raise ExportError("the tokenizer names no language codes (like __fr__)")
    if min(codes.values()) < len(vocab):
        raise ExportError("vocab.json overlaps the language tokens (__xx__)")
    return codes, {"vocab": "vocab.json", "decode_with": "source"}
