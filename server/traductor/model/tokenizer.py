"""Text <-> token ids: placeholder masking around a SentencePiece model.

    encode:  text -> placeholders.mask -> SentencePiece ids (+ EOS)
    decode:  ids  -> SentencePiece text -> placeholders.unmask

The SentencePiece model is trained on the training corpus (source and target together, one
shared vocabulary, as the shared embedding requires). Normalisation is off and byte fallback is
on, so text round-trips exactly, emoji and control characters included; two known exceptions
(tests/test_tokenizer.py, xfail): U+2581, SentencePiece's own space marker, comes back as a
space, and a literal "<ph0>" typed in a source is read as a placeholder token.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterable

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2

from ..errors import InvalidInput
from . import controls, placeholders
from .constraints import GLUED, WORD_END, Addressed, RegisterBans
from .imported_tokenizer import PieceTokenizer, TokenizerConfig
from .token_ids import BOS_ID, EOS_ID, FILENAME, PAD_ID, UNK_ID

SPECIAL_IDS = {"pad_id": PAD_ID, "unk_id": UNK_ID, "bos_id": BOS_ID, "eos_id": EOS_ID}
SAMPLE_LINES = 400_000


def clip_source(ids: list[int], max_len: int) -> list[int]:
    """A source of at most `max_len` tokens for the offline translators (`traductor translate`,
    `evaluate`): a longer one keeps its first max_len - 1 tokens and its last one, EOS. (The
    server cuts a text into segments that fit instead: text/longsplit.py.)"""
    return ids[: max_len - 1] + [ids[-1]] if len(ids) > max_len else ids


def train_sentencepiece(lines: Iterable[str], out_file: Path, vocab_size: int) -> None:
    """Train a unigram SentencePiece model on (already masked) lines."""
    model = io.BytesIO()
    lines = list(lines)
    # A large corpus is sampled (same pieces, minutes faster); a small one is read whole, in order.
    sampling = (
        {"input_sentence_size": SAMPLE_LINES, "shuffle_input_sentence": True} if len(lines) > SAMPLE_LINES else {}
    )
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=1.0,
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        split_digits=True,
        user_defined_symbols=placeholders.TOKENS,
        pad_id=PAD_ID,
        unk_id=UNK_ID,
        bos_id=BOS_ID,
        eos_id=EOS_ID,
        hard_vocab_limit=False,
        minloglevel=2,
        **sampling,
    )
    Path(out_file).write_bytes(model.getvalue())


_USER_DEFINED = sentencepiece_model_pb2.ModelProto.SentencePiece.USER_DEFINED
_UNUSED = sentencepiece_model_pb2.ModelProto.SentencePiece.UNUSED


def with_symbols(model: bytes, symbols) -> bytes:
    """A SentencePiece model (its bytes) with `symbols` it lacks appended as user-defined pieces:
    their ids follow the vocabulary's, so every other piece keeps its id (a warm start carries
    the weights over; training/state.py)."""
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    have = {p.piece for p in proto.pieces}
    for symbol in symbols:
        if symbol not in have:
            proto.pieces.add(piece=symbol, score=0.0, type=_USER_DEFINED)
    return proto.SerializeToString()


def without_symbols(model: bytes, symbols) -> bytes:
    """A SentencePiece model (its bytes) whose `symbols` are made unused: each piece renamed
    `<unused:SYMBOL>` and typed UNUSED, so no text is cut into it and `piece_to_id(symbol)` finds
    nothing, while every id stays where it was (the weights still match). A run that warm-starts
    a model for another pair and does not teach the control tokens drops them this way
    (training/state.py): the tags mean nothing to the new model."""
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    for piece in proto.pieces:
        if piece.piece in symbols:
            piece.piece, piece.type = f"<unused:{piece.piece[1:-1]}>", _UNUSED
    return proto.SerializeToString()


class Tokenizer:
    def __init__(
        self,
        model_file: str | Path,
        target_language: str = "",
        registers: controls.Registers | None = None,
    ):
        """`target_language`: the model's target (its bundle's or checkpoint's), which says which
        words address the reader in each register (`register_bans`); "": none are known.
        `registers`: what its config.json says (controls.Registers; None: every register the
        vocabulary has tags for, no default, no rewrite). A call may ask those measured and those
        rewritten (`self.registers`); a rewritten one is decoded with the tag of the register its
        output is rewritten from (`check_register`); a call asking none gets the default where the
        source says "you" ("": no tag, the model's own)."""
        model_file = Path(model_file)
        if not model_file.is_file():
            raise FileNotFoundError(f"no tokenizer at {model_file}")
        self.sp = spm.SentencePieceProcessor(model_file=str(model_file))
        self.vocab_size = self.sp.get_piece_size()
        self.pad_id, self.unk_id, self.bos_id, self.eos_id = PAD_ID, UNK_ID, BOS_ID, EOS_ID
        self.controls = controls.supported(self.sp.piece_to_id, UNK_ID)
        settings = registers or controls.Registers()
        known = tuple(controls.REGISTERS) if settings.measured is None else settings.measured
        self.rewrites = dict(settings.rewrites) if self.controls else {}  # register asked -> register decoded
        asked = [r for r in controls.REGISTERS if r in known or r in self.rewrites]
        self.registers = tuple(asked) if self.controls else ()
        if settings.default and settings.default not in (known if self.controls else ()):
            raise ValueError(f"default_register {settings.default!r}: not a register this model delivers")
        self.default_register = settings.default
        # control tokens are input only: never rendered should a model produce one
        control_ids = {self.sp.piece_to_id(t) for t in controls.TOKENS} if self.controls else set()
        self.special_ids = {PAD_ID, BOS_ID, EOS_ID} | control_ids
        self.placeholder_ids = frozenset(self.sp.piece_to_id(t) for t in placeholders.TOKENS)
        self.languages: dict[str, int] = {}  # one target: no language tokens
        self.source_languages: frozenset[str] = frozenset()  # no source token: the bundle's one source
        self.target_language = target_language
        self.register_bans = self._register_bans() if self.controls else {}

    def _register_bans(self) -> dict[int, RegisterBans]:
        """Register tag id -> what a translation asked for that register may not have
        (model/controls.register_bans, in ids; model/constraints.py bans them), with what it may
        not have either when its source addresses the reader (`RegisterBans.addressed`:
        controls.ADDRESSED, read from the source's SOURCE_YOU and SOURCE_OTHERS words). Words cut
        into pieces the tokenizer does not have are left out."""
        encode = lambda word: self.sp.encode(word, out_type=str)  # noqa: E731
        bans = controls.register_bans(self.target_language, encode)
        if not any(bans.values()):
            return {}
        more = controls.register_bans(self.target_language, encode, addressed=True)
        # what ends a word: a piece that starts one, punctuation, a placeholder (not EOS: the loop
        # rule may need it) or a capital, which goes on no word ("seleccioneBytes"); what a word
        # can be glued to: a piece that ends in punctuation ("▁(", "„", "'", "▁" alone) or a
        # placeholder ("<ph0>vous")
        not_text = self.special_ids | {UNK_ID}
        pieces = [(i, self.sp.id_to_piece(i)) for i in range(self.vocab_size) if i not in not_text]
        word_ends = [i for i, p in pieces if p[:1] == "▁" or not p[:1].isalpha() or p[:1].isupper()]
        glue = [i for i, p in pieces if not p[-1:].isalnum() and not self.sp.is_byte(i)]  # a byte may be a letter's
        marks = {controls.WORD_END: WORD_END, controls.GLUED: GLUED}
        ids_of = lambda seqs: [  # noqa: E731
            s
            for s in (tuple(marks[p] if p in marks else self.sp.piece_to_id(p) for p in q) for q in seqs)
            if UNK_ID not in s
        ]
        # a source word's own piece ("▁your"), when the vocabulary has the word as one piece
        one_piece = lambda words: frozenset(  # noqa: E731
            ids[0] for ids in (self.sp.encode(w) for w in words) if len(ids) == 1 and ids[0] != UNK_ID
        )
        you, others = one_piece(controls.SOURCE_YOU), one_piece(controls.SOURCE_OTHERS)
        out = {}
        for tag, sequences in bans.items():
            out[self.sp.piece_to_id(tag)] = RegisterBans(ids_of(sequences), word_ends, glue)
            if more[tag] != sequences and you:
                addressed = Addressed(RegisterBans(ids_of(more[tag]), word_ends, glue), you, others)
                out[self.sp.piece_to_id(tag)].addressed = addressed
        return out

    def forced_first(self, target_language: str | None) -> int | None:
        return None

    def check_register(self, register: str) -> str:
        """The register whose tag goes in for a call asking `register`: itself, or the one a
        rewritten register is decoded in; InvalidInput for one the model does not deliver."""
        if register not in controls.REGISTERS:
            raise InvalidInput(f"register {register!r}: must be one of {', '.join(controls.REGISTERS)}")
        if not self.controls:
            raise InvalidInput("this model has no formality: it was trained without register tags")
        if register not in self.registers:
            works = " and ".join(self.registers) or "none"
            raise InvalidInput(f"register {register!r}: this model does not deliver it (registers that work: {works})")
        return self.rewrites.get(register, register)

    def encode_masked(self, masked_text: str) -> list[int]:
        """Ids of already-masked text, without BOS/EOS (no register tag: training writes its own)."""
        return self.sp.encode(masked_text)

    def encode_input(self, masked_text: str, register: str = "") -> list[int]:
        """A model input from already-masked text: the register tag (`register`, "formal" or
        "informal", checked; "": the model's `default_register` where the text speaks to its
        reader, controls.addresses_reader), the text's ids, EOS."""
        if register:
            register = self.check_register(register)
        elif self.default_register and controls.addresses_reader(masked_text):
            register = self.default_register
        return self.encode_masked(controls.with_register(masked_text, register)) + [EOS_ID]

    def encode(
        self, text: str, target_language: str | None = None, source_language: str | None = None, register: str = ""
    ) -> tuple[list[int], list[str]]:
        """Source text -> (ids ending with EOS, the placeholder values to restore); `register`:
        "formal"/"informal" before it, for a model that knows the tags (else InvalidInput); "": the
        model's default register, if it names one and the text says "you" (`encode_input`)."""
        m = placeholders.mask(text)
        return self.encode_input(m.text, register), m.values

    def decode_masked(self, ids: Iterable[int]) -> str:
        """Ids -> text with <phK> tokens still in it; special ids (and ids outside the
        vocabulary, which a mismatched model could produce) are skipped."""
        return self.sp.decode([i for i in ids if i not in self.special_ids and 0 <= i < self.vocab_size])

    def decode(self, ids: Iterable[int], values: list[str]) -> str:
        return placeholders.unmask(self.decode_masked(ids), values)


def open_tokenizer(
    directory: Path,
    config: TokenizerConfig | None,
    vocab_size: int,
    target_language: str = "",
    registers: controls.Registers | None = None,
) -> Tokenizer | PieceTokenizer:
    """The tokenizer a bundle's section describes (none: the project's, tokenizer.model);
    `target_language` and `registers`: the bundle's (the project's tokenizer's register bans, the
    registers a call may ask and how each is delivered)."""
    if config is None or config.placeholders:
        model_file = Path(directory) / (config.source_model if config else FILENAME)
        return Tokenizer(model_file, target_language, registers)
    return PieceTokenizer(directory, config, vocab_size)
