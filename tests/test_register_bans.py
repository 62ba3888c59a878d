"""The register rule of model/constraints.py: a source with `<informal>` never gets the formal words
of address in its translation, one with `<formal>` never the informal ones, in every decoder (the
serving engine's greedy, sampling and beam search, and the PyTorch reference); a source without a
tag decodes token for token as before. The word lists are model/controls.py's, cut into pieces by
the model's own tokenizer (model/tokenizer.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from loop_model import RowSources
from sentencepiece import sentencepiece_model_pb2

from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import drive
from traductor.model import controls
from traductor.model.config import ModelConfig
from traductor.model.constraints import GLUED, WORD_END, Constraints, RegisterBans
from traductor.model.generate import beam_search, greedy
from traductor.model.tokenizer import Tokenizer, train_sentencepiece, with_symbols
from traductor.options import DecodingOptions, Limits, resolve

# A model that says its source once (tags left out), then EOS. Ids: 4..5 the tags, 6.. words;
# "▁..." pieces start a word, the others go on with the one before.
VOCAB = 24
FORMAL, INFORMAL = 4, 5
SIE, IHRE, DU, DEIN, KANNST, TO, X = 6, 7, 8, 9, 10, 11, 12  # "▁Sie" "▁Ihre" "▁du" "▁dein" "▁kannst" "▁to" "▁x"
PLIZIERT, PIECE_I, PIECE_N = 13, 14, 15  # continuations: "pliziert" ("dupliziert"), "i" ("toi"), "n"
WORD_ENDS = [SIE, IHRE, DU, DEIN, KANNST, TO, X, 16, 17]
# The register's words, as the tokenizer gives them: "▁Sie", "▁Ihre" (formal, banned with <informal>);
# "▁dein", "▁to i" and "▁du" (informal, banned with <formal>; "du" only where the word ends there).
BANS = {
    INFORMAL: RegisterBans([(SIE,), (IHRE,)], WORD_ENDS),
    FORMAL: RegisterBans([(DEIN,), (TO, PIECE_I), (DU, WORD_END)], WORD_ENDS),
}
# Words glued to the piece before them: "▁(" (a piece a word can be glued to), then "Sie" or "du"
# without "▁" (as SentencePiece cuts "(Sie", "(du")
PAREN, GLUED_SIE, GLUED_DU = 18, 19, 20
# What the model would say in place of a word it may not say: its second choice
SECOND = {SIE: DU, IHRE: DEIN, DEIN: IHRE, PIECE_I: PIECE_N, GLUED_SIE: GLUED_DU, GLUED_DU: GLUED_SIE}
CONFIG = ModelConfig(vocab_size=VOCAB, d_model=8, n_heads=2, d_ff=8, n_encoder_layers=1, n_decoder_layers=1)
EOS = CONFIG.eos_id
FAVOURED, RUNNER_UP, EOS_LOGIT, NEVER = 20.0, 15.0, 10.0, -100.0
LIMITS = Limits(max_input_tokens=64, max_new_tokens=64, max_beam_size=4)
MODES = {
    "greedy": DecodingOptions(),
    "sampling": DecodingOptions(temperature=1.0, seed=3),
    "beam": DecodingOptions(beam_size=3),
}


def said(source) -> list[int]:
    return [int(t) for t in source if t not in (CONFIG.pad_id, EOS, FORMAL, INFORMAL)]


def next_logits(source, generated: int) -> np.ndarray:
    words = said(source)
    logits = np.zeros(VOCAB, dtype=np.float32)
    logits[EOS] = EOS_LOGIT
    logits[[CONFIG.pad_id, CONFIG.bos_id]] = NEVER
    chosen = words[generated] if generated < len(words) else EOS
    logits[chosen] = FAVOURED
    if chosen in SECOND:
        logits[SECOND[chosen]] = RUNNER_UP
    return logits


class SayRunner:
    """An engine runner (runner_protocol.Runner) of the model."""

    model = CONFIG
    generation = None

    def new_cache(self, max_rows: int) -> RowSources:
        return RowSources()

    def encode(self, source_ids: np.ndarray, source_padding: np.ndarray) -> list[tuple[int, ...]]:
        return [tuple(t for t in row if t != CONFIG.pad_id) for row in source_ids.tolist()]

    def step(self, input_ids, positions, source_padding, past, cross):
        return np.stack([next_logits(s, int(p)) for s, p in zip(cross, positions.tolist())]), None


class SayModel:
    """The model as the PyTorch reference decoder's steppers call it (use_cache=True)."""

    cfg = CONFIG

    def encode(self, src: torch.Tensor, src_pad: torch.Tensor) -> torch.Tensor:
        return src

    def cross_kv(self, memory: torch.Tensor):
        return [(memory, memory)]

    def empty_cache(self, batch: int):
        return [(torch.zeros(batch, 0), torch.zeros(batch, 0))]

    def decode_step(self, tokens, position, cache, cross, src_pad):
        sources = cross[0][0].tolist()
        return torch.from_numpy(np.stack([next_logits(s, int(p)) for s, p in zip(sources, position.tolist())])), cache


