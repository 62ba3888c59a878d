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
    pattern = placeholders.pattern_for(text)
    assert placeholders.replace("#", text) == pattern.sub("#", text)
    assert find(text) == [m.group(0) for m in pattern.finditer(text)]


def test_every_kind_starts_with_a_quick_start_character():
    """Each kind's placeholders hold something the quick test looks for: a kind added without it
    must extend it, or its placeholders would be skipped."""
    examples = (
        "%s %(n)d %1 {0} $HOME ${X} <b> &amp; _Open &Save --force -r %<PRIu64> https://a.org/x www.b.org "
        "c@d.org /etc/x ~/y src/z.c C:\\w 10.0.0.1:80 [::1]:53 fe80::1 localhost:631 app.conf .bashrc *.txt "
        "see [FILE]... %APPDATA%"
    )
    found = placeholders.find_kinds(examples)
    assert {kind for kind, _ in found} == set(placeholders.KINDS) | {"metavar"}
    # a metavariable is one by its place in the message, which the quick test finds
    assert all(placeholders._STARTS.search(value) for kind, value in found if kind != "metavar")
    assert placeholders.replace("#", "plain words, no placeholder at all.") == "plain words, no placeholder at all."


# Verbatim spans: what a localizer copies byte for byte comes back byte for byte.
VERBATIM_CASES = [
    ("Read https://docs.example.com/setup/ first.", "url", "https://docs.example.com/setup/"),
    ("See www.example.org.", "url", "www.example.org"),
    ("Visit <https://example.com/a?b=c&d=1>.", "url", "<https://example.com/a?b=c&d=1>"),
    ("Write to mailto:a@b.org today", "url", "mailto:a@b.org"),
    ("Contact help-desk@example.org.", "email", "help-desk@example.org"),
    ("Mail user@example.co.uk, please", "email", "user@example.co.uk"),
    ("Edit /etc/app/app.conf", "path", "/etc/app/app.conf"),
    ("Files in ~/.config/app/ are read", "path", "~/.config/app/"),
    ("Run ./configure first", "path", "./configure"),
    ("Set $HOME/.cache/app.", "path", "$HOME/.cache/app"),
    ("Open src/main.c now", "path", "src/main.c"),
    ("See usr/share/doc/ (docs)", "path", "usr/share/doc/"),
    ("Open C:\\Users\\me\\file.txt now", "path", "C:\\Users\\me\\file.txt"),
    ("The file (see /usr/bin/foo).", "path", "/usr/bin/foo"),
    ("Listening on 127.0.0.1:8080", "address", "127.0.0.1:8080"),
    ("Bind to [::1]:53", "address", "[::1]:53"),
    ("Route fe80::1 now", "address", "fe80::1"),
    ("Open localhost:631 in a browser", "address", "localhost:631"),
    ("Edit config.toml and restart", "filename", "config.toml"),
    ("Could not load libfoo.so.3", "filename", "libfoo.so.3"),
    ("Install foo_1.2-3_amd64.deb first", "filename", "foo_1.2-3_amd64.deb"),
    ("Go to example.com.", "filename", "example.com"),
    ("The .desktop file", "filename", ".desktop"),
    ("Remove *.txt files", "filename", "*.txt"),
]


@pytest.mark.parametrize("text,kind,span", VERBATIM_CASES)
def test_verbatim_spans_are_found_whole_and_masked(text, kind, span):
    assert (kind, span) in placeholders.find_kinds(text)
    m = mask(text)
    assert span in m.values
    assert unmask(m.text, m.values) == text


@pytest.mark.parametrize(
    "text",
    [
        "e.g. this and i.e. that, etc.",
        "U.S.A. and 3.14 and 1,000 and 50% and the 2nd of the 1990s",
        "Done.Then the rest",
        "read/write and and/or input/output",
        "Time is 12:30:45",
        "Press OK to continue",
        "Hello...world",
        "an </unknown> closing tag",
    ],
)
def test_ordinary_words_are_not_verbatim_spans(text):
    assert placeholders.find_kinds(text) == []


def test_metavariables_are_the_same_placeholder_everywhere_in_a_help_message():
    """An upper-case word in an option's place is a metavariable, wherever it stands in the
    message; elsewhere an upper-case word is a word."""
    text = "  -w, --word-regexp=WORD    match only whole WORD; see also --color[=WHEN], WHEN is auto"
    kinds = placeholders.find_kinds(text)
    assert ("option", "--word-regexp=WORD") in kinds and ("option", "--color[=WHEN]") in kinds
    assert kinds.count(("metavar", "WORD")) == 1 and kinds.count(("metavar", "WHEN")) == 1
    assert placeholders.find_kinds("Usage: ls [OPTION]... [FILE]...") == [("metavar", "OPTION"), ("metavar", "FILE")]
    assert placeholders.find_kinds("Press OK, the WORD is fine") == []


def test_training_pairs_leave_spans_the_reference_changed_as_text():
    """A reference that translates a metavariable keeps it as text on both sides (no <phK> the
    target lacks); one that copies it gets the same token on both sides."""
    m, target = placeholders.mask_pair("Usage: ls [OPTION]... [FILE]...", "Uso: ls [OPCIÓN]... [FILE]...")
    assert m.text == "Usage: ls [OPTION]... [<ph0>]..." and m.values == ["FILE"]
    assert target == "Uso: ls [OPCIÓN]... [<ph0>]..."
    m, target = placeholders.mask_pair("See https://a.org/x and %s", "Véase https://a.org/es/x y %s")
    assert m.text == "See https://a.org/x and <ph0>" and target == "Véase https://a.org/es/x y <ph0>"


@pytest.mark.parametrize(
    "output,values,repaired",
    [
        (
            "Lea https://docs.ejemplo.com/configuracion/ primero.",
            ["https://docs.example.com/setup/"],
            "Lea https://docs.example.com/setup/ primero.",
        ),
        ("Contacte ayuda-escritorio@example.org.", ["help-desk@example.org"], "Contacte help-desk@example.org."),
        ("Escuchando en 127.0.0.1:80", ["127.0.0.1:8080"], "Escuchando en 127.0.0.1:8080"),
        ("Editar /etc/app/pp.conf", ["/etc/app/app.conf"], "Editar /etc/app/app.conf"),
        ("Editar config.toml", ["config.toml"], "Editar config.toml"),  # intact: untouched
        ("Nada que ver", ["/etc/app/app.conf"], "Nada que ver"),  # dropped, no look-alike: not invented
    ],
)
def test_repair_puts_back_what_a_model_without_placeholder_tokens_changed(output, values, repaired):
    assert placeholders.repair(output, values) == repaired
