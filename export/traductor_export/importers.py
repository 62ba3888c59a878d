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

One loader per model_type says what differs (LOADERS: load_marian.py, load_m2m100.py for NLLB and
M2M100): the model's variant fields, its tokenizer section (model/tokenizer.TokenizerConfig) and its
decoding rules (model/generation.GenerationConfig); hf_checkpoint.py reads the files they share.
torch and transformers are needed here, never by the bundle this writes.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import torch

from traductor.errors import ExportError
from traductor.model.config import ModelConfig
from traductor.model.generate import pad_batch
from traductor.model.imported_tokenizer import PieceTokenizer
from traductor.model.transformer import Transformer, sinusoidal_positions

from . import parity
from .convert import Source, export_model
from .hf_checkpoint import WEIGHT_FILES, model_config, read_json, require, variants
from .load_m2m100 import load_m2m_100
from .load_marian import load_marian

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


LOADERS = {"marian": load_marian, "m2m_100": load_m2m_100}
TOKENIZER_FILES = {"marian": ["source.spm", "target.spm", "vocab.json"], "m2m_100": ["sentencepiece.bpe.model"]}


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
    and whose text equals decode(tokens, skip_special_tokens=True) (the engine's loop rule off:
    generate() has none)."""
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
    events = translator.generate(sources, DecodingOptions(max_new_tokens=48, stop_loops=False))
    for row, event in zip(out[:, 1:].tolist(), events):
        theirs = row[: row.index(eos)] if eos in row else [t for t in row if t != pad]
        same += event.token_ids == theirs and event.text == hf_tokenizer.decode(theirs, skip_special_tokens=True)
    return same / len(sentences)