class RegisterTokenizer:
    """What the scheduler asks a tokenizer: no placeholders, the register bans above."""

    placeholder_ids = frozenset()

    def __init__(self, bans=BANS):
        self.register_bans = bans

    def forced_first(self, target_language):
        return None

    def decode(self, ids, values) -> str:
        return " ".join(map(str, ids))


def engine(sources, options: DecodingOptions, bans=BANS, rows: int = 16) -> list[list[int]]:
    scheduler = Scheduler(SayRunner(), RegisterTokenizer(bans), max_rows=rows, max_queue=len(sources) + 1)
    return [e.token_ids for e in drive(scheduler, [(s, [], resolve(options, len(s), LIMITS)) for s in sources])]


def reference(sources, search: str, bans=BANS) -> list[list[int]]:
    if search == "greedy":
        out = greedy(SayModel(), sources, max_new_tokens=30, register_bans=bans)
    else:
        out = beam_search(SayModel(), sources, beam_size=3, max_new_tokens=30, register_bans=bans)
    return [t[:-1] if t[-1:] == [EOS] else t for t in out]


INFORMAL_ASKED = [INFORMAL, SIE, KANNST, IHRE, X, EOS]  # "Sie kannst Ihre x": the weights mix registers
FORMAL_ASKED = [FORMAL, DEIN, X, TO, PIECE_I, EOS]  # "dein x toi"
WORDS = [
    [FORMAL, DU, PLIZIERT, X, EOS],  # "dupliziert x": "du" begins a longer word, which is no "du"
    [FORMAL, PIECE_I, TO, PIECE_N, EOS],  # "i" after another piece, "▁to n": nothing banned
    [SIE, KANNST, IHRE, DEIN, TO, PIECE_I, DU, X, EOS],  # no tag: every word, as the weights say
]


@pytest.mark.parametrize("mode", MODES)
def test_a_register_tag_bans_the_other_registers_words_in_the_engine(mode):
    informal, formal, *untouched = engine([INFORMAL_ASKED, FORMAL_ASKED, *WORDS], MODES[mode])
    assert SIE not in informal and IHRE not in informal
    assert DEIN not in formal and [TO, PIECE_I] != formal[2:4]
    if mode != "sampling":  # the second choice: one register throughout
        assert informal == [DU, KANNST, DEIN, X] and formal == [IHRE, X, TO, PIECE_N]
    assert untouched == [said(s) for s in WORDS]


@pytest.mark.parametrize("mode", MODES)
def test_without_a_tag_nothing_changes_and_rows_do_not_see_each_other(mode):
    sources = [*WORDS, INFORMAL_ASKED, FORMAL_ASKED]
    without_rule = engine(sources, MODES[mode], bans={})
    with_rule = engine(sources, MODES[mode])
    assert with_rule[:3] == without_rule[:3]
    assert without_rule[3:] == [said(INFORMAL_ASKED), said(FORMAL_ASKED)]  # the weights alone mix
    alone = [engine([s], MODES[mode])[0] for s in sources]  # one at a time, on one row each
    assert alone == with_rule
    assert engine(sources[::-1], MODES[mode], rows=3)[::-1] == with_rule  # other order, other batches


