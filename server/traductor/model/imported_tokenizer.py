"""The tokenizer of an imported model (`traductor import`): the bundle's "tokenizer" section
(`TokenizerConfig`) and `PieceTokenizer`, which maps SentencePiece pieces to the model's own ids
the way transformers' MarianTokenizer, NllbTokenizer and M2M100Tokenizer do.

It does not know the project's placeholder masking (model/tokenizer.py: imported models have no
<phK> tokens): a source's placeholders and verbatim spans are its "values", which `decode` puts
back into the output where the model changed them (`placeholders.repair`). Nor does it know
where a bundle's files live (engine/bundle.py opens it with a directory).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterable

import sentencepiece as spm

from ..errors import InvalidInput
from ..languages import CodeTable
from . import placeholders
from .token_ids import EOS_ID, FILENAME, UNK_ID


@dataclass(frozen=True)
class TokenizerConfig:
    """A bundle's "tokenizer" section: which files turn text into ids and back, and how.

    Bundles of the project's own models have none, which means `TokenizerConfig()`: one
    SentencePiece model whose ids are the model's, with the <phK> placeholder tokens. An imported
    model (`traductor import`) names its own layout:

        source_model, target_model  SentencePiece models of each side (the same file when shared)
        decode_with     "source" or "target": the model that turns output pieces into text
                        (transformers' MarianTokenizer uses the source one when the vocabulary is shared)
        vocab           a piece -> id JSON file (Marian's vocab.json); none: SentencePiece ids + offset
        offset          fairseq's layout (NLLB): id = SentencePiece id + 1, SentencePiece's <unk> -> unk_id
        special_ids     ids never rendered as text (transformers' skip_special_tokens)
        languages       language code -> its token: NLLB's "fra_Latn", a multi-target Marian's "fra" (>>fra<<)
        source_language NLLB, M2M100: the source starts with this language's token
        source_mode     how the source language is chosen: "fixed" (always source_language, or none)
                        or "per_call" (NLLB, M2M100: a call names any of `languages`; source_language
                        is the one a call that names none gets)
        target_mode     how a target language is chosen: "forced" (NLLB: its token is the first one
                        generated), "prefix" (Marian: >>xx<< starts the source) or "none" (one target)
        placeholders    <phK> masking of placeholders (the project's models only)
        clean_up_spaces transformers' clean_up_tokenization after decoding (" ." -> ".", " n't" -> "n't"),
                        where the model's tokenizer_config.json asks for it and transformers applies it
    """

    source_model: str = FILENAME
    target_model: str = FILENAME
    decode_with: str = "target"
    vocab: str | None = None
    offset: int = 0
    special_ids: tuple[int, ...] = ()
    languages: dict[str, int] = field(default_factory=dict)
    source_language: str | None = None
    source_mode: str = "fixed"
    target_language: str | None = None  # the target when a request names none
    target_mode: str = "none"
    placeholders: bool = True
    clean_up_spaces: bool = False
    unk_id: int = UNK_ID
    eos_id: int = EOS_ID

    def __post_init__(self):
        if self.decode_with not in ("source", "target"):
            raise ValueError(f"decode_with={self.decode_with!r}; known: source, target")
        if self.target_mode not in TARGET_MODES:
            raise ValueError(f"target_mode={self.target_mode!r}; known: {', '.join(TARGET_MODES)}")
        if self.source_mode not in SOURCE_MODES:
            raise ValueError(f"source_mode={self.source_mode!r}; known: {', '.join(SOURCE_MODES)}")
        if self.source_mode == "per_call" and self.source_language is None:
            raise ValueError("source_mode='per_call' needs a source_language (the default source)")
        for name in ("source_language", "target_language"):
            if getattr(self, name) is not None and getattr(self, name) not in self.languages:
                raise ValueError(f"{name}={getattr(self, name)!r} is not one of its languages")

    def files(self) -> list[str]:
        return sorted({self.source_model, self.target_model, *([self.vocab] if self.vocab else [])})

    def to_dict(self) -> dict:
        out = asdict(self)
        out["special_ids"] = list(self.special_ids)
        return out

    @classmethod
    def from_dict(cls, data) -> TokenizerConfig:
        """From a bundle's "tokenizer" object; a ValueError names the field that is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"must be an object, got {type(data).__name__}")
        known = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise ValueError(f"unknown keys: {sorted(unknown)}")
        values = dict(data)
        for name, value in data.items():
            kind = known[name].type
            ok = {
                "str": lambda v: isinstance(v, str),
                "str | None": lambda v: v is None or isinstance(v, str),
                "int": lambda v: type(v) is int,
                "bool": lambda v: isinstance(v, bool),
                "tuple[int, ...]": lambda v: isinstance(v, list) and all(type(i) is int for i in v),
                "dict[str, int]": lambda v: isinstance(v, dict) and all(type(i) is int for i in v.values()),
            }[kind](value)
            if not ok:
                raise ValueError(f"{name}: bad value {value!r}")
            if name in ("source_model", "target_model", "vocab") and value is not None and Path(value).name != value:
                raise ValueError(f"{name}: must be a file name in the bundle, got {value!r}")
        if "special_ids" in values:
            values["special_ids"] = tuple(values["special_ids"])
        return cls(**values)


TARGET_MODES = ("none", "forced", "prefix")
SOURCE_MODES = ("fixed", "per_call")
MARIAN_CODE = re.compile(r">>[^<>]+<<")


class PieceTokenizer:
    """The tokenizer of an imported model: SentencePiece pieces mapped to the model's ids, as
    transformers' MarianTokenizer and NllbTokenizer map them (checked at import on every parity
    sentence). Text goes through unmasked: there are no placeholder tokens."""

    def __init__(self, directory: Path, config: TokenizerConfig, vocab_size: int):
        directory = Path(directory)
        for name in config.files():
            if not (directory / name).is_file():
                raise FileNotFoundError(f"no {name} in {directory}")
        self.config = config
        self.sp_source = spm.SentencePieceProcessor(model_file=str(directory / config.source_model))
        self.sp_target = spm.SentencePieceProcessor(model_file=str(directory / config.target_model))
        self.sp_decode = self.sp_source if config.decode_with == "source" else self.sp_target
        self.piece_ids: dict[str, int] | None = None
        if config.vocab:
            self.piece_ids = json.loads((directory / config.vocab).read_text(encoding="utf-8"))
            self.id_pieces = {i: p for p, i in self.piece_ids.items()}
        self.vocab_size = vocab_size
        self.unk_id, self.eos_id = config.unk_id, config.eos_id
        self.special_ids = frozenset(config.special_ids)
        self.placeholder_ids: frozenset[int] = frozenset()
        self.controls = False  # no <formal>, <term> ... (model/controls.py)
        self.registers: tuple[str, ...] = ()  # no formality
        self.rewrites: dict[str, str] = {}  # nor a register by rewrite
        self.register_bans: dict = {}  # no register tags: nothing to ban (model/constraints.RegisterBans)
        self.languages = dict(config.languages)
        self.codes = CodeTable(self.languages)
        # the own codes a call may name as its source (empty: the model has no source token)
        fixed = {config.source_language} if config.source_language is not None else set()
        self.source_languages = frozenset(self.languages if config.source_mode == "per_call" else fixed)

    def own_language(self, code: str) -> str | None:
        """The model's own code (NLLB's `fra_Latn`, a Marian `fr`) a caller's code in any form means
        (`fr`, `FRA`, `fr-CA`: languages.CodeTable), or None."""
        return self.codes.own(code)

    def language_token(self, code: str) -> int:
        own = self.own_language(code)
        if own is None:
            raise KeyError(code)
        return self.languages[own]

    def _source_ids(self, text: str) -> list[int]:
        if self.piece_ids is not None:
            pieces = self.sp_source.encode(text, out_type=str)
            return [self.piece_ids.get(p, self.unk_id) for p in pieces]
        return [
            i + self.config.offset if i != self.sp_source.unk_id() else self.unk_id for i in self.sp_source.encode(text)
        ]

    def encode(
        self, text: str, target_language: str | None = None, source_language: str | None = None, register: str = ""
    ) -> tuple[list[int], list[str]]:
        """Source text -> (ids ending with EOS, the placeholders `decode` repairs). A "per_call" model's text
        starts with `source_language`'s token (none: the default source's); a Marian text may start
        with its own >>xx<< code, and `target_language` of a "prefix" model puts one there."""
        if register:
            raise InvalidInput("this model has no formality: imported models have no register tags")
        prefix: list[int] = []
        if self.config.source_mode == "per_call" and source_language:
            prefix.append(self.language_token(source_language))
        elif self.config.source_language is not None:
            prefix.append(self.languages[self.config.source_language])
        code = MARIAN_CODE.match(text) if self.config.target_mode == "prefix" else None
        if code:
            prefix.append(self.piece_ids.get(code.group(0), self.unk_id) if self.piece_ids else self.unk_id)
            text = text[code.end() :]
        elif self.config.target_mode == "prefix" and (target_language or self.config.target_language):
            prefix.append(self.language_token(target_language or self.config.target_language))
        return prefix + self._source_ids(text) + [self.eos_id], placeholders.find(text)

    def forced_first(self, target_language: str | None) -> int | None:
        """The token a "forced" model must generate first for `target_language`."""
        target_language = target_language or self.config.target_language
        if target_language is None or self.config.target_mode != "forced":
            return None
        return self.language_token(target_language)

    def decode_masked(self, ids: Iterable[int]) -> str:
        """Ids -> text as transformers' decode(skip_special_tokens=True) gives it: special ids (and
        ids outside the vocabulary) skipped; Marian's pieces through SentencePiece, stripped
        (MarianTokenizer); NLLB's pieces joined with one leading space dropped (the Metaspace
        decoder of its tokenizer.json, which keeps a second one where SentencePiece would not)."""
        kept = [i for i in ids if i not in self.special_ids and 0 <= i < self.vocab_size]
        if self.piece_ids is not None:
            pieces = [self.id_pieces.get(i) or self.sp_decode.id_to_piece(i) for i in kept]
            text = self.sp_decode.decode_pieces(pieces).replace("\u2581", " ").strip()
        else:
            text = "".join(self.sp_decode.id_to_piece(i - self.config.offset) for i in kept).replace("\u2581", " ")
            text = text.removeprefix(" ")
        return clean_up_spaces(text) if self.config.clean_up_spaces else text

    def decode(self, ids: Iterable[int], values: list[str]) -> str:
        return placeholders.repair(self.decode_masked(ids), values)


CLEAN_UP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def clean_up_spaces(text: str) -> str:
    """transformers' clean_up_tokenization, in its order."""
    for old, new in CLEAN_UP:
        text = text.replace(old, new)
    return text
