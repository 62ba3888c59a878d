"""AsyncTranslatorClient against the in-process fake server (each test runs its own loop)."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from client_fake_server import FAST_RECONNECT, FakeServer, unused_port
from grpc_health.v1 import health_pb2

from traductor_client import (
    AsyncTranslatorClient,
    DeadlineExceeded,
    InvalidArgument,
    RetryPolicy,
    StreamFinal,
    Unauthenticated,
    Unavailable,
)

FAST_RETRY = dict(max_attempts=30, initial_backoff=0.01, max_backoff=0.05)


def run(coro):
    return asyncio.run(coro)


def test_translate_batch_stream_info_health(server):
    async def scenario():
        async with AsyncTranslatorClient(server.address) as client:
            one = await client.translate("hello there", max_new_tokens=1)
            batch = await client.translate_batch(["a b", "c"])
            deltas = [d async for d in client.stream("x y z")]
            events = [e async for e in client.stream_events("x y z")]
            info = await client.model_info()
            status = await client.health()
            server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
            return one, batch, deltas, events, info, status, await client.health()

    one, batch, deltas, events, info, status, status_after = run(scenario())
    assert (one.text, one.finish_reason) == ("there", "length")
    assert [r.text for r in batch] == ["b a", "c"]
    assert deltas == ["z", " y", " x"]
    assert isinstance(events[-1], StreamFinal) and events[-1].num_tokens == 3
    assert info.name == "fake-reverse"
    assert (status, status_after) == ("SERVING", "NOT_SERVING")
    assert server.translator.options[0].max_new_tokens == 1


def test_invalid_argument_not_retried(server):
    retries = []

    async def scenario():
        policy = RetryPolicy(on_retry=lambda *a: retries.append(a), **FAST_RETRY)
        async with AsyncTranslatorClient(server.address, retry=policy) as client:
            with pytest.raises(InvalidArgument) as caught:
                await client.translate("   ")
            with pytest.raises(TypeError):
                await client.translate("x", beams=2)
            return caught.value

    error = run(scenario())
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT
    assert server.translator.calls["Translate"] == 1 and retries == []


def test_unavailable_retried_and_stream_rules(server):
    async def scenario():
        async with AsyncTranslatorClient(server.address, retry=RetryPolicy(**FAST_RETRY)) as client:
            server.translator.fail_next = [grpc.StatusCode.UNAVAILABLE] * 2
            text = (await client.translate("p q")).text
            server.translator.fail_next = [grpc.StatusCode.UNAVAILABLE]
            deltas = [d async for d in client.stream("p q")]
            received = []
            with pytest.raises(Unavailable):
                async for d in client.stream("!break"):
                    received.append(d)
            return text, deltas, received

    text, deltas, received = run(scenario())
    assert (text, deltas, received) == ("q p", ["q", " p"], ["first"])
    assert server.translator.calls["Translate"] == 3
    assert server.translator.calls["TranslateStream"] == 3  # 2 for "p q", 1 for "!break"


def test_retry_reaches_a_server_started_late():
    port = unused_port()
    started = []

    def start_server(attempt, error, delay):
        if not started:
            started.append(FakeServer(port))

    async def scenario():
        policy = RetryPolicy(on_retry=start_server, **FAST_RETRY)
        async with AsyncTranslatorClient(
            f"127.0.0.1:{port}", retry=policy, timeout=10, channel_options=FAST_RECONNECT
        ) as client:
            return (await client.translate("came late")).text

    try:
        assert run(scenario()) == "late came"
        assert started[0].translator.calls["Translate"] == 1
    finally:
        for fake in started:
            fake.stop()


def test_deadline_and_token(server):
    server.translator.required_token = "tok"

    async def scenario():
        async with AsyncTranslatorClient(server.address, token="tok") as client:
            with pytest.raises(DeadlineExceeded):
                await client.translate("!block", timeout=0.2)
            with pytest.raises(DeadlineExceeded):
                [d async for d in client.stream("!block", timeout=0.2)]
        async with AsyncTranslatorClient(server.address) as anonymous:
            with pytest.raises(Unauthenticated):
                await anonymous.translate("a")

    try:
        run(scenario())
    finally:
        server.translator.release.set()
    assert server.translator.blocked.is_set()
    assert server.translator.metadata[0]["authorization"] == "Bearer tok"