def test_a_whole_word_ban_takes_the_word_where_it_ends_only():
    # "du" then a word: the word end is banned, so the model goes on with the word ("du" + a piece)
    (out,) = engine([[FORMAL, DU, KANNST, EOS]], MODES["greedy"])
    assert out[0] == DU and not set(out[1:2]) & set(WORD_ENDS)  # here EOS (10) beats every piece that goes on (0)
    (out,) = engine([[FORMAL, DU, PLIZIERT, EOS]], MODES["greedy"])
    assert out == [DU, PLIZIERT]


def glued_bans() -> dict[int, RegisterBans]:
    """BANS with the glued words, as model/controls.register_bans cuts them: "Sie" after "▁(" with
    <informal> (wherever, as "▁Sie"), "du" after it with <formal> (where the word ends, as "▁du")."""
    words_end = [*WORD_ENDS, PAREN]
    return {
        INFORMAL: RegisterBans([(SIE,), (IHRE,), (GLUED, GLUED_SIE)], words_end, [PAREN]),
        FORMAL: RegisterBans([(DEIN,), (DU, WORD_END), (GLUED, GLUED_DU, WORD_END)], words_end, [PAREN]),
    }


GLUED_INFORMAL = [INFORMAL, PAREN, GLUED_SIE, KANNST, X, EOS]  # "(Sie kannst x"
GLUED_FORMAL = [FORMAL, PAREN, GLUED_DU, X, EOS]  # "(du x"
NOT_GLUED = [
    [FORMAL, PAREN, GLUED_DU, PLIZIERT, X, EOS],  # "(dupliziert x": a longer word
    [INFORMAL, X, GLUED_SIE, KANNST, EOS],  # "xSie kannst": the pieces inside a word, not glued to punctuation
    [PAREN, GLUED_SIE, KANNST, X, EOS],  # no tag
]


def glued_du_ends(out: list[int]) -> bool:
    """Whether `out` has "du" glued to "▁(" with a word's end right after it."""
    return any(out[i : i + 2] == [PAREN, GLUED_DU] and out[i + 2] in WORD_ENDS for i in range(len(out) - 2))


@pytest.mark.parametrize("mode", MODES)
def test_a_word_glued_to_punctuation_is_banned_as_the_word_itself(mode):
    informal, formal, *untouched = engine([GLUED_INFORMAL, GLUED_FORMAL, *NOT_GLUED], MODES[mode], bans=glued_bans())
    assert engine([GLUED_INFORMAL, GLUED_FORMAL], MODES[mode]) == [said(GLUED_INFORMAL), said(GLUED_FORMAL)]  # before
    assert [PAREN, GLUED_SIE] != informal[:2] and not glued_du_ends(formal)
    if mode != "sampling":  # the second choice: one register throughout
        assert informal == [PAREN, GLUED_DU, KANNST, X]
    if mode == "beam":  # greedy cannot take back the "du" it began: it ends there (EOS ends no word)
        assert formal == [PAREN, GLUED_SIE, X]
    assert untouched == [said(s) for s in NOT_GLUED]


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_the_pytorch_reference_bans_glued_words_as_the_engine_does(search):
    sources = [GLUED_INFORMAL, GLUED_FORMAL, *NOT_GLUED]
    out = reference(sources, search, bans=glued_bans())
    assert out[2:] == [said(s) for s in NOT_GLUED]
    assert out[0] == [PAREN, GLUED_DU, KANNST, X] and not glued_du_ends(out[1])
    options = DecodingOptions(max_new_tokens=30, beam_size=1 if search == "greedy" else 3)
    assert out == engine(sources, options, bans=glued_bans())


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_the_pytorch_reference_bans_the_same_words(search):
    sources = [INFORMAL_ASKED, FORMAL_ASKED, *WORDS, [FORMAL, DU, KANNST, EOS]]
    out = reference(sources, search)
    assert out[:2] == [[DU, KANNST, DEIN, X], [IHRE, X, TO, PIECE_N]]
    assert out[2:5] == [said(s) for s in WORDS] == reference(sources, search, bans={})[2:5]
    options = DecodingOptions(max_new_tokens=30, beam_size=1 if search == "greedy" else 3)
    assert out == engine(sources, options)  # the engine's, token for token


