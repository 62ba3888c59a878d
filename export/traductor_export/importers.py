"""`traductor import`: a Hugging Face checkpoint -> bundle, in the shape of a converter:

    load       config.json, the weights (through transformers), generation_config.json, the tokenizer
    validate   a supported model_type, the files it needs, a configuration the Transformer can express
    build      the project's Transformer (model/transformer.py) with the variant fields the model needs,
               its weights renamed in one table (WEIGHT_NAMES); the sinusoid is checked against the
               checkpoint's own table when it stores one
    export     the export path of `traductor export` (convert.export_model: graphs, optimize, quantize,
               parity against the PyTorch Transformer)
    prove      the bundle's input ids equal the transformers tokenizer's, and its greedy tokens equal
               `generate(num_beams=1)`, on every parity sentence: recorded in config.json ("parity")

One loader per model_type says what differs (LOADERS): the model's variant fields, its tokenizer
section (model/tokenizer.TokenizerConfig) and its decoding rules (model/generation.GenerationConfig).
torch and transformers are needed here, never by the bundle this writes.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from traductor.errors import ExportError
from traductor.model.config import ModelConfig
from traductor.model.generate import pad_batch
from traductor.model.generation import GenerationConfig
from traductor.model.tokenizer import PieceTokenizer, TokenizerConfig
from traductor.model.transformer import Transformer, sinusoidal_positions

from . import parity
from .convert import Source, export_model

ACTIVATIONS = {"relu": "relu", "swish": "swish", "silu": "swish", "gelu": "gelu"}
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")

# transformers' names (after "model.") -> the Transformer's, for Marian and M2M100 alike
WEIGHT_NAMES = [
    (r"shared\.weight", "embedding.weight"),
    (r"(encoder|decoder)\.layers\.(\d+)\.self_attn\.(q|k|v)_proj\.(weight|bias)", r"\1_layers.\2.self_attn.w_\3.\4"),
    (r"(encoder|decoder)\.layers\.(\d+)\.self_attn\.out_proj\.(weight|bias)", r"\1_layers.\2.self_attn.w_o.\3"),
    (r"decoder\.layers\.(\d+)\.encoder_attn\.(q|k|v)_proj\.(weight|bias)", r"decoder_layers.\1.cross_attn.w_\2.\3"),
    (r"decoder\.layers\.(\d+)\.encoder_attn\.out_proj\.(weight|bias)", r"decoder_layers.\1.cross_attn.w_o.\2"),
    (r"(encoder|decoder)\.layers\.(\d+)\.fc(1|2)\.(weight|bias)", r"\1_layers.\2.ffn.w_\3.\4"),
    (r"(encoder|decoder)\.layers\.(\d+)\.self_attn_layer_norm\.(weight|bias)", r"\1_layers.\2.norm_1.\3"),
    (r"decoder\.layers\.(\d+)\.encoder_attn_layer_norm\.(weight|bias)", r"decoder_layers.\1.norm_2.\2"),
    (r"encoder\.layers\.(\d+)\.final_layer_norm\.(weight|bias)", r"encoder_layers.\1.norm_2.\2"),
    (r"decoder\.layers\.(\d+)\.final_layer_norm\.(weight|bias)", r"decoder_layers.\1.norm_3.\2"),
    (r"(encoder|decoder)\.layer_norm\.(weight|bias)", r"\1_norm.\2"),
]
IGNORED = re.compile(r"(encoder|decoder)\.(embed_tokens\.weight|embed_positions\.weight)")


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


def load_m2m_100(hf_dir: Path, hf: dict, hf_tokenizer, source: str | None, target: str | None) -> Imported:
    """NLLB-200 (and M2M100 with an NLLB tokenizer): pre-norm with final layer norms, fairseq's
    sinusoid from row pad + 1, no output bias; sentencepiece.bpe.model in fairseq's id layout
    (+1), the source language's token first, the target language's forced as the first output.

    The source language is `source`, else the tokenizer's src_lang; the default target `target`,
    else generation_config.json's forced_bos_token_id, else the tokenizer's tgt_lang."""
    if type(hf_tokenizer).__name__ not in ("NllbTokenizer", "NllbTokenizerFast"):
        raise ExportError(
            f"tokenizer {type(hf_tokenizer).__name__} is not supported for m2m_100; supported: NllbTokenizer"
        )
    if getattr(hf_tokenizer, "legacy_behaviour", False):
        raise ExportError(
            "tokenizer_config.json: legacy_behaviour=true (language token after the text) is not supported"
        )
    require(hf_dir, ["sentencepiece.bpe.model"])
    extra = list(getattr(hf_tokenizer, "extra_special_tokens", None) or hf_tokenizer.additional_special_tokens or [])
    codes = {c: hf_tokenizer.convert_tokens_to_ids(c) for c in extra if re.fullmatch(r"[a-z]{3}_[A-Za-z]{4}", str(c))}
    if not codes:
        raise ExportError("the tokenizer names no language codes (like eng_Latn)")
    generation, gen = generation_config(hf_dir, hf)
    forced = gen.get("forced_bos_token_id")
    by_id = {i: c for c, i in codes.items()}
    default_target = target or by_id.get(forced) or getattr(hf_tokenizer, "tgt_lang", None)
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
        offset=1,
        special_ids=tuple(sorted(set(hf_tokenizer.all_special_ids) | set(codes.values()))),
        languages=codes,
        source_language=source,
        target_language=default_target,
        target_mode="forced",
        placeholders=False,
        clean_up_spaces=cleans_up_spaces(hf_tokenizer),
        unk_id=hf_tokenizer.unk_token_id,
        eos_id=hf["eos_token_id"],
    )
    files = {"sentencepiece.bpe.model": hf_dir / "sentencepiece.bpe.model"}
    return Imported(cfg, tokenizer, files, {"source": source, "target": default_target or "mul"}, generation)


LOADERS = {"marian": load_marian, "m2m_100": load_m2m_100}


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


def transformer_from_pretrained(hf_dir: Path) -> Transformer:
    """The weights alone, without a tokenizer: what `traductor bench` runs of the anchors' random
    Marian (benchmarks/make_marian.py), so that every engine of its table runs the same weights."""
    hf_dir = Path(hf_dir)
    require(hf_dir, ["config.json"])
    hf = read_json(hf_dir / "config.json")
    if hf.get("model_type") not in LOADERS:
        raise ExportError(f"model_type {hf.get('model_type')!r} is not supported; supported: {', '.join(LOADERS)}")
    from transformers import AutoModelForSeq2SeqLM

    hf_model = AutoModelForSeq2SeqLM.from_pretrained(hf_dir).eval()
    return build_model(hf_model, model_config(hf, hf["vocab_size"], **variants(hf["model_type"], hf)))


TOKENIZER_FILES = {"marian": ["source.spm", "target.spm", "vocab.json"], "m2m_100": ["sentencepiece.bpe.model"]}


def build_model(hf_model, cfg: ModelConfig) -> Transformer:
    """The Transformer with the checkpoint's weights (every one used, every one filled)."""
    state = {k.removeprefix("model."): v for k, v in hf_model.state_dict().items()}
    model = Transformer(cfg)
    mapped: dict[str, torch.Tensor] = {}
    for name, tensor in state.items():
        if IGNORED.fullmatch(name):
            continue
        if name == "final_logits_bias":
            mapped["output_bias"] = tensor.reshape(-1)
            continue
        if name == "lm_head.weight":
            if not torch.equal(tensor, state["shared.weight"]):
                mapped["output_projection.weight"] = tensor
            continue
        for pattern, replacement in WEIGHT_NAMES:
            if re.fullmatch(pattern, name):
                mapped[re.sub(pattern, replacement, name)] = tensor
                break
        else:
            raise ExportError(f"the checkpoint has a weight traductor does not know: {name}")
    if "output_projection.weight" in mapped and cfg.tied_output:
        raise ExportError("lm_head differs from the shared embedding: rebuild with tied_output=false")
    mapped.setdefault("output_bias", torch.zeros(cfg.vocab_size))
    stored = state.get("encoder.embed_positions.weight")
    if stored is not None:  # Marian stores its sinusoid: it must be the one the Transformer computes
        ours = sinusoidal_positions(stored.shape[0], cfg.d_model, cfg.positions, cfg.position_offset)
        if not torch.allclose(stored.float(), ours, atol=1e-5):
            raise ExportError("the checkpoint's positional table is not the sinusoid its model_type uses")
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in mapped.items()}, strict=False)
    if missing or unexpected:
        raise ExportError(f"weights do not fit the model: missing {missing}, unexpected {unexpected}")
    return model.eval()


