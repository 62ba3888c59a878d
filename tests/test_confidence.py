"""The segment confidence (engine/confidence.py) and how a cut-short or doubtful segment reaches the
replies and the files (issue 41), without a server: the joined text event (service/pipeline/join.py), its
gRPC and HTTP forms (convert.py, http/quality.py) and the files' outcome and report (client files)."""

from __future__ import annotations

import math

import pytest

from traductor.engine import confidence as conf
from traductor.engine.request import FinishEvent, FinishReason, Timings
from traductor.service import convert
from traductor.service.http import quality
from traductor.service.pipeline.join import joined
from traductor.text import plan
from traductor_client.files import Job, outcome, read
from traductor_client.v1 import translator_pb2 as pb

EOS = 3


def event(reason: FinishReason, text: str, confidence: float) -> FinishEvent:
    return FinishEvent(reason, text, [5], [], 2, Timings(), confidence=confidence)


def test_confidence_is_zero_when_cut_short_or_empty_and_grows_with_the_models_scores():
    source = [10, 11, 12, EOS]
    assert conf.confidence(source, [20, 21, 22], [-0.1, -0.2, -0.1], EOS, cut_short=True) == 0.0
    assert conf.confidence(source, [], [], EOS, cut_short=False) == 0.0
    sure = conf.confidence(source, [20, 21, 22], [-0.05, -0.1, -0.05], EOS, cut_short=False)
    unsure = conf.confidence(source, [20, 21, 22], [-2.5, -3.0, -4.0], EOS, cut_short=False)
    assert 0 <= unsure < sure <= 1


def test_the_signals_read_length_and_copies():
    s = conf.signals([10, 11, EOS], [10, 11], [-0.5, -1.5], EOS)
    assert s.mean_logp == -1.0 and s.min_logp == -1.5 and s.copy
    assert s.length_gap == pytest.approx(abs(math.log(1.0) - math.log(conf.LENGTH_RATIO)))
    assert not conf.signals([10, 11, EOS], [20, 11], [-0.5, -1.5], EOS).copy


def test_a_text_joins_its_segments_reasons_and_keeps_each_one():
    p = plan("Uno dos.\nTres cuatro.\nCinco.")
    events = [
        event(FinishReason.EOS, "A B.", 0.9),
        event(FinishReason.LOOP, "C C C C", 0.0),
        event(FinishReason.LENGTH, "D", 0.0),
    ]
    text = joined(p, events)
    assert text.reason is FinishReason.LOOP  # loop before length
    assert [s.source for s in text.segments] == ["Uno dos.", "Tres cuatro.", "Cinco."]
    assert [s.cut_short for s in text.segments] == [False, True, True]
    assert text.confidence == 0.0
    assert joined(p, [events[0], events[0], events[2]]).reason is FinishReason.LENGTH
    alone = joined(plan("Uno dos."), events[:1])
    assert alone.reason is FinishReason.EOS and alone.confidence == 0.9 and not alone.cut_short


def test_a_segment_that_came_back_empty_is_untranslated_with_confidence_zero():
    p = plan("Uno dos.\nTres.")
    text = joined(p, [event(FinishReason.EOS, "A B.", 0.8), event(FinishReason.EOS, " ", 0.7)])
    assert text.reason is FinishReason.UNTRANSLATED
    second = text.segments[1]
    assert second.reason is FinishReason.UNTRANSLATED and second.confidence == 0.0 and second.text == "Tres."


