"""A register delivered by a rewrite (issue 55; service/pipeline/register.py): a model whose
config.json says `"register_rewrites": {"formal": "informal"}` (the Italian and Brazilian models)
is decoded in the informal register when a call asks the formal one, and each segment's text is
rewritten by text/register_convert between restore and verify; a text the rules cannot rewrite
with certainty keeps its words and is flagged (failed check "formality", confidence under `low`).

The engine is a fake with fixed Italian outputs: what is tested is what the pipeline does with an
informal output, whatever the model."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from pipeline_harness import streamed

from traductor.engine.confidence import low
from traductor.engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from traductor.options import DecodingOptions, Limits
from traductor.service import pipeline
from traductor.service.pipeline import register, verify
from traductor.text import TextLimits

FORMAL = DecodingOptions(source_language="en", target_language="it", register="formal")
INFORMAL = DecodingOptions(source_language="en", target_language="it", register="informal")
CONFIDENCE = 0.9

TABLE = {
    "Do you want to save your changes?": "Vuoi salvare le tue modifiche?",
    "You have %d new messages.": "Hai %d nuovi messaggi.",
    "Do you want me to notify you?": "Vuoi che ti avvisi?",  # "ti" before a verb the rules do not know
    "The file was saved.": "Il file è stato salvato.",  # nothing addresses the reader
    "Enter your name.": "Inserisci il tuo nome.",
    "Open https://tuo.example/tu now.": "Apri https://tuo.example/tu ora.",
}


class ItalianEngine:
    """Translates by TABLE into Italian, token by token (one word a token); delivers the formal
    register by a rewrite. Records what the verifier and the register stage count."""

    def __init__(self, alternatives: dict[str, list[str]] | None = None):
        self.limits, self.text_limits = Limits(), TextLimits()
        self.language, self.memory, self.target = "en", {}, "it"
        self.tokenizer = SimpleNamespace(controls=(), placeholder_ids=())
        self.counted: list[tuple] = []
        self.metrics = SimpleNamespace(observe_verdict=lambda repaired, failed: self.counted.append((repaired, failed)))
        self.alternatives = alternatives or {}
        self.sources: list[str] = []

    def rewritten(self, register: str) -> bool:
        return register == "formal"

    def encode(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str]]:
        self.sources.append(text)
        return [len(self.sources) - 1, 7, 0], []

    async def generate_many(self, inputs, ids, timeout=None, stream=True):
        for j, (source_ids, _, _) in enumerate(inputs):
            source = self.sources[source_ids[0]]
            words = TABLE[source].split(" ")
            for k, word in enumerate(words):
                yield j, TokenEvent(k, k + 1, word if k == 0 else " " + word, -0.1)
            others = self.alternatives.get(source, [])
            yield (
                j,
                FinishEvent(
                    FinishReason.EOS, TABLE[source], [1], [], 3, Timings(), confidence=CONFIDENCE, alternatives=others
                ),
            )


def translate(engine, text: str, options: DecodingOptions = FORMAL) -> FinishEvent:
    return asyncio.run(pipeline.translate(engine, text, options, "r"))


def test_an_informal_output_is_rewritten_into_the_formal_register_asked():
    engine = ItalianEngine()
    event = translate(engine, "Do you want to save your changes?")
    assert event.text == "Vuole salvare le Sue modifiche?"
    assert event.segments[0].failed_checks == () and event.confidence == CONFIDENCE
    assert engine.counted == [(("formality",), ()), ((), ())]  # the rewrite, then the verifier's verdict


def test_placeholders_survive_and_lei_names_whom_a_bare_verb_addresses():
    event = translate(ItalianEngine(), "You have %d new messages.")
    assert event.text == "Lei ha %d nuovi messaggi." and not event.segments[0].failed_checks


def test_a_text_the_rules_cannot_rewrite_keeps_its_words_and_is_flagged():
    engine = ItalianEngine()
    event = translate(engine, "Do you want me to notify you?")
    assert event.text == "Vuoi che ti avvisi?"
    assert event.segments[0].failed_checks == (register.FORMALITY,)
    assert event.confidence == verify.FLAGGED_CONFIDENCE and low(event.confidence)
    assert engine.counted[0] == ((), ("formality",))


def test_a_text_that_addresses_no_one_passes_untouched():
    engine = ItalianEngine()
    event = translate(engine, "The file was saved.")
    assert event.text == "Il file è stato salvato." and not event.segments[0].failed_checks
    assert engine.counted == [((), ())]  # the verifier's verdict only


def test_a_rewrite_that_would_change_a_protected_span_is_not_made():
    event = translate(ItalianEngine(), "Open https://tuo.example/tu now.")
    assert "https://tuo.example/tu" in event.text


def test_other_registers_and_calls_asking_none_pass_untouched():
    for options in (INFORMAL, DecodingOptions(source_language="en", target_language="it")):
        event = translate(ItalianEngine(), "Do you want to save your changes?", options)
        assert event.text == "Vuoi salvare le tue modifiche?" and not event.segments[0].failed_checks


def test_every_segment_of_a_text_is_rewritten_on_its_own():
    text = "Enter your name. The file was saved.\nDo you want me to notify you?"
    event = translate(ItalianEngine(), text)
    assert event.text == "Inserisca il Suo nome. Il file è stato salvato.\nVuoi che ti avvisi?"
    assert [s.failed_checks for s in event.segments] == [(), (), ("formality",)]


def test_alternatives_are_rewritten_and_one_the_rules_cannot_rewrite_is_dropped():
    engine = ItalianEngine({"Enter your name.": ["Scrivi il tuo nome.", "Vuoi che ti avvisi?", "Inserisci il nome."]})
    options = DecodingOptions(source_language="en", target_language="it", register="formal", alternatives=3)
    event = translate(engine, "Enter your name.", options)
    assert event.text == "Inserisca il Suo nome."
    assert event.segments[0].alternatives == ["Scriva il Suo nome.", "Inserisca il nome."]


def test_a_stream_never_sends_the_informal_words_and_ends_with_the_unary_text():
    text = "Do you want to save your changes? The file was saved."
    deltas, done = streamed(ItalianEngine(), text, FORMAL)
    sent = "".join(deltas) + done.final_delta
    assert "Vuoi" not in "".join(deltas) and "tue" not in sent
    assert sent == done.text == translate(ItalianEngine(), text).text
    assert done.text == "Vuole salvare le Sue modifiche? Il file è stato salvato."


def test_a_rewrite_that_would_change_a_glossary_term_is_not_made():
    """A glossary's target words are the caller's: "il tuo profilo" asked for stays as it is."""
    engine = ItalianEngine()
    prepared = pipeline.prepare(engine, "Enter your name.", FORMAL, "text", None)
    event = FinishEvent(FinishReason.EOS, "Inserisci il tuo nome.", [1], [], 3, Timings(), confidence=CONFIDENCE)
    terms = SimpleNamespace(found=[(None, "il tuo nome")])  # (the match, its target form), as protect finds them
    kept = register.rewritten(engine, prepared, 0, event, terms)
    assert kept.text == "Inserisci il tuo nome." and kept.failed_checks == (register.FORMALITY,)
    other = SimpleNamespace(found=[(None, "cognome")])  # a term the text does not hold: no hindrance
    assert register.rewritten(engine, prepared, 0, event, other).text == "Inserisca il Suo nome."