def import_model(
    hf_dir: Path,
    out: Path,
    quantize: str | None = None,
    name: str | None = None,
    force: bool = False,
    target: str | None = None,
    parity_sentences: list[str] | None = None,
    progress=print,
    source: str | None = None,
) -> dict:
    """The recipe: load -> validate -> build -> export (with its parity proof) -> prove against transformers.
    `source` and `target` name the languages (see each loader: NLLB's source token and default
    target, an OPUS-MT model's codes when its tokenizer_config.json has none)."""
    hf_dir, out = Path(hf_dir), Path(out)
    t0 = time.monotonic()
    if not hf_dir.is_dir():
        raise ExportError(f"{hf_dir} is not a directory (a save_pretrained folder)")
    require(hf_dir, ["config.json"])
    hf = read_json(hf_dir / "config.json")
    model_type = hf.get("model_type")
    if model_type not in LOADERS:
        raise ExportError(f"model_type {model_type!r} is not supported; supported: {', '.join(LOADERS)}")
    if not any((hf_dir / w).is_file() for w in WEIGHT_FILES):
        raise ExportError(f"{hf_dir} is missing its weights ({' or '.join(WEIGHT_FILES)})")
    require(hf_dir, TOKENIZER_FILES[model_type])
    if out.exists() and any(out.iterdir()) and not force:
        raise ExportError(f"{out} already exists; pass --force to overwrite it")
    progress("[1/6] load")
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()  # an error stays one line; the steps are printed instead
    try:
        hf_tokenizer = AutoTokenizer.from_pretrained(hf_dir)
        hf_model = AutoModelForSeq2SeqLM.from_pretrained(hf_dir).eval()
    except (OSError, ValueError, KeyError) as e:
        raise ExportError(f"{hf_dir}: transformers cannot load it ({str(e).splitlines()[0]})") from e
    imported = LOADERS[model_type](hf_dir, hf, hf_tokenizer, source, target)
    model = build_model(hf_model, imported.cfg)
    tokenizer = PieceTokenizer(hf_dir, imported.tokenizer, imported.cfg.vocab_size)
    sentences = parity_sentences or parity.BUILTIN_SENTENCES
    check_tokenizer(tokenizer, hf_tokenizer, sentences)
    source = Source(tokenizer, imported.files, name or hf_dir.resolve().name, imported.tokenizer, imported.generation)
    config = export_model(model, source, out, quantize, sentences, progress, languages=imported.languages, started=t0)
    config["parity"]["transformers_identical"] = transformers_parity(hf_model, hf_tokenizer, out, sentences)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return config


