"""Protection by what a token is (placeholders.py's `code` kind): anything that is not a word of
natural language is copied; numbers, times, ordinals, percentages and shortcut key names are not."""

import pytest

from traductor.model import placeholders
from traductor.model.placeholders import mask, unmask

CODE_CASES = [
    ("Set %APPDATA% to the folder.", "%APPDATA%"),
    ("Under %ProgramFiles(x86)% only", "%ProgramFiles(x86)%"),
    ("The color is #ff0000 by default.", "#ff0000"),
    ("Use #fff for white", "#fff"),
    ("$(EXIF.EXPOSURE) - EXIF exposure", "$(EXIF.EXPOSURE)"),
    ("Built for x86_64 only", "x86_64"),
    ("Set max_size first", "max_size"),
    ("Call getValue now", "getValue"),
    ("Runs on macOS and Linux", "macOS"),
    ("Commit 3f2a9c1e broke it.", "3f2a9c1e"),
    ("Upgrade to 1.2.3.", "1.2.3"),
    ("The mask is (0x1F)", "0x1F"),
    ("Encode it as H264 please", "H264"),
    ("Needs 2FA enabled", "2FA"),
    ("<b>x86</b> only", "x86"),
]


@pytest.mark.parametrize("text,span", CODE_CASES)
def test_a_token_that_is_not_a_word_is_copied(text, span):
    assert ("code", span) in placeholders.find_kinds(text)
    m = mask(text)
    assert span in m.values
    assert unmask(m.text, m.values) == text


@pytest.mark.parametrize(
    "text",
    [
        "the 1st and 2nd of the 1990s",  # ordinals and decades are words
        "50% of 1,000 and 3.14",  # numbers are localized (decimal separators)
        "Meet at 12:30",  # times too (`12 h 30`)
        "Press Ctrl+Shift+T or Ctrl+Maj+T",  # key names are localized, as localizers do
        "E_xit and Sa_ve",  # a capitalised label with a GTK mnemonic inside
        "COVID-19 and UTF-8",  # a word, a hyphen, a number
    ],
)
def test_words_numbers_and_key_names_are_not_code(text):
    assert [kind for kind, _ in placeholders.find_kinds(text) if kind == "code"] == []


def test_printf_and_code_do_not_overlap():
    """`%d%%` and `%llu` stay printf placeholders; `%APPDATA%` is one code span, not `%A` + text."""
    assert placeholders.find_kinds("%llu / %llu blocks (%d%%)") == [
        ("printf", "%llu"),
        ("printf", "%llu"),
        ("printf", "%d"),
        ("printf", "%%"),
    ]
    assert placeholders.find_kinds("%.2f%% done") == [("printf", "%.2f"), ("printf", "%%")]
    assert placeholders.find("%APPDATA%\\app") == ["%APPDATA%"]
