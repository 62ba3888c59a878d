"""Inline markup on the right words (issue 41, item 4; service/pipeline: protect.pairs, restore.place).

A segment holding a pair of inline tags has the wrapped text translated on its own in the same
engine group; the pair stays where the model put it when that agrees, moves onto the words that
translate it when they are elsewhere (word order changed), and otherwise stays with the segment
marked `markup_unsure` and its confidence under the `low` threshold.

The engine is a fake with fixed translations: a tiny model cannot be made to misplace a tag on
purpose, and what is tested here is what the service does with a misplaced one."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from traductor.engine.confidence import low
from traductor.engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from traductor.model import placeholders
from traductor.options import DecodingOptions, Limits
from traductor.service import pipeline
from traductor.service.http import quality
from traductor.service.pipeline import protect, restore
from traductor.text import TextLimits

OPTIONS = DecodingOptions(source_language="en", target_language="es")
CONFIDENCE = 0.9


class FakeEngine:
    """Translates by a table; records each group it is given (the source texts)."""

    def __init__(self, table: dict[str, str], loops: frozenset[str] = frozenset()):
        self.table, self.loops = table, loops  # `loops`: sources whose output is stopped looping
        self.limits, self.text_limits = Limits(), TextLimits()
        self.language, self.memory, self.target = "en", {}, "es"
        self.tokenizer = SimpleNamespace(controls=(), placeholder_ids=())
        self.metrics = SimpleNamespace(observe_verdict=lambda repaired, failed: None)  # the verifier counts there
        self.sources: list[str] = []
        self.registers: list[str] = []  # each encoded text's register
        self.groups: list[list[str]] = []

    def rewritten(self, register: str) -> bool:
        return False  # no register by a rewrite (service/pipeline/register.py)

    def encode(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str]]:
        self.sources.append(text)
        self.registers.append(options.register)
        return [len(self.sources) - 1, 10_000, 0], []

    async def generate_many(self, inputs, ids, timeout=None, stream=True):
        group = [self.sources[i[0][0]] for i in inputs]
        self.groups.append(group)
        for j in reversed(range(len(group))):  # the last first: the order must not matter
            out = self.table[group[j]]
            yield j, TokenEvent(0, 1, out, -0.1)
            reason = FinishReason.LOOP if group[j] in self.loops else FinishReason.EOS
            yield j, FinishEvent(reason, out, [1], [-0.1], 3, Timings(), confidence=CONFIDENCE)


def translate(engine: FakeEngine, text: str, format: str = "text", options: DecodingOptions = OPTIONS) -> FinishEvent:
    return asyncio.run(pipeline.translate(engine, text, options, "r", format=format))


DISK = "Check that <b>the disk</b> has space."
TABLE = {
    DISK: "Compruebe que <b>el</b> disco tiene espacio.",  # bold on the article
    "the disk": "el disco",
    'Open the <a href="x">red file</a> now.': '<a href="x">Abra</a> ahora el archivo rojo.',  # order changed
    "red file": "archivo rojo",
    "Delete <i>all files</i> now?": "¿Borrar <i>todos los archivos</i> ahora?",
    "all files": "todos los archivos",
    "Press <b>Enter</b> to go on.": "<b>Pulse</b> Intro para seguir.",
    "Enter": "Entrar",  # not in the sentence: nowhere to move the pair to
    "Save <b>the report</b> here.": "Guarde el informe aquí.",  # the model dropped the pair
    "the report": "el informe",
    "Nothing to check here.": "Nada que comprobar aquí.",
    "A <b>new version</b> is out.": "Una versión <b>nueva</b> ha salido.",  # adjective after the noun
    "new version": "Nueva versión",
    "Open <b>the file</b> with <i>care</i>.": "Abra <b>con</b> <i>cuidado</i> el archivo.",
    "the file": "el archivo",
    "care": "cuidado",
}


def test_a_pair_on_the_wrong_word_moves_to_the_translation_of_what_it_wrapped():
    engine = FakeEngine(TABLE)
    event = translate(engine, DISK)
    assert event.text == "Compruebe que <b>el disco</b> tiene espacio."
    assert not event.markup_unsure and event.confidence == CONFIDENCE
    assert engine.groups == [[DISK, "the disk"]]  # the wrapped text alone, in the same group


def test_the_wrapped_texts_own_translation_is_kept_for_the_next_call():
    engine = FakeEngine(TABLE)
    first, second = translate(engine, DISK), translate(engine, DISK)
    assert first.text == second.text and engine.groups == [[DISK, "the disk"], [DISK]]


def test_the_wrapped_text_is_translated_in_the_register_asked_and_kept_per_register():
    engine = FakeEngine(TABLE)
    informal = DecodingOptions(source_language="en", target_language="es", register="informal")
    translate(engine, DISK, options=informal)
    assert engine.registers == ["informal", "informal"]  # the segment, and the wrapped text alone
    translate(engine, DISK, options=informal)  # kept for the same register
    translate(engine, DISK, options=DecodingOptions(source_language="en", target_language="es", register="formal"))
    assert engine.groups == [[DISK, "the disk"], [DISK], [DISK, "the disk"]]
    assert engine.registers[-2:] == ["formal", "formal"]


def test_an_own_translation_cut_short_is_not_used_nor_kept():
    engine = FakeEngine(TABLE, loops=frozenset({"the disk"}))
    first, second = translate(engine, DISK), translate(engine, DISK)
    assert first.text == "Compruebe que <b>el</b> disco tiene espacio." and first.markup_unsure
    assert second.text == first.text and engine.groups == [[DISK, "the disk"], [DISK, "the disk"]]


def test_a_pair_follows_the_words_when_the_word_order_changes():
    event = translate(FakeEngine(TABLE), 'Open the <a href="x">red file</a> now.')
    assert event.text == 'Abra ahora el <a href="x">archivo rojo</a>.'
    assert not event.markup_unsure


def test_a_pair_wraps_the_same_words_in_the_targets_order():
    event = translate(FakeEngine(TABLE), "A <b>new version</b> is out.")
    assert event.text == "Una <b>versión nueva</b> ha salido."
    assert not event.markup_unsure


def test_a_pair_that_agrees_is_kept():
    event = translate(FakeEngine(TABLE), "Delete <i>all files</i> now?")
    assert event.text == "¿Borrar <i>todos los archivos</i> ahora?"
    assert not event.markup_unsure and event.confidence == CONFIDENCE


def test_a_pair_with_nowhere_to_go_is_kept_and_counted():
    event = translate(FakeEngine(TABLE), "Press <b>Enter</b> to go on.")
    assert event.text == "<b>Pulse</b> Intro para seguir."
    assert event.markup_unsure and event.segments[0].markup_unsure
    assert event.confidence == restore.UNSURE_CONFIDENCE and low(event.confidence)


def test_the_http_answers_say_which_segment_is_unsure():
    event = translate(FakeEngine(TABLE), "Press <b>Enter</b> to go on. Nothing to check here.")
    libre, deepl = quality.libre(event), quality.deepl(event)
    assert [s["markupUnsure"] for s in libre["segments"]] == [True, False]
    assert [s["markup_unsure"] for s in deepl["segments"]] == [True, False]
    assert libre["lowConfidence"] and [s["lowConfidence"] for s in libre["segments"]] == [True, False]


def test_a_dropped_pair_is_put_around_the_words():
    event = translate(FakeEngine(TABLE), "Save <b>the report</b> here.")
    assert event.text == "Guarde <b>el informe</b> aquí."
    assert not event.markup_unsure


def test_a_pair_does_not_move_past_another_marker():
    """The markers of an HTML segment are put back in source order (text.html.restore_markup): a
    pair moved past another would take that one's place. So it stays, counted."""
    event = translate(FakeEngine(TABLE), "Open <b>the file</b> with <i>care</i>.")
    assert event.text == "Abra <b>con</b> <i>cuidado</i> el archivo."
    assert event.markup_unsure


