"""The text-level limits served (issue 11), a text's finish reason when a segment came back with
nothing in it (issue 37), and format refusals: on Translate, TranslateStream and TranslateBatch
alike. (Moved out of test_texts.py, which had grown past 300 lines.)"""

from __future__ import annotations

import grpc
import pytest
from service_harness import WAIT, translate_request

from traductor.text import plan
from traductor_client.v1 import translator_pb2 as pb

MAX_CHARS, MAX_SEGMENTS = 3000, 20


@pytest.fixture(scope="module")
def server_settings():
    return {"max_input_chars": MAX_CHARS, "max_segments": MAX_SEGMENTS, "max_queued_requests": 4}


def one(server, text: str, **options) -> pb.TranslateResponse:
    return server.stub.Translate(translate_request(text, **options), timeout=WAIT)


def refusals(server, request: pb.TranslateRequest) -> list[grpc.RpcError]:
    batch = pb.TranslateBatchRequest(texts=["uno dos", request.text], format=request.format)
    calls = (
        lambda: server.stub.Translate(request, timeout=WAIT),
        lambda: list(server.stub.TranslateStream(request, timeout=WAIT)),
        lambda: server.stub.TranslateBatch(batch, timeout=WAIT),
    )
    errors = []
    for call in calls:
        with pytest.raises(grpc.RpcError) as e:
            call()
        errors.append(e.value)
    return errors


@pytest.mark.parametrize(
    "text, limit, value",
    [
        ("uno " * 750 + "dos.", "--max-input-chars", MAX_CHARS),
        (" ".join(["uno dos."] * (MAX_SEGMENTS + 1)), "--max-segments", MAX_SEGMENTS),
    ],
    ids=["chars", "segments"],
)
def test_text_limits_are_invalid_argument_naming_the_limit(server, text, limit, value):
    """Beyond max_input_chars or max_segments: INVALID_ARGUMENT on every RPC, the message naming the
    limit's serve flag and its value; nothing reaches the engine."""
    for error in refusals(server, translate_request(text)):
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert f"over the limit of {value} ({limit})" in error.details()
    assert error.details().startswith("texts[1]: text is ")  # the batch's refusal names the item
    assert server.service.engine.in_flight == 0


def test_a_batch_refusal_names_the_item_and_an_option_refusal_names_none(server):
    """TranslateBatch: the text refused is named by its index in `texts`; a bad option is every
    text's, so its refusal names none."""
    cases = {("uno dos", "tres", "  "): "texts[2]: text is empty", ("uno", "a\x07b"): "texts[1]: text holds the "}
    for texts, start in cases.items():
        with pytest.raises(grpc.RpcError) as e:
            server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=texts), timeout=WAIT)
        assert e.value.code() is grpc.StatusCode.INVALID_ARGUMENT and e.value.details().startswith(start)
    request = pb.TranslateBatchRequest(texts=["uno", "dos"], options=pb.DecodingOptions(beam_size=99))
    with pytest.raises(grpc.RpcError) as e:
        server.stub.TranslateBatch(request, timeout=WAIT)
    assert "beam_size" in e.value.details() and "texts[" not in e.value.details()


def test_limits_themselves_are_served(server):
    """Exactly max_segments segments (pass-through lines not counted) and exactly max_input_chars are served."""
    text = "\n".join(["uno dos."] * MAX_SEGMENTS + ["42"] * 5)
    assert one(server, text).text.count("\n") == MAX_SEGMENTS + 4
    long = "uno dos. " + "7" * (MAX_CHARS - 9)  # one sentence, then a number to keep as it is
    assert len(long) == MAX_CHARS and one(server, long).text.endswith(" " + "7" * (MAX_CHARS - 9))


def test_unknown_format_is_invalid_argument(server):
    for error in refusals(server, pb.TranslateRequest(text="uno dos", format=7)):
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and "format" in error.details()


def test_model_info_reports_the_text_limits(server):
    info = server.stub.GetModelInfo(pb.GetModelInfoRequest(), timeout=WAIT)
    assert (info.max_input_chars, info.max_segments) == (MAX_CHARS, MAX_SEGMENTS)
    assert info.max_input_tokens == server.service.engine.limits.max_input_tokens


def test_text_limits_are_serve_flags_and_environment_variables():
    """--max-input-chars / --max-segments and TRADUCTOR_MAX_INPUT_CHARS / TRADUCTOR_MAX_SEGMENTS; the flag wins."""
    import argparse

    from traductor.service.settings import Settings

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    assert (Settings().max_input_chars, Settings().max_segments) == (20_000, 500)
    env = {"TRADUCTOR_MAX_INPUT_CHARS": "900", "TRADUCTOR_MAX_SEGMENTS": "9"}
    s = Settings.from_args(parser.parse_args(["--max-segments", "7"]), environ=env)
    assert (s.max_input_chars, s.max_segments) == (900, 7)


def test_a_segment_that_came_back_empty_keeps_its_source_and_the_text_says_untranslated():
    """Nothing in a segment's translation (only its options and spaces, as the model gave for a
    GNU help line): its source stays in place and the text's finish reason is `untranslated`, on
    the wire too, never a silently blank part with `eos`."""
    from traductor.engine.request import FinishEvent, FinishReason, Timings
    from traductor.service.convert import FINISH_TO_PB
    from traductor.service.pipeline.join import joined
    from traductor_client.results import finish_reason_name

    p = plan("Try -h, --help. Then uno dos.")
    events = [
        FinishEvent(FinishReason.LENGTH, "-h, --help      ", [7] * 8, [], 9, Timings()),
        FinishEvent(FinishReason.EOS, "B C", [5, 6], [], 4, Timings()),
    ]
    event = joined(p, events)
    assert event.text == "Try -h, --help. B C" and event.reason is FinishReason.UNTRANSLATED
    assert finish_reason_name(FINISH_TO_PB[event.reason]) == "untranslated"
    assert joined(p, [events[1], events[1]]).reason is FinishReason.EOS
