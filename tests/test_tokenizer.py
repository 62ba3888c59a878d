"""The tokenizer: exact text round-trips, placeholders as single reserved tokens, special ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiny_task import synthetic_pairs

from traductor.model import placeholders
from traductor.model.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Tokenizer, train_sentencepiece


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory) -> Tokenizer:
    """A SentencePiece model trained in well under a second on the synthetic task plus a little Spanish."""
    lines = []
    for s, t in synthetic_pairs(500):
        m = placeholders.mask(s)
        lines += [m.text, placeholders.mask_like(t, m.values)]
    lines += ["Permission denied", "no se puede abrir el archivo", "¿Desea continuar? [S/n]"]
    path = Path(tmp_path_factory.mktemp("tok")) / "tokenizer.model"
    train_sentencepiece(lines, path, 400)
    return Tokenizer(path)


def roundtrip(tok: Tokenizer, text: str) -> str:
    ids, values = tok.encode(text)
    return tok.decode(ids, values)


def test_special_ids(tokenizer):
    """PAD/UNK/BOS/EOS are 0/1/2/3 and the placeholder tokens are in the vocabulary."""
    assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert tokenizer.sp.pad_id() == PAD_ID and tokenizer.sp.unk_id() == UNK_ID
    assert tokenizer.sp.bos_id() == BOS_ID and tokenizer.sp.eos_id() == EOS_ID
    for token in placeholders.TOKENS:
        assert tokenizer.sp.piece_to_id(token) != UNK_ID


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "   ",
        " leading",
        "trailing ",
        "multiple   inner  spaces",
        "\tab\tand\r\n",
        "emoji 😀🇪🇸 and 👩‍👩‍👧",
        "nul \x00 inside\x00",
        "combining e\u0301 n\u0303 a\u0308\u0301",
        "¿Qué tal? ñandú",
        "中文 日本語 한국어",
        "\u200b zero width",
        "uno dos tres %s",
    ],
)
def test_roundtrip_examples(tokenizer, text):
    """decode(encode(text)) == text, byte for byte, with spaces, emoji, NUL and combining marks."""
    assert roundtrip(tokenizer, text) == text


def test_encode_ends_with_eos_and_placeholders_are_single_tokens(tokenizer):
    """A source ends with EOS; each placeholder is one reserved token whose value comes back."""
    ids, values = tokenizer.encode("open %1$s with --force")
    assert ids[-1] == EOS_ID and EOS_ID not in ids[:-1]
    assert values == ["%1$s", "--force"]
    ph = [tokenizer.sp.piece_to_id(t) for t in ("<ph0>", "<ph1>")]
    assert [i for i in ids if i in ph] == ph
    assert tokenizer.decode(ids, values) == "open %1$s with --force"


def test_decode_skips_special_ids(tokenizer):
    """PAD, BOS and EOS never show up in text."""
    ids = tokenizer.encode_masked("uno dos")
    assert tokenizer.decode([BOS_ID] + ids + [EOS_ID, PAD_ID, PAD_ID], []) == "uno dos"


def test_missing_model_file(tmp_path):
    """Opening a tokenizer that is not there names the path."""
    with pytest.raises(FileNotFoundError, match="no tokenizer at"):
        Tokenizer(tmp_path / "nope.model")


# U+2581 is SentencePiece's own space symbol and a literal "<phK>" is a reserved token: both are
# known limitations (see the xfail tests below), so the property excludes them.
_text = st.text(max_size=60).filter(lambda s: "\u2581" not in s and "<ph" not in s)


@settings(max_examples=100, deadline=None)
@given(_text)
def test_roundtrip_property(tokenizer, text):
    """Any text (no surrogates) round-trips exactly through encode/decode."""
    assert roundtrip(tokenizer, text) == text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([" ", "  ", "a", "%s", "{0}", "$HOME", "--force", "é", "\x00", "😀"]), max_size=20).map(
        "".join
    )
)
def test_roundtrip_property_with_placeholders(tokenizer, text):
    """Placeholder-dense text with odd spacing round-trips exactly."""
    assert roundtrip(tokenizer, text) == text


@pytest.mark.xfail(
    strict=True, reason="known limitation: U+2581 is SentencePiece's whitespace symbol and decodes as a space"
)
def test_lower_one_eighth_block_roundtrips(tokenizer):
    assert roundtrip(tokenizer, "a\u2581b") == "a\u2581b"


@pytest.mark.xfail(strict=True, reason="known limitation: a literal <phK> in a source is read as a placeholder token")
def test_literal_placeholder_token_roundtrips(tokenizer):
    assert roundtrip(tokenizer, "see <ph0>") == "see <ph0>"
