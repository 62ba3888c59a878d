"""transformers models with random weights, built here (no model hub is reached): what the import
tests and the measuring scripts import and serve in place of published models
(tests/test_import.py, scripts/measure/import_shapes.py, libretranslate_compare.py, gpu_bench.py).

    random_marian(folder, ...)  source.spm and target.spm in `folder` -> vocab.json written there,
                                the MarianTokenizer and the MarianMTModel (random weights of the
                                shape asked for, OPUS-MT's settings), not saved
    marian_config(...)          that MarianConfig alone, for a model without a tokenizer (ids only)
    m2m100_config(...)          an M2M100Config (NLLB's architecture) with NLLB's settings, for
                                the tokenizer's ids
    shape(...)                  the fields of a transformers encoder-decoder config that give its
                                size, the same for both stacks (MarianConfig, M2M100Config)

OPUS-MT's settings, as its config.json files have them: one vocabulary for both sides (`</s>` 0,
`<unk>` 1, the pieces of source.spm then target.spm, `<pad>` last), swish, embeddings scaled by
sqrt(d_model) and shared, decoding started with `<pad>` and never producing it, `</s>` forced at
the length limit. The caller trains the model if it wants it to say something, and saves it
(`save_pretrained`, the tokenizer's too). Needs torch and transformers; the serving package never
imports this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

SPM_FILES = ("source.spm", "target.spm")


def marian_vocab(folder: Path, extra_tokens: Iterable[str] = (), vocab_size: int = 0) -> dict[str, int]:
    """vocab.json of the SentencePiece models in `folder`: `</s>`, `<unk>`, every piece of
    source.spm then of target.spm (once), `extra_tokens` (">>es<<", a multi-target model's target
    tokens), placeholder rows up to `vocab_size` (a published model's size: rows the tokenizer
    never gives), `<pad>` last."""
    import sentencepiece as spm

    vocab = {"</s>": 0, "<unk>": 1}
    for name in SPM_FILES:
        sp = spm.SentencePieceProcessor(model_file=str(folder / name))
        for i in range(sp.get_piece_size()):
            if not sp.is_control(i) and not sp.is_unknown(i):
                vocab.setdefault(sp.id_to_piece(i), len(vocab))
    for token in extra_tokens:
        vocab[token] = len(vocab)
    while len(vocab) < vocab_size - 1:
        vocab[f"<unused{len(vocab)}>"] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab


def random_marian(
    folder: Path,
    *,
    d_model: int,
    layers: int,
    heads: int,
    d_ff: int,
    max_positions: int,
    extra_tokens: Iterable[str] = (),
    vocab_size: int = 0,
    target_lang: str | None = None,
    seed: int = 0,
):
    """(MarianTokenizer, MarianMTModel in eval mode) for the SentencePiece models in `folder`
    (source.spm, target.spm; vocab.json is written there: `marian_vocab`), `layers` in the encoder
    and in the decoder, weights drawn from torch.manual_seed(`seed`). English source; `target_lang`
    as a single-target tokenizer has it (None: OPUS-MT's multi-target tokenizer_config.json)."""
    import torch
    import transformers

    vocab = marian_vocab(folder, extra_tokens, vocab_size)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    files = [str(folder / name) for name in (*SPM_FILES, "vocab.json")]
    tok = transformers.MarianTokenizer(*files, source_lang="en", target_lang=target_lang)
    cfg = marian_config(len(vocab), d_model=d_model, layers=layers, heads=heads, d_ff=d_ff, max_positions=max_positions)
    torch.manual_seed(seed)
    model = transformers.MarianMTModel(cfg).eval()
    model.generation_config.bad_words_ids = [[cfg.pad_token_id]]
    return tok, model


def marian_config(vocab_size: int, *, d_model: int, layers: int, heads: int, d_ff: int, max_positions: int):
    """OPUS-MT's MarianConfig at this shape: `</s>` 0, `<pad>` the last id and the decoder's start."""
    import transformers

    pad = vocab_size - 1
    return transformers.MarianConfig(
        vocab_size=vocab_size,
        **shape(d_model=d_model, layers=layers, heads=heads, d_ff=d_ff, max_positions=max_positions),
        pad_token_id=pad,
        eos_token_id=0,
        decoder_start_token_id=pad,
        forced_eos_token_id=0,
        activation_function="swish",
        scale_embedding=True,
        share_encoder_decoder_embeddings=True,
    )


def m2m100_config(vocab_size: int, *, pad_id: int, eos_id: int, bos_id: int, **sizes):
    """An M2M100Config with NLLB's settings: decoding started with EOS, embeddings scaled by
    sqrt(d_model), no layer drop (a briefly trained model drops no layer at random); `sizes` are
    `shape`'s arguments."""
    import transformers

    return transformers.M2M100Config(
        vocab_size=vocab_size,
        **shape(**sizes),
        pad_token_id=pad_id,
        eos_token_id=eos_id,
        bos_token_id=bos_id,
        decoder_start_token_id=eos_id,
        scale_embedding=True,
        encoder_layerdrop=0.0,
        decoder_layerdrop=0.0,
    )


def shape(*, d_model: int, layers: int, heads: int, d_ff: int, max_positions: int) -> dict[str, int]:
    """The size fields of a transformers encoder-decoder config, `layers` in each stack."""
    return {
        "d_model": d_model,
        "encoder_layers": layers,
        "decoder_layers": layers,
        "encoder_attention_heads": heads,
        "decoder_attention_heads": heads,
        "encoder_ffn_dim": d_ff,
        "decoder_ffn_dim": d_ff,
        "max_position_embeddings": max_positions,
    }