def test_grpc_and_http_forms_of_a_looping_segment():
    text = joined(plan("Uno.\nDos."), [event(FinishReason.EOS, "A.", 0.95), event(FinishReason.LOOP, "B B B B", 0.0)])
    r = convert.response_to_pb(text, "rid", scores=False)
    assert r.finish_reason == pb.FINISH_REASON_LOOP and r.confidence == 0.0
    assert [(s.source, s.finish_reason, s.cut_short, s.low_confidence) for s in r.segments] == [
        ("Uno.", pb.FINISH_REASON_EOS, False, 0.95 < conf.LOW),
        ("Dos.", pb.FINISH_REASON_LOOP, True, True),
    ]
    assert convert.final_to_pb(text, "rid").segments == r.segments
    libre = quality.libre(text)
    assert libre["finish"] == "loop" and libre["cutShort"] and libre["lowConfidence"] and libre["confidence"] == 0
    assert libre["segments"][1] == {
        "source": "Dos.",
        "translatedText": "B B B B",
        "finish": "loop",
        "cutShort": True,
        "confidence": 0.0,
        "lowConfidence": True,
        "markupUnsure": False,
        "failedChecks": [],  # the verifier's (service/pipeline/verify.py): none here
    }
    deepl = quality.deepl(text)
    assert deepl["finish_reason"] == "loop" and deepl["cut_short"] and deepl["segments"][0]["text"] == "A."


PO = b"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Open"
msgstr ""

msgid "Close"
msgstr ""

msgid "Quit"
msgstr ""

msgid "Save"
msgstr ""
"""


def test_files_write_cut_short_and_doubtful_units_for_review_not_as_filled():
    document = read("m.po", PO)
    job = Job(document)
    outcomes = {
        ("text", "Open"): outcome("Abrir", "eos", 0.9, False),
        ("text", "Close"): outcome("Cerrar cerrar cerrar cerrar", "loop", 0.0, True),
        ("text", "Quit"): outcome("Salir", "eos", 0.2, True),
        ("text", "Save"): outcome("Guardar", "untranslated"),
    }
    filled = job.finish(outcomes, mark_review=False)
    assert [u.sources[0] for u in filled] == ["Open", "Close", "Quit"]
    assert job.report.filled == 1
    reasons = {u.sources[0]: why for u, why in job.report.review}
    assert reasons == {"Close": "cut short: the service stopped it repeating itself", "Quit": "low confidence (0.20)"}
    assert [u.sources[0] for u, _ in job.report.skipped] == ["Save"]
    out = document.render(filled).decode()
    fuzzy = [block.split("\n")[1] for block in out.split("\n\n") if "#, fuzzy" in block]
    assert fuzzy == ['msgid "Close"', 'msgid "Quit"']  # the caller asked for no review mark: only those two
    assert job.report.as_json()["needsReview"][0]["reason"].startswith("cut short")
    assert any(line.strip().startswith("needs review") for line in job.report.lines(marked=False))


def test_a_format_that_cannot_mark_review_gets_no_cut_short_text():
    document = read("m.txt", b"Open the door\n")
    job = Job(document)
    (text,) = job.requests["text"]
    filled = job.finish({("text", text): outcome("Abre la puerta puerta puerta puerta", "loop")})
    assert filled == [] and "cannot mark it for review" in job.report.skipped[0][1]


def test_the_python_client_reads_the_segments_and_an_older_servers_reply():
    from traductor_client.results import Translation, stream_event_from_pb

    text = joined(plan("Uno.\nDos."), [event(FinishReason.EOS, "A.", 0.95), event(FinishReason.LENGTH, "B", 0.0)])
    got = Translation.from_pb(convert.response_to_pb(text, "rid", scores=False))
    assert got.finish_reason == "length" and got.cut_short and got.low_confidence and got.confidence == 0.0
    assert [(s.source, s.finish_reason, s.cut_short) for s in got.segments] == [
        ("Uno.", "eos", False),
        ("Dos.", "length", True),
    ]
    final = stream_event_from_pb(convert.final_to_pb(text, "rid"))
    assert final.segments == got.segments and final.cut_short
    older = Translation.from_pb(pb.TranslateResponse(text="A.", finish_reason=pb.FINISH_REASON_EOS))
    assert older.confidence is None and not older.cut_short and not older.low_confidence
