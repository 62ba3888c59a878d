"""The server's retry hint: RESOURCE_EXHAUSTED with trailer `grpc-retry-pushback-ms` is retried after
at least that long (spread up to twice it); without the hint it is not retried; a negative or
malformed hint forbids a retry, on any code."""

from __future__ import annotations

import random
from concurrent import futures

import grpc
import pytest

from traductor_client import TranslatorClient, errors
from traductor_client.retry import Deadline, RetryPolicy, next_delay
from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc


@pytest.mark.parametrize(
    "trailers, expected",
    [
        (None, None),
        ((), None),
        ((("other", "1"),), None),
        ((("grpc-retry-pushback-ms", "250"),), 250),
        ((("grpc-retry-pushback-ms", b"0"),), 0),
        ((("grpc-retry-pushback-ms", "-1"),), -1),
        ((("grpc-retry-pushback-ms", "soon"),), -1),
    ],
)
def test_pushback_is_read_from_the_trailers(trailers, expected):
    assert errors.pushback_ms(trailers) == expected


def _error(code: grpc.StatusCode, pushback: int | None) -> errors.TranslatorError:
    error = errors.error_for(code, "x")
    error.pushback_ms = pushback
    return error


def test_next_delay_follows_the_hint():
    policy, rng, forever = RetryPolicy(max_attempts=3, initial_backoff=0.01), random.Random(0), Deadline(None)
    exhausted = _error(grpc.StatusCode.RESOURCE_EXHAUSTED, 250)
    delays = [next_delay(policy, 1, exhausted, forever, rng) for _ in range(200)]
    assert all(0.25 <= d < 0.5 for d in delays) and max(delays) - min(delays) > 0.1  # at least the hint, spread
    assert next_delay(policy, 3, exhausted, forever, rng) is None  # attempts used up
    assert next_delay(policy, 1, exhausted, Deadline(0.2), rng) is None  # the hint does not fit the deadline
    assert next_delay(policy, 1, _error(grpc.StatusCode.RESOURCE_EXHAUSTED, None), forever, rng) is None
    assert next_delay(policy, 1, _error(grpc.StatusCode.RESOURCE_EXHAUSTED, -1), forever, rng) is None
    assert next_delay(policy, 1, _error(grpc.StatusCode.UNAVAILABLE, -1), forever, rng) is None  # "do not retry"
    assert next_delay(policy, 1, _error(grpc.StatusCode.UNAVAILABLE, 1000), forever, rng) >= 1.0  # overrides backoff
    assert next_delay(policy, 1, _error(grpc.StatusCode.INVALID_ARGUMENT, 10), forever, rng) is None


class _Refusing(pb_grpc.TranslatorServicer):
    """Refuses the first `refusals` calls with RESOURCE_EXHAUSTED and `trailers`, then answers."""

    def __init__(self, refusals: int, trailers: tuple):
        self.refusals, self.trailers, self.calls = refusals, trailers, 0

    def Translate(self, request, context):  # noqa: N802  (the gRPC method name)
        self.calls += 1
        if self.calls <= self.refusals:
            context.abort_with_status(_Status(grpc.StatusCode.RESOURCE_EXHAUSTED, "queue full", self.trailers))
        return pb.TranslateResponse(text=request.text[::-1])


class _Status(grpc.Status):
    def __init__(self, code, details, trailing_metadata):
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


@pytest.fixture
def refusing():
    servers = []

    def start(refusals: int, trailers: tuple):
        servicer = _Refusing(refusals, trailers)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        pb_grpc.add_TranslatorServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return servicer, f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(None)


def test_client_retries_resource_exhausted_after_the_hint(refusing):
    servicer, target = refusing(2, (("grpc-retry-pushback-ms", "20"),))
    waits = []
    policy = RetryPolicy(max_attempts=4, on_retry=lambda attempt, error, delay: waits.append((error.code, delay)))
    with TranslatorClient(target, retry=policy) as client:
        assert client.translate("abc", timeout=30).text == "cba"
    assert servicer.calls == 3
    assert [code for code, _ in waits] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
    assert all(0.02 <= delay < 0.04 for _, delay in waits)


@pytest.mark.parametrize("trailers", [(), (("grpc-retry-pushback-ms", "-1"),)])
def test_client_does_not_retry_without_a_hint_or_when_told_not_to(refusing, trailers):
    servicer, target = refusing(1, trailers)
    with TranslatorClient(target, retry=RetryPolicy(max_attempts=4)) as client:
        with pytest.raises(errors.ResourceExhausted):
            client.translate("abc", timeout=30)
    assert servicer.calls == 1


def test_the_hint_is_read_from_sync_and_asyncio_errors():
    trailers = (("grpc-retry-pushback-ms", "250"),)
    aio = grpc.aio.AioRpcError(
        grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.aio.Metadata(), grpc.aio.Metadata(*trailers), details="full"
    )
    typed = errors.from_rpc_error(aio)
    assert isinstance(typed, errors.ResourceExhausted) and typed.pushback_ms == 250

    class SyncError(grpc.RpcError):
        def code(self):
            return grpc.StatusCode.RESOURCE_EXHAUSTED

        def details(self):
            return "full"

        def trailing_metadata(self):
            return trailers

    assert errors.from_rpc_error(SyncError()).pushback_ms == 250
    assert errors.from_rpc_error(grpc.RpcError()).pushback_ms is None  # a bare RpcError has no trailers
