"""TranslatorClient against the in-process fake server."""

from __future__ import annotations

import grpc
import pytest
from client_fake_server import FAST_RECONNECT, FakeServer, unused_port
from grpc_health.v1 import health_pb2

from traductor_client import (
    NO_RETRY,
    DeadlineExceeded,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    RetryPolicy,
    StreamFinal,
    StreamToken,
    TranslatorClient,
    Unauthenticated,
    Unavailable,
)

FAST_RETRY = dict(max_attempts=30, initial_backoff=0.01, max_backoff=0.05)


def test_translate_maps_the_response(server):
    with TranslatorClient(server.address) as client:
        result = client.translate("the cat sleeps", request_id="r-1")
    assert result.text == "sleeps cat the"
    assert result.finish_reason == "eos"
    assert result.token_ids == [server.translator.token_id(w) for w in ["sleeps", "cat", "the"]]
    assert (result.usage.input_tokens, result.usage.output_tokens) == (4, 3)
    assert result.timings.total_seconds == pytest.approx(0.001)
    assert result.request_id == "r-1"
    assert result.token_logprobs == [] and result.score is None


def test_only_given_options_are_sent(server):
    with TranslatorClient(server.address) as client:
        result = client.translate("a b c d", max_new_tokens=2, return_scores=True)
    assert result.text == "d c" and result.finish_reason == "length"
    assert result.token_logprobs == [-0.5, -0.5] and result.score == pytest.approx(-1.0)
    sent = server.translator.options[-1]
    assert sent.HasField("max_new_tokens") and sent.max_new_tokens == 2
    assert not sent.HasField("beam_size") and not sent.HasField("temperature")


def test_unknown_option_raises_type_error_before_sending(server):
    with TranslatorClient(server.address) as client:
        with pytest.raises(TypeError, match="beam"):
            client.translate("x", beam=3)
        with pytest.raises(TypeError):
            client.stream_events("x", nucleus=0.9)  # checked at the call, not at iteration
    assert sum(server.translator.calls.values()) == 0


def test_translate_batch_keeps_order(server):
    with TranslatorClient(server.address) as client:
        results = client.translate_batch(["one two", "three", "four five six"], beam_size=2)
    assert [r.text for r in results] == ["two one", "three", "six five four"]
    assert server.translator.options[-1].beam_size == 2
    with TranslatorClient(server.address) as client, pytest.raises(TypeError):
        client.translate_batch("not a list")


def test_stream_yields_deltas_and_final_event(server):
    with TranslatorClient(server.address) as client:
        deltas = list(client.stream("red green blue"))
        events = list(client.stream_events("red green blue", return_scores=True))
    assert deltas == ["blue", " green", " red"]
    assert "".join(deltas) == "blue green red"
    tokens, final = events[:-1], events[-1]
    assert all(isinstance(t, StreamToken) for t in tokens)
    assert [t.index for t in tokens] == [0, 1, 2] and [t.logprob for t in tokens] == [-0.5] * 3
    assert isinstance(final, StreamFinal)
    assert final.finish_reason == "eos" and final.num_tokens == 3
    assert final.usage.output_tokens == 3


def test_health_and_model_info(server):
    with TranslatorClient(server.address) as client:
        assert client.health() == "SERVING"
        server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
        assert client.health() == "NOT_SERVING"
        info = client.model_info()
    assert info.name == "fake-reverse" and info.max_beam_size == 4
    assert (info.source_language, info.target_language) == ("en", "es")


def test_health_of_unknown_service_is_not_found(server):
    with TranslatorClient(server.address) as client:
        with pytest.raises(NotFound) as caught:
            client.health("no.such.Service")
    assert caught.value.code is grpc.StatusCode.NOT_FOUND


def test_invalid_argument_is_typed_and_not_retried(server):
    retries = []
    policy = RetryPolicy(on_retry=lambda *a: retries.append(a), **FAST_RETRY)
    with TranslatorClient(server.address, retry=policy) as client:
        with pytest.raises(InvalidArgument) as caught:
            client.translate("")
        with pytest.raises(InvalidArgument):
            list(client.stream("x", beam_size=9))
    assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert "empty" in caught.value.details
    assert server.translator.calls["Translate"] == 1
    assert server.translator.calls["TranslateStream"] == 1
    assert retries == []


