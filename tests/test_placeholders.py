"""Placeholders: found, hidden behind <phK> tokens, and put back exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from traductor.model import placeholders
from traductor.model.placeholders import MAX_PLACEHOLDERS, TOKENS, find, mask, mask_like, preserved, unmask


@pytest.mark.parametrize(
    "text, expected",
    [
        ("cannot open %s: %s", ["%s", "%s"]),
        ("%1$s copied to %2$s", ["%1$s", "%2$s"]),
        ("%.2f%% done", ["%.2f", "%%"]),
        ("%lu bytes in %-10.2f s", ["%lu", "%-10.2f"]),
        ("offset %<PRIu64> of %zu", ["%<PRIu64>", "%zu"]),
        ("the file {name} at {0} is {0:>8}", ["{name}", "{0}", "{0:>8}"]),
        ("set $HOME or ${XDG_CONFIG_HOME}", ["$HOME", "${XDG_CONFIG_HOME}"]),
        ("use --force or --no-verify, or -r", ["--force", "--no-verify", "-r"]),
    ],
)
def test_find_recognises_each_kind(text, expected):
    """printf (positional, precision, %%, length modifiers, <PRI..>), braces, shell vars and options."""
    assert find(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "50% of the re-run finished",  # a bare percent sign and a hyphenated word
        "well-known {} and $ alone",  # an empty brace and a lone dollar
        "e-mail x-y",
    ],
)
def test_find_ignores_look_alikes(text):
    """Ordinary hyphens, lone % and $ and empty braces are text, not placeholders."""
    assert find(text) == []


def test_mask_numbers_in_order_and_unmask_restores():
    """mask() replaces each placeholder by <phK> in order of appearance; unmask() is its inverse."""
    text = "%1$s: %.2f%% of %lu, try --force in ${HOME}/{name}"
    m = mask(text)
    assert m.values == ["%1$s", "%.2f", "%%", "%lu", "--force", "${HOME}", "{name}"]
    assert m.text == "<ph0>: <ph1><ph2> of <ph3>, try <ph4> in <ph5>/<ph6>"
    assert unmask(m.text, m.values) == text


def test_unmask_follows_tokens_not_positions():
    """A translation may reorder placeholders: each <phK> gets the source's K-th value."""
    m = mask("copy %1$s to %2$s")
    assert unmask("a <ph1> desde <ph0>", m.values) == "a %2$s desde %1$s"


def test_unmask_drops_tokens_without_value():
    """A token the source never had (a model error) disappears instead of crashing."""
    assert unmask("x <ph0> y <ph7>", ["%s"]) == "x %s y "


def test_mask_stops_at_max_placeholders():
    """Only the first MAX_PLACEHOLDERS are masked; the rest stay as text and still round-trip."""
    text = " ".join(["%d"] * (MAX_PLACEHOLDERS + 3))
    m = mask(text)
    assert len(m.values) == MAX_PLACEHOLDERS
    assert m.text.split()[:MAX_PLACEHOLDERS] == TOKENS
    assert m.text.split()[MAX_PLACEHOLDERS:] == ["%d"] * 3
    assert unmask(m.text, m.values) == text


def test_mask_like_uses_source_numbering():
    """The k-th occurrence of a value in the target gets the token of its k-th occurrence in the source."""
    m = mask("%s of %d in %s")  # <ph0>=%s, <ph1>=%d, <ph2>=%s
    assert mask_like("%d: %s, %s", m.values) == "<ph1>: <ph0>, <ph2>"


def test_mask_like_leaves_unknown_and_surplus_as_text():
    """Placeholders the source lacks, or has fewer of, stay as text."""
    m = mask("open %s")
    assert mask_like("abrir %s y %s con --force", m.values) == "abrir <ph0> y %s con --force"


@pytest.mark.parametrize(
    "source, output, expected",
    [
        ("cannot open %s: %s", "no se puede abrir %s: %s", (2, 2)),
        ("cannot open %s: %s", "no se puede abrir %s", (1, 2)),
        ("cannot open %s", "no se puede abrir %s %s %d", (1, 1)),  # extras do not count
        ("%d of %s", "%s de %d", (2, 2)),  # order does not matter
        ("use --force", "usa -f", (0, 1)),
        ("no placeholders", "sin marcadores", (0, 0)),
    ],
)
def test_preserved_counts_as_multisets(source, output, expected):
    """preserved() = (source placeholders found in the output, as a multiset; source placeholders)."""
    assert preserved(source, output) == expected


_piece = st.sampled_from(
    [
        "%s",
        "%d",
        "%1$s",
        "%.2f",
        "%%",
        "%lu",
        "{name}",
        "{0}",
        "$HOME",
        "${dir}",
        "--force",
        "-r",
        " ",
        "a",
        "b",
        "é",
        "ñ",
        "x-y",
        ":",
        "50",
        "\n",
        "😀",
    ]
)


@given(st.lists(_piece, max_size=30).map("".join))
def test_mask_unmask_roundtrip_property(text):
    """For any mix of placeholders and text: unmask(mask(t)) == t, and no <phK> exceeds the values."""
    m = mask(text)
    assert unmask(m.text, m.values) == text
    assert len(m.values) <= MAX_PLACEHOLDERS
    assert m.values == find(text)[:MAX_PLACEHOLDERS]


@given(st.lists(_piece, max_size=30).map("".join))
def test_the_quick_start_test_never_hides_a_placeholder(text):
    """`replace` and `find` skip the long pattern on a text where no placeholder can start; for any mix
    of placeholders and text they give what the pattern itself gives."""
    assert placeholders.replace("#", text) == placeholders.PATTERN.sub("#", text)
    assert find(text) == [m.group(0) for m in placeholders.PATTERN.finditer(text)]


def test_every_kind_starts_with_a_quick_start_character():
    """Each kind's placeholders begin with a character the quick test looks for: a kind added with
    another first character must extend it, or its placeholders would be skipped."""
    examples = "%s %(n)d %1 {0} $HOME ${X} <b> &amp; _Open &Save --force -r %<PRIu64>"
    found = placeholders.find_kinds(examples)
    assert {kind for kind, _ in found} == set(placeholders.KINDS)
    assert all(placeholders._STARTS.match(value) for _, value in found)
    assert placeholders.replace("#", "plain words, no placeholder at all.") == "plain words, no placeholder at all."