def test_banned_and_register_read_the_row_only():
    c = Constraints(set(), EOS, BANS)
    assert c.register([INFORMAL, SIE, EOS]) == INFORMAL and c.register([SIE, EOS]) is None
    assert Constraints(set(), EOS).register([INFORMAL, SIE, EOS]) is None  # no bans: no rule
    rows, cols = c.banned([Counter()] * 3, [False] * 3, [None, FORMAL, INFORMAL], [[], [X, TO], [DU]])
    assert set(zip(rows.tolist(), cols.tolist())) == {(1, DEIN), (1, PIECE_I), (2, SIE), (2, IHRE)}
    rows, cols = c.banned([Counter()], [False], [FORMAL], [[X, DU]])
    assert set(cols.tolist()) == {DEIN} | set(WORD_ENDS)
    assert c.banned([Counter()], [True])[1].tolist() == [EOS]  # no registers given: as before


# ---- the word lists, cut by a tokenizer ---------------------------------------------------------


def test_word_lists_keep_the_case_that_makes_the_register():
    de_formal = controls.address_words("de", "formal")
    assert "Sie" in de_formal and "sie" not in de_formal and "ihr" not in de_formal  # she, they, her
    assert {"du", "Du", "dein", "Dein"} <= set(controls.address_words("de", "informal"))
    assert "-vous" in controls.address_words("fr", "formal") and "-Vous" not in controls.address_words("fr", "formal")
    assert "su" not in controls.address_words("es", "formal")  # his, her, their too
    assert controls.address_words("sv", "formal") == []  # a language without a list
    assert controls.address_words("it", "formal") == ["Lei", "Suo", "Sua", "Suoi", "Sue"]  # capitals only


def test_register_bans_cut_words_as_the_tokenizer_does():
    pieces = {"tu": ["▁tu"], "-vous": ["▁", "-", "vous"], "-tu": ["▁", "-", "tu"], "toi": ["▁to", "i"]}
    bans = controls.register_bans("fr", lambda w: pieces.get(w, ["▁" + w]))
    formal, informal = bans[controls.FORMAL], bans[controls.INFORMAL]
    assert ("▁vous",) in informal and ("-", "vous") in informal and ("▁Vous",) in informal
    assert ("▁tu", controls.WORD_END) in formal and ("-", "tu", controls.WORD_END) in formal
    assert ("▁to", "i") in formal  # "toi" begins few words: banned wherever it is
    assert ("▁t'",) in formal
    assert controls.register_bans("sv", list) == {controls.FORMAL: [], controls.INFORMAL: []}


def tiny_tokenizer(folder: Path, lines: list[str], words: list[str]) -> Path:
    """A tiny SentencePiece model with the control tokens, trained on `lines`, whose vocabulary has
    `words` as pieces of their own."""
    train_sentencepiece(lines * 20, folder / "base.model", vocab_size=320)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString((folder / "base.model").read_bytes())
    have = {p.piece for p in proto.pieces}
    for word in words:
        if word not in have:
            proto.pieces.add(piece=word, score=0.0, type=sentencepiece_model_pb2.ModelProto.SentencePiece.NORMAL)
    (folder / "tokenizer.model").write_bytes(with_symbols(proto.SerializeToString(), controls.TOKENS))
    return folder / "tokenizer.model"


@pytest.fixture(scope="module")
def german_tokenizer(tmp_path_factory) -> Path:
    """German, with the words of address as pieces of their own."""
    lines = ["Sie können Ihre Datei öffnen", "du kannst deine Datei öffnen", "Siehe dupliziert Ordner", "(„Dich“)"]
    words = ["▁Sie", "▁Ihre", "▁Ihr", "▁Ihnen", "▁du", "▁Du", "▁dein", "▁deine", "▁dich", "▁dir", "▁euch"]
    return tiny_tokenizer(tmp_path_factory.mktemp("de"), lines, words)


@pytest.fixture(scope="module")
def french_tokenizer(tmp_path_factory) -> Path:
    """French, with vous and tu as pieces of their own, and "vous" and "tu" without "▁" (as they are
    glued to punctuation)."""
    lines = ["Vous pouvez ouvrir votre fichier", "tu peux ouvrir ton fichier", '(« tutoriel » tuyau "l\'ordinateur")']
    return tiny_tokenizer(tmp_path_factory.mktemp("fr"), lines, ["▁vous", "▁Vous", "▁tu", "vous", "tu"])


