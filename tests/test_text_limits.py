"""Text-level limits: refused before any model work, with an error that names the limit."""

from __future__ import annotations

import pytest

from traductor.errors import InvalidInput, TraductorError
from traductor.text import LimitExceeded, TextError, TextLimits, TooManyChars, TooManySegments, UnknownFormat, plan


def test_defaults_are_twenty_thousand_characters_and_five_hundred_segments():
    assert TextLimits() == TextLimits(max_chars=20_000, max_segments=500)
    with pytest.raises(ValueError, match="max_segments"):
        TextLimits(max_segments=0)


def test_too_many_characters_names_the_limit():
    limits = TextLimits(max_chars=10)
    assert plan("Short one.", limits=limits).segments  # exactly 10: accepted
    with pytest.raises(TooManyChars, match=r"text is 11 characters, over the limit of 10 \(--max-input-chars\)") as e:
        plan("Short one!!", limits=limits)
    assert (e.value.limit, e.value.value, e.value.maximum) == ("max_chars", 11, 10)
    assert isinstance(e.value, LimitExceeded) and isinstance(e.value, TextError)
    assert isinstance(e.value, InvalidInput) and isinstance(e.value, TraductorError)  # INVALID_ARGUMENT


def test_too_many_segments_names_the_limit_and_pass_through_does_not_count():
    limits = TextLimits(max_segments=3)
    assert len(plan("One. Two. Three. 4. 5. 6.", limits=limits).segments) == 3
    with pytest.raises(TooManySegments, match=r"text is 4 segments, over the limit of 3 \(--max-segments\)") as e:
        plan("One.\nTwo.\nThree.\nFour.", limits=limits)
    assert e.value.limit == "max_segments"


def test_long_sentences_count_as_the_segments_they_become():
    with pytest.raises(TooManySegments):
        plan("word " * 20, max_segment_chars=10, limits=TextLimits(max_segments=5))


def test_the_default_limits_accept_a_long_paragraph_and_a_long_sentence():
    sentence = "The file could not be opened because it is locked by another program. "
    p = plan(sentence * 250)  # 18,000 characters, 250 sentences
    assert len(p.segments) == 250
    long_one = "and the next word, " * 900  # one 17,100-character sentence: cut, never refused
    p = plan(long_one, too_long=lambda s: len(s.split()) > 40)
    assert all(len(s.text.split()) <= 40 for s in p.segments)
    assert p.assemble([s.text for s in p.segments]) == long_one


def test_unknown_format():
    with pytest.raises(UnknownFormat, match="'markdown'"):
        plan("x", "markdown")