def test_html_segments_are_checked_too():
    event = translate(FakeEngine(TABLE), f"<p>{DISK}</p>", format="html")
    assert event.text == "<p>Compruebe que <b>el disco</b> tiene espacio.</p>"


def test_a_segment_without_pairs_goes_alone():
    engine = FakeEngine(TABLE)
    event = translate(engine, "Nothing to check here.")
    assert event.text == "Nada que comprobar aquí." and not event.markup_unsure
    assert engine.groups == [["Nothing to check here."]]


def test_the_result_does_not_depend_on_the_batch():
    alone = translate(FakeEngine(TABLE), DISK)
    texts_in = ["Press <b>Enter</b> to go on.", DISK, "Nothing to check here."]
    events = asyncio.run(pipeline.translate_many(FakeEngine(TABLE), texts_in, OPTIONS, "r"))
    assert events[1].text == alone.text and events[1].confidence == alone.confidence
    assert [e.markup_unsure for e in events] == [True, False, False]


def test_the_stream_holds_a_checked_segment_until_it_is_placed():
    engine = FakeEngine(TABLE)
    text = f"{DISK} Nothing to check here."
    prepared = pipeline.prepare(engine, text, OPTIONS)

    async def collect():
        return [e async for e in pipeline.stream(engine, prepared, "r")]

    events = asyncio.run(collect())
    deltas = [e.text_delta for e in events[:-1]] + [events[-1].final_delta]
    assert "<b>el</b>" not in "".join(deltas)  # the model's placement was never sent
    assert "".join(deltas) == events[-1].text == translate(FakeEngine(TABLE), text).text
    assert events[-1].text == "Compruebe que <b>el disco</b> tiene espacio. Nada que comprobar aquí."


@pytest.mark.parametrize(
    ("source", "inner"),
    [
        (DISK, ["the disk"]),
        ("<b>Done.</b>", []),  # wraps the whole segment: nothing to compare with
        ("<b>Warning:</b> the file is <i>%s</i>.", ["Warning:"]),  # no letter inside <i>
        ("A <b><i>nested</i> pair</b> here.", ["nested"]),  # the outer one holds another tag
        ("cp <source> <dest>", []),  # not markup
        ("An <b>x</b> and a <b>y</b> here.", []),  # the same tags twice: not told apart
    ],
)
def test_checkable_pairs(source, inner):
    assert [p.inner for p in protect.pairs(source, list(placeholders.finditer(source)))] == inner


def test_grpc_segments_and_the_file_report_say_it():
    """gRPC SegmentResult.markup_unsure (read by the client), and a file's unit written for review
    with the reason named."""
    from traductor.service.convert import response_to_pb
    from traductor_client.files.job import MARKUP_UNSURE, outcome
    from traductor_client.results import Translation

    event = translate(FakeEngine(TABLE), "Press <b>Enter</b> to go on. Nothing to check here.")
    result = Translation.from_pb(response_to_pb(event, "r", False))
    assert [s.markup_unsure for s in result.segments] == [True, False] and result.low_confidence
    text, why, review = outcome(result.text, result.finish_reason, result.confidence, True, markup=True)
    assert text == event.text and why == "" and review.startswith(MARKUP_UNSURE)
    assert outcome("Hola.", "eos", 0.9)[2] == ""
