"""The text layer on plain text: lines, sentences, pass-through, long sentences, round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traductor.text import Kind, plan
from traductor.text.longsplit import split_long
from traductor.text.sentences import sentence_spans


def identity(p):
    return p.assemble([s.text for s in p.segments])


def test_lines_and_sentences_are_segments_and_separators_are_kept():
    text = "  Cannot open the file.  Try again later!\r\n\n\tUsage: tar [OPTION...]  \nTry --help.\n"
    p = plan(text)
    assert [s.text for s in p.segments] == [
        "Cannot open the file.",
        "Try again later!",
        "Usage: tar [OPTION...]",
        "Try --help.",
    ]
    assert [x.text for x in p.pieces if x.kind is Kind.SEPARATOR] == ["  ", "  ", "\r\n\n\t", "  \n", "\n"]
    assert identity(p) == text


def test_translations_go_back_in_order_with_the_original_separators():
    p = plan("One.  Two?\n\n   Three!\r\n")
    assert p.assemble(["Uno.", "¿Dos?", "¡Tres!"]) == "Uno.  ¿Dos?\n\n   ¡Tres!\r\n"
    with pytest.raises(ValueError, match="2 translations for 3 segments"):
        p.assemble(["Uno.", "Dos"])


@pytest.mark.parametrize("n", [1, 2, 5, 10])
def test_a_paragraph_of_n_sentences_gives_n_segments(n):
    sentences = [f"The file number {i} could not be opened by the program." for i in range(n)]
    p = plan(" ".join(sentences))
    assert [s.text for s in p.segments] == sentences
    assert [s.index for s in p.segments] == list(range(n))


@pytest.mark.parametrize(
    "line, segments",
    [
        ("  -h, --help          display this help and exit", ["display this help and exit"]),
        ("      --version       output version information and exit", ["output version information and exit"]),
        ("  -v, --verbose\texplain what is being done", ["explain what is being done"]),
        ("Name  Size  Modified", ["Name", "Size", "Modified"]),
    ],
)
def test_columns_of_a_line_are_translated_on_their_own(line, segments):
    """A tab or two spaces or more separate columns (GNU --help, tables): the model never gets the
    run of spaces, on which it answered spaces until its length limit."""
    p = plan(line)
    assert [s.text for s in p.segments] == segments
    assert identity(p) == line
    out = p.assemble([s.text.upper() for s in p.segments])
    for segment in segments:
        line = line.replace(segment, segment.upper())
    assert out == line


def test_the_gpl_notice_is_cut_into_its_sentences():
    notice = (
        "This program is free software: you can redistribute it and/or modify it under the terms of "
        "the GNU General Public License as published by the Free Software Foundation, either version 3 "
        "of the License, or (at your option) any later version. This program is distributed in the hope "
        "that it will be useful, but WITHOUT ANY WARRANTY; without even the implied warranty of "
        "MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public License for "
        "more details."
    )
    assert [s.text[:20] for s in plan(notice).segments] == [
        "This program is free",
        "This program is dist",
        "See the GNU General ",
    ]


def test_abbreviations_do_not_end_a_sentence():
    assert [s.text for s in plan("Use a pager, e.g. less or more. Then quit.").segments] == [
        "Use a pager, e.g. less or more.",
        "Then quit.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "42",
        "  3.14 %s  ",
        "https://example.org/a.b?c=d",
        "--force",
        "%1$s: %2$s",
        "...",
        "\u00a9 2024",
        "user@example.org",
        "{name} -- $HOME",
    ],
)
def test_segments_with_nothing_to_translate_pass_through(text):
    p = plan(text)
    assert p.segments == []
    assert identity(p) == p.assemble([]) == text
    assert "".join(p.passed).replace(" ", "") == "".join(text.split())


def test_a_letter_outside_urls_and_placeholders_needs_translation():
    assert [s.text for s in plan("(c) 2024").segments] == ["(c) 2024"]
    assert [s.text for s in plan("%s: done").segments] == ["%s: done"]


def test_pass_through_sits_between_translated_sentences():
    p = plan("Done. 42. See https://example.org for more.")
    assert [s.text for s in p.segments] == ["Done.", "See https://example.org for more."]
    assert p.passed == ["42."]
    assert p.assemble(["Hecho.", "Vea https://example.org para más."]) == "Hecho. 42. Vea https://example.org para más."


def test_a_long_sentence_is_cut_at_clauses_then_words_then_characters():
    text = "first clause here, second clause here; third one: " + "x" * 25
    spans = split_long(text, lambda s: len(s) > 20)
    pieces = [text[a:b] for a, b in spans]
    assert pieces[:3] == ["first clause here,", "second clause here;", "third one:"]
    assert pieces[3:] == ["x" * 20, "x" * 5]
    assert all(len(x) <= 20 for x in pieces)


def test_the_rest_of_a_clause_cut_between_words_joins_the_next_clause_when_both_fit():
    text = "aa bb cc dd, ee"
    assert [text[a:b] for a, b in split_long(text, lambda s: len(s) > 9)] == ["aa bb cc", "dd, ee"]


def test_short_clauses_are_packed_together_and_protected_spans_are_not_cut():
    text = "a, b, c, d, e, f"
    assert [text[a:b] for a, b in split_long(text, lambda s: len(s) > 8)] == ["a, b, c,", "d, e, f"]
    text = "see <a href='x y z'>the manual</a> now"
    tag = (text.index("<a"), text.index(">") + 1)
    spans = split_long(text, lambda s: len(s) > 12, [tag])
    assert all(not (a < tag[0] + 1 < b and not (a <= tag[0] and tag[1] <= b)) for a, b in spans)
    assert any(text[a:b].startswith("<a href='x y z'>") for a, b in spans)


def test_plan_cuts_long_sentences_with_a_budget_and_keeps_the_text():
    text = "When the archive is compressed, the whole file is read first, which takes a while on slow disks."
    p = plan(text, max_segment_chars=40)
    assert [s.text for s in p.segments] == [
        "When the archive is compressed,",
        "the whole file is read first,",
        "which takes a while on slow disks.",
    ]
    assert identity(p) == text
    words = plan(text, too_long=lambda s: len(s.split()) > 4)
    assert all(len(s.text.split()) <= 4 for s in words.segments)
    assert identity(words) == text


def test_sentence_spans_cover_every_non_space_character():
    line = "  Hello there.   How are you?  Fine "
    spans = sentence_spans(line)
    assert [line[a:b] for a, b in spans] == ["Hello there.", "How are you?", "Fine"]


_bits = st.sampled_from([*"ab .!?,;:\t\r\n%s<>&-19é", "\r\n", "  ", "e.g.", "Hi. ", "The file. ", "http://x.y/z?"])
_texts = st.lists(_bits, max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_texts, st.sampled_from([None, 5, 12]))
def test_identity_translation_gives_the_text_back_byte_for_byte(text, budget):
    p = plan(text, max_segment_chars=budget)
    assert identity(p) == text
    assert "".join(x.text for x in p.pieces) == text
    for s in p.segments:
        assert "\n" not in s.text and "\r" not in s.text and s.text == s.text.strip()
        assert budget is None or len(s.text) <= budget


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abc %1$sdé", min_size=1, max_size=10), min_size=1, max_size=6))
def test_translations_land_in_their_own_place(words):
    text = "\n".join(f"  {' '.join(w.split()) or 'x'} word.\t" for w in words)  # two spaces: a column gap
    p = plan(text)
    marked = p.assemble([f"[t{s.index}]" for s in p.segments])
    assert marked == "\n".join(f"  [t{i}]\t" for i in range(len(words)))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["word", "x" * 13, ", ", " ", "; ", "<ph>", "a"]), max_size=30).map("".join),
    st.integers(4, 20),
)
def test_long_cuts_keep_every_character_and_respect_the_budget(text, budget):
    protected = [(i, i + 4) for i in range(len(text)) if text.startswith("<ph>", i)]
    spans = split_long(text, lambda s: len(s) > budget, protected)
    assert "".join(text[a:b] for a, b in spans).replace(" ", "") == text.replace(" ", "")
    assert all(b - a <= budget for a, b in spans)
    assert all(not (a < s < b < e or s < a < e < b) for a, b in spans for s, e in protected)  # no tag cut


@pytest.mark.parametrize(
    "line",
    ["Could not open the file.", "Really?!", "Wait...", '(Saved as "notes.txt".)', "alias [-p] [name[=value] ... ]"],
)
def test_a_line_whose_sentence_ends_all_stand_at_its_end_is_one_sentence(line):
    """Only sentence ends, closing quotes or brackets and spaces after the first end: one sentence,
    decided without the library (which cut the last case into its text and a lone "]")."""
    assert sentence_spans(line) == [(0, len(line))]


def test_an_end_inside_the_line_still_goes_to_the_library():
    line = "The file is open. Close it first."
    assert sentence_spans(line) == [(0, 17), (18, len(line))]


@pytest.mark.parametrize("control", [chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, 0x85]])
@pytest.mark.parametrize("format", ["text", "html"])
def test_a_control_character_is_refused_naming_its_position(control, format):
    from traductor.text import ControlCharacter

    with pytest.raises(ControlCharacter) as refused:
        plan(f"Save file.\n\tDone{control}now", format)
    assert refused.value.position == 16 and refused.value.character == control
    assert f"U+{ord(control):04X} at position 16 (characters counted from 0)" in str(refused.value)


def test_tab_line_feed_and_carriage_return_are_layout_kept_where_they_were():
    text = "Open file\tClose file\r\nSave all\rQuit\n"
    p = plan(text)
    assert [s.text for s in p.segments] == ["Open file", "Close file", "Save all", "Quit"]
    assert p.assemble(["A", "B", "C", "D"]) == "A\tB\r\nC\rD\n"
