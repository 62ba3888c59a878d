"""The register rule's second tier (model/constraints.Addressed, model/controls.ADDRESSED and
VERB_FORMS): a translation asked for a register may not write the other register's verb forms
("introduzca", "saisissez"), and, when its English source addresses the reader ("your", not "its"),
not the words that are the reader's only then (Spanish "su", "puede"), in every decoder. Without
"you" in the source those words stay allowed; without a tag nothing changes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from test_register_bans import (
    DEIN,
    DU,
    EOS,
    IHRE,
    INFORMAL,
    MODES,
    SIE,
    TO,
    WORD_ENDS,
    X,
    engine,
    reference,
    tiny_tokenizer,
)

from traductor.model import controls
from traductor.model.constraints import ADDRESSED_KEY, Addressed, Constraints, RegisterBans
from traductor.model.tokenizer import Tokenizer

# With <informal>: "▁Sie" always banned; "▁Ihre" too when the source has X ("you") and no TO ("its")
BANS = {INFORMAL: RegisterBans([(SIE,)], WORD_ENDS)}
BANS[INFORMAL].addressed = Addressed(RegisterBans([(SIE,), (IHRE,)], WORD_ENDS), frozenset({X}), frozenset({TO}))


def test_the_source_decides_which_bans_a_row_gets():
    c = Constraints(set(), EOS, BANS)
    assert c.register([INFORMAL, X, IHRE, EOS]) == INFORMAL + ADDRESSED_KEY
    assert c.register([INFORMAL, IHRE, EOS]) == INFORMAL  # no "you": the register's own bans
    assert c.register([INFORMAL, X, TO, IHRE, EOS]) == INFORMAL  # "its" too: "su" may be its
    assert c.register([X, IHRE, EOS]) is None  # no tag: no rule
    keys = [c.register(s) for s in ([INFORMAL, X, EOS], [INFORMAL, EOS], [X, EOS])]
    rows, cols = c.banned([Counter()] * 3, [False] * 3, keys, [[], [], []])
    assert set(zip(rows.tolist(), cols.tolist())) == {(0, SIE), (0, IHRE), (1, SIE)}


@pytest.mark.parametrize("mode", MODES)
def test_every_engine_decoder_bans_the_addressed_words_for_an_addressed_source_only(mode):
    sources = [[INFORMAL, X, IHRE, EOS], [INFORMAL, IHRE, EOS], [INFORMAL, X, TO, IHRE, EOS], [X, IHRE, EOS]]
    out = engine(sources, MODES[mode], bans=BANS)
    assert out[0] == [X, DEIN]  # "Ihre" banned: the model's second choice
    assert out[1] == [IHRE] and out[2] == [X, TO, IHRE] and out[3] == [X, IHRE]


@pytest.mark.parametrize("search", ["greedy", "beam"])
def test_the_pytorch_reference_bans_the_same_words(search):
    sources = [[INFORMAL, X, IHRE, EOS], [INFORMAL, IHRE, EOS], [INFORMAL, X, SIE, EOS]]
    assert reference(sources, search, BANS) == [[X, DEIN], [IHRE], [X, DU]]


def test_verb_forms_are_made_from_infinitives():
    es = set(controls.VERB_FORMS["es"]["formal"])
    assert {"busque", "lea", "dirija", "actualice", "pague", "introduzca", "inténtelo", "asegúrese"} <= es
    fr = set(controls.VERB_FORMS["fr"]["formal"])
    assert {"saisissez", "cliquez", "choisissez", "veuillez", "soyez"} <= fr
    assert not {"ouvrissez", "informe", "ajuste"} & (es | fr)  # irregular, or a noun as well


@pytest.fixture(scope="module")
def spanish_tokenizer(tmp_path_factory) -> Path:
    """English and Spanish, with "your", "its", "su" and "puede" as pieces of their own."""
    lines = [
        "Enter your name and its size",
        "Introduzca su nombre y su tamaño",
        "Introduce tu nombre",
        "El archivo puede abrirse",
        "suscripción sustituir puedes",
    ]
    words = ["▁your", "▁Your", "▁its", "▁su", "▁Su", "▁puede", "▁introduzca", "▁Introduzca"]
    return tiny_tokenizer(tmp_path_factory.mktemp("es"), lines, words)


def banned(tok: Tokenizer, source: str, text: str) -> list[str]:
    """The pieces of `text` a translation of `source` asked for `informal` may not write there."""
    c = Constraints(tok.placeholder_ids, EOS, tok.register_bans)
    key = c.register(tok.encode(source, register="informal")[0])
    ids = tok.sp.encode(text)
    rows = []
    for k in range(len(ids)):
        r, col = c.banned([Counter()], [False], [key], [ids[:k]])
        rows.append(set(col.tolist()))
    return [tok.sp.id_to_piece(t) for k, t in enumerate(ids) if t in rows[k]]


def test_a_spanish_tokenizer_bans_su_for_a_source_that_addresses_the_reader(spanish_tokenizer):
    tok = Tokenizer(spanish_tokenizer, "es")
    informal = tok.sp.piece_to_id(controls.INFORMAL)
    assert tok.register_bans[informal].addressed is not None
    assert banned(tok, "Enter your name", "Introduzca su nombre") != []  # the verb, and "su" where it ends
    assert "▁nombre" in banned(tok, "Enter your name", "tu su nombre")  # "su" may not end there
    assert banned(tok, "Enter the name", "su nombre") == []  # "his", "her": allowed
    assert banned(tok, "Enter your name and its size", "su nombre") == []
    assert banned(tok, "Enter your name", "suscripción") == []  # a longer word is still written
    # never informal, whatever the source: banned where the word ends (the piece after it)
    after = tok.sp.encode("Introduzca el nombre", out_type=str)[1]
    assert banned(tok, "Enter the name", "Introduzca el nombre") == [after]
    assert Tokenizer(spanish_tokenizer, "fi").register_bans == {}  # no lists for the language