def check_tokenizer(tokenizer: PieceTokenizer, hf_tokenizer, sentences: list[str]) -> None:
    """The bundle's input ids must be the transformers tokenizer's, sentence for sentence."""
    for s in sentences:
        ours, theirs = tokenizer.encode(s)[0], hf_tokenizer(s).input_ids
        if ours != theirs:
            raise ExportError(f"the tokenizer differs from transformers' on {s!r}: {ours} != {theirs}")


@torch.no_grad()
def transformers_parity(hf_model, hf_tokenizer, bundle: Path, sentences: list[str]) -> float:
    """The fraction of sentences whose greedy tokens from the bundle equal generate(num_beams=1)'s
    and whose text equals decode(tokens, skip_special_tokens=True)."""
    from traductor.engine.translator import OnnxTranslator
    from traductor.options import DecodingOptions

    translator = OnnxTranslator.load(bundle)
    tokenizer = translator.tokenizer
    sources = [tokenizer.encode(s)[0] for s in sentences]
    forced = tokenizer.forced_first(None)
    extra = {"forced_bos_token_id": forced} if forced is not None else {}
    pad = hf_model.config.pad_token_id
    ids, padding = pad_batch(sources, pad)
    out = hf_model.generate(ids, attention_mask=~padding, num_beams=1, do_sample=False, max_new_tokens=48, **extra)
    eos, same = tokenizer.eos_id, 0
    for row, event in zip(out[:, 1:].tolist(), translator.generate(sources, DecodingOptions(max_new_tokens=48))):
        theirs = row[: row.index(eos)] if eos in row else [t for t in row if t != pad]
        same += event.token_ids == theirs and event.text == hf_tokenizer.decode(theirs, skip_special_tokens=True)
    return same / len(sentences)