def banned_in(tok: Tokenizer, text: str, register: str) -> list[str]:
    """The pieces of `text` (as the tokenizer cuts it) that a translation asked in `register` may
    not write where they stand (the register rule alone)."""
    bans = tok.register_bans[tok.sp.piece_to_id(controls.REGISTERS[register])]
    ids = tok.sp.encode(text)
    return [tok.sp.id_to_piece(t) for k, t in enumerate(ids) if t in set(bans.ids(ids[:k]).tolist())]


def test_a_word_glued_to_punctuation_or_a_placeholder_is_banned(french_tokenizer, german_tokenizer):
    fr, de = Tokenizer(french_tokenizer, "fr"), Tokenizer(german_tokenizer, "de")
    assert fr.sp.encode("(vous", out_type=str)[-1] == "vous"  # not "▁vous": another piece
    for text in ["(vous pouvez", "«vous pouvez", '"vous pouvez', "<ph0>vous<ph1>", "(Vous pouvez"]:
        assert banned_in(fr, text, "informal"), text
    for text in ["(tu peux", "«tu»", "<ph0>tu<ph1>", "(t'ouvrir"]:
        assert banned_in(fr, text, "formal"), text
    for text in ["(Sie können", "„Sie“", "(Ihre Datei", "„Ihr Ordner"]:
        assert banned_in(de, text, "informal"), text
    for text in ["(du kannst", "„dein Ordner“", "(dich)"]:
        assert banned_in(de, text, "formal"), text
    # as the word alone: "vous" wherever it is, "tu" where it ends (the piece after it)
    assert banned_in(fr, "(vous)", "informal") == ["vous"] and banned_in(fr, "(tu)", "formal") == [")"]


def test_words_that_begin_or_hold_a_glued_word_are_still_written(french_tokenizer, german_tokenizer):
    fr, de = Tokenizer(french_tokenizer, "fr"), Tokenizer(german_tokenizer, "de")
    for text in ["(tutoriel)", "(tuyau", "«tutoriel»", "l'ordinateur", "fichier (ouvrir)", "(Datei)"]:
        assert banned_in(fr, text, "formal") == [] and banned_in(fr, text, "informal") == [], text
    for text in ["(sie können", "Datei (öffnen)", "(Ordner)"]:
        assert banned_in(de, text, "informal") == [], text
    # "Sie" is banned wherever it stands (it begins few words): glued too, as its own policy says
    assert bool(banned_in(de, "(Siehe", "informal")) == bool(banned_in(de, "Siehe", "informal"))
    for text in ["(dupliziert)", "„dupliziert“", "Ordner (Datei)"]:
        assert banned_in(de, text, "formal") == [], text


def test_a_tokenizer_gives_the_bans_of_its_target_language(german_tokenizer):
    tok = Tokenizer(german_tokenizer, "de")
    sp, formal, informal = tok.sp, tok.sp.piece_to_id(controls.FORMAL), tok.sp.piece_to_id(controls.INFORMAL)
    assert set(tok.register_bans) == {formal, informal}
    assert {sp.piece_to_id("▁Sie"), sp.piece_to_id("▁Ihre")} <= set(tok.register_bans[informal].always.tolist())
    assert sp.piece_to_id("▁sie") not in tok.register_bans[informal].always.tolist()
    du = (sp.piece_to_id("▁du"),)
    assert du in tok.register_bans[formal].after and sp.piece_to_id("▁du") not in tok.register_bans[formal].always
    ends = set(tok.register_bans[formal].after[du].tolist())  # what may not follow "▁du": a word's end
    text = set(range(tok.vocab_size)) - tok.special_ids - {tok.unk_id}  # placeholders end a word too
    starts = {i: sp.id_to_piece(i)[0] for i in text}  # a capital goes on no word ("duBytes"): it ends one
    assert ends == {i for i, c in starts.items() if c == "▁" or not c.isalpha() or c.isupper()}
    assert tok.placeholder_ids <= ends
    assert sp.piece_to_id("▁Sie") in ends and EOS not in ends and sp.piece_to_id("e") not in ends
    source = tok.encode("Du kannst deine Datei öffnen", register="informal")[0]
    assert Constraints(tok.placeholder_ids, EOS, tok.register_bans).register(source) == informal
    assert Tokenizer(german_tokenizer).register_bans == {}  # no target language: nothing known
    assert Tokenizer(german_tokenizer, "sv").register_bans == {}
