"""Streaming a segmented text: deltas in text order that add up to the assembled text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traductor.text import DeltaStream, plan

TEXT = "  First one.  Second one!\n\n\t42\nThird one? Fourth.\r\n"


def chunks(text: str, rng: random.Random) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(3, len(text) - 1))) if len(text) > 1 else []
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def test_head_streams_as_it_decodes_and_later_segments_follow_in_order():
    p = plan(TEXT)
    assert [s.text for s in p.segments] == ["First one.", "Second one!", "Third one?", "Fourth."]
    s = DeltaStream(p)
    assert s.begin() == "  "
    assert s.push(1, "Segun") == ""  # not the head yet: held back
    assert s.push(0, "Pri") == "Pri"  # the head streams at once
    assert s.push(0, "mero") == "mero"
    assert s.finish(3, "Cuarto.") == ""
    assert s.finish(0, "Primero.") == ".  Segun"  # the end of the head, the separator, the new head so far
    assert s.push(1, "do") == "do"
    assert s.finish(2, "¿Tercero?") == ""
    assert s.finish(1, "Segundo!") == "!\n\n\t42\n¿Tercero? Cuarto.\r\n"
    assert s.done


def test_a_text_with_nothing_to_translate_is_sent_by_begin():
    s = DeltaStream(plan("  42\n\n%s  "))
    assert s.begin() == "  42\n\n%s  " and s.done


def test_a_finished_translation_must_extend_what_was_streamed():
    s = DeltaStream(plan("One. Two."))
    s.push(0, "Uno")
    with pytest.raises(ValueError, match="already streamed"):
        s.finish(0, "Un.")
    with pytest.raises(IndexError):
        s.push(5, "x")


def test_a_head_with_nothing_in_it_yet_is_held_back_and_an_empty_one_keeps_its_source():
    s = DeltaStream(plan("Try -h, --help. Second one."))
    assert s.begin() == ""
    assert s.push(0, "-h, --help") == "" and s.push(0, "     ") == ""  # no letter yet: nothing sent
    assert s.finish(0, "-h, --help      ") == "Try -h, --help. "  # nothing came: the source, then the separator
    assert s.push(1, "Segun") == "Segun"
    assert s.finish(1, "Segunda.") == "da."


def test_a_segment_cannot_finish_twice():
    s = DeltaStream(plan("One. Two."))
    s.finish(1, "Dos.")
    with pytest.raises(ValueError, match="already finished"):
        s.finish(1, "Dos.")


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["text", "html"]))
def test_deltas_in_any_arrival_order_concatenate_to_assemble(seed, fmt):
    rng = random.Random(seed)
    text = TEXT if fmt == "text" else "<p>First <b>one</b>. Second one!</p>\n<ul><li>Third? Fourth.</li></ul>"
    p = plan(text, fmt)
    translations = [
        f"T{s.index} {'x' * rng.randrange(5)} <b>." if fmt == "html" else f"t{s.index}-{rng.random():.3f}"
        for s in p.segments
    ]
    events = []
    for s in p.segments:  # each segment's deltas in order, the segments interleaved at random
        events.append([("push", s.index, c) for c in chunks(translations[s.index], rng)] + [("finish", s.index, None)])
    s = DeltaStream(p)
    out = [s.begin()]
    while any(events):
        queue = rng.choice([e for e in events if e])
        kind, index, chunk = queue.pop(0)
        delta = s.push(index, chunk) if kind == "push" else s.finish(index, translations[index])
        out.append(delta)
        assert p.assemble(translations).startswith("".join(out))  # text order: always a prefix
    assert "".join(out) == p.assemble(translations)
    assert s.done
