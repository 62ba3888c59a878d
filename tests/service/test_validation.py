"""Every request the server cannot serve is refused with INVALID_ARGUMENT and a message naming
the problem, on every RPC, and the server stays healthy and correct afterwards."""

from __future__ import annotations

import math

import grpc
import pytest
from grpc_health.v1 import health_pb2
from service_harness import WAIT, translate_request, wait_for

from traductor_client.v1 import translator_pb2 as pb

MAX_CHARS, MAX_TEXTS, MAX_SEGMENTS = 300, 4, 8


@pytest.fixture(scope="module")
def server_settings():
    return {
        "max_input_chars": MAX_CHARS,
        "max_segments": MAX_SEGMENTS,
        "max_batch_texts": MAX_TEXTS,
        "max_new_tokens": 30,
        "max_beam_size": 3,
    }


# (text, options, a word the error message must contain)
BAD = {
    "empty text": ("", {}, "empty"),
    "whitespace only": (" \t\n ", {}, "empty"),
    "over max_input_chars": ("a" * (MAX_CHARS + 1), {}, "(--max-input-chars)"),
    "over max_segments": (" ".join(["uno dos."] * (MAX_SEGMENTS + 1)), {}, "(--max-segments)"),
    "max_new_tokens 0": ("uno", {"max_new_tokens": 0}, "max_new_tokens"),
    "max_new_tokens over cap": ("uno", {"max_new_tokens": 31}, "max_new_tokens"),
    "max_new_tokens negative": ("uno", {"max_new_tokens": -1}, "max_new_tokens"),
    "beam_size 0": ("uno", {"beam_size": 0}, "beam_size"),
    "beam_size over cap": ("uno", {"beam_size": 4}, "beam_size"),
    "temperature NaN": ("uno", {"temperature": math.nan}, "temperature"),
    "temperature inf": ("uno", {"temperature": math.inf}, "temperature"),
    "temperature negative": ("uno", {"temperature": -0.5}, "temperature"),
    "top_p NaN": ("uno", {"top_p": math.nan}, "top_p"),
    "top_p 0": ("uno", {"top_p": 0.0}, "top_p"),
    "top_p over 1": ("uno", {"top_p": 1.01}, "top_p"),
    "top_k negative": ("uno", {"top_k": -1}, "top_k"),
    "seed negative": ("uno", {"seed": -3, "temperature": 1.0}, "seed"),
    "min_new_tokens over max_new_tokens": ("uno", {"min_new_tokens": 6, "max_new_tokens": 5}, "min_new_tokens"),
    "min_new_tokens negative": ("uno", {"min_new_tokens": -1}, "min_new_tokens"),
    "beam with sampling": ("uno", {"beam_size": 2, "temperature": 0.7}, "sampling"),
    "a NUL": ("a\x00b", {}, "control character U+0000 at position 1"),
    "an escape sequence": ("uno \x1b[31mdos", {}, "control character U+001B at position 4"),
    "a delete": ("uno\x7f", {}, "control character U+007F at position 3"),
    "a vertical tab": ("uno\x0bdos", {}, "control character U+000B at position 3"),
}


def refused(call) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_bad_request_is_invalid_argument_on_every_rpc(server, case):
    """The bad input gets INVALID_ARGUMENT (with a message naming it) from Translate, TranslateStream and
    TranslateBatch."""
    text, options, word = BAD[case]
    before = server.requests("Translate", "INVALID_ARGUMENT")
    request = translate_request(text, **options)
    batch = pb.TranslateBatchRequest(texts=["uno dos", text], options=pb.DecodingOptions(**options))
    for call in (
        lambda: server.stub.Translate(request, timeout=WAIT),
        lambda: list(server.stub.TranslateStream(request, timeout=WAIT)),
        lambda: server.stub.TranslateBatch(batch, timeout=WAIT),
    ):
        error = refused(call)
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, (case, error.details())
        assert word in error.details()
    wait_for(lambda: server.requests("Translate", "INVALID_ARGUMENT") == before + 1, what="the refusal to be counted")
    assert server.service.engine.in_flight == 0  # refused before any work was queued


def test_unknown_format(server):
    """A format number this server does not know is INVALID_ARGUMENT naming the format, on every RPC."""
    for call in (
        lambda: server.stub.Translate(pb.TranslateRequest(text="uno", format=9), timeout=WAIT),
        lambda: list(server.stub.TranslateStream(pb.TranslateRequest(text="uno", format=9), timeout=WAIT)),
        lambda: server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=["uno"], format=9), timeout=WAIT),
    ):
        error = refused(call)
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and "format 9" in error.details()


@pytest.mark.parametrize("n", [0, MAX_TEXTS + 1])
def test_batch_size_out_of_range(server, n):
    """TranslateBatch with no texts or more than max_batch_texts is INVALID_ARGUMENT."""
    error = refused(lambda: server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=["uno"] * n), timeout=WAIT))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and "texts" in error.details()


def test_limits_themselves_are_accepted(server):
    """Values at the limits are served: max_new_tokens, beam_size, temperature at their caps, top_p 1,
    max_batch_texts texts."""
    r = server.stub.Translate(translate_request("uno", max_new_tokens=30, min_new_tokens=30), timeout=WAIT)
    assert len(r.token_ids) == 30
    assert server.stub.Translate(translate_request("uno", beam_size=3, top_p=1.0, top_k=0), timeout=WAIT).text
    assert server.stub.Translate(translate_request("dos", temperature=100.0, seed=1), timeout=WAIT).token_ids
    batch = server.stub.TranslateBatch(pb.TranslateBatchRequest(texts=["uno"] * MAX_TEXTS), timeout=WAIT)
    assert len(batch.results) == MAX_TEXTS
    # exactly max_input_chars is served: one "word" far over the model's token limit is cut, not refused
    assert server.stub.Translate(translate_request("a" * MAX_CHARS), timeout=WAIT).text
    assert server.stub.Translate(translate_request(" ".join(["uno dos."] * MAX_SEGMENTS)), timeout=WAIT).text


def test_server_healthy_after_bad_requests(server, alone):
    """After every refusal the server is SERVING, idle, and still translates correctly."""
    for text, options, _ in BAD.values():
        refused(
            lambda text=text, options=options: server.stub.Translate(translate_request(text, **options), timeout=WAIT)
        )
    assert server.health_status() == health_pb2.HealthCheckResponse.SERVING
    server.wait_idle()
    r = server.stub.Translate(translate_request("tres cuatro"), timeout=WAIT)
    assert list(r.token_ids) == alone("tres cuatro").token_ids