def test_resource_exhausted_is_not_retried(server):
    server.translator.fail_next = [grpc.StatusCode.RESOURCE_EXHAUSTED]
    with TranslatorClient(server.address, retry=RetryPolicy(**FAST_RETRY)) as client:
        with pytest.raises(ResourceExhausted):
            client.translate("x")
    assert server.translator.calls["Translate"] == 1


def test_unavailable_is_retried_until_success(server):
    server.translator.fail_next = [grpc.StatusCode.UNAVAILABLE] * 2
    retries = []
    policy = RetryPolicy(on_retry=lambda attempt, err, delay: retries.append((attempt, err.code)), **FAST_RETRY)
    with TranslatorClient(server.address, retry=policy) as client:
        assert client.translate("a b").text == "b a"
        server.translator.fail_next = [grpc.StatusCode.UNAVAILABLE]
        assert list(client.stream("a b")) == ["b", " a"]  # nothing received yet: retried
    assert retries == [
        (1, grpc.StatusCode.UNAVAILABLE),
        (2, grpc.StatusCode.UNAVAILABLE),
        (1, grpc.StatusCode.UNAVAILABLE),
    ]
    assert server.translator.calls["Translate"] == 3
    assert server.translator.calls["TranslateStream"] == 2


def test_stream_is_not_retried_after_a_message_arrived(server):
    with TranslatorClient(server.address, retry=RetryPolicy(**FAST_RETRY)) as client:
        received = []
        with pytest.raises(Unavailable):
            for delta in client.stream("!break"):
                received.append(delta)
    assert received == ["first"]
    assert server.translator.calls["TranslateStream"] == 1


def test_retry_gives_up_after_max_attempts():
    retries = []
    policy = RetryPolicy(
        max_attempts=3, initial_backoff=0.001, max_backoff=0.002, on_retry=lambda *a: retries.append(a)
    )
    with TranslatorClient(f"127.0.0.1:{unused_port()}", retry=policy, timeout=5) as client:
        with pytest.raises(Unavailable):
            client.translate("x")
    assert [attempt for attempt, _, _ in retries] == [1, 2]


def test_retry_reaches_a_server_started_late():
    """Nothing listens at first; the first retry hook starts the server on that port."""
    port = unused_port()
    started = []

    def start_server(attempt, error, delay):
        assert isinstance(error, Unavailable)
        if not started:
            started.append(FakeServer(port))

    policy = RetryPolicy(on_retry=start_server, **FAST_RETRY)
    try:
        with TranslatorClient(f"127.0.0.1:{port}", retry=policy, timeout=10, channel_options=FAST_RECONNECT) as client:
            assert client.translate("late server").text == "server late"
        assert started and started[0].translator.calls["Translate"] == 1
    finally:
        for fake in started:
            fake.stop()


def test_deadline_exceeded(server):
    with TranslatorClient(server.address, timeout=30) as client:
        try:
            with pytest.raises(DeadlineExceeded) as caught:
                client.translate("!block", timeout=0.2)  # per-call deadline beats the default
            assert server.translator.blocked.is_set()
            with pytest.raises(DeadlineExceeded):
                list(client.stream("!block", timeout=0.2))
        finally:
            server.translator.release.set()
    assert caught.value.code is grpc.StatusCode.DEADLINE_EXCEEDED


def test_client_default_deadline_applies(server):
    with TranslatorClient(server.address, timeout=0.2, retry=NO_RETRY) as client:
        try:
            with pytest.raises(DeadlineExceeded):
                client.translate("!block")
        finally:
            server.translator.release.set()


def test_bearer_token_is_sent(server):
    server.translator.required_token = "s3cret"
    with TranslatorClient(server.address, token="s3cret") as client:
        assert client.translate("a").text == "a"
        assert client.model_info().name == "fake-reverse"
    assert server.translator.metadata[-1]["authorization"] == "Bearer s3cret"
    with TranslatorClient(server.address) as client:
        with pytest.raises(Unauthenticated):
            client.translate("a")
    assert "authorization" not in server.translator.metadata[-1]


def test_early_exit_from_a_stream_cancels_it(server):
    with TranslatorClient(server.address) as client:
        events = client.stream_events("one two three four")
        first = next(events)
        events.close()  # what leaving a for loop early does
        assert first.text == "four"
        assert client.translate("still works").text == "works still"


def test_mutual_tls_needs_both_cert_and_key():
    with pytest.raises(ValueError):
        TranslatorClient("localhost:1", certificate_chain=b"pem")
