"""asyncio client: ``AsyncTranslatorClient``, the same API as the blocking one with ``await``."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, List, Optional, TypeVar

import grpc

from traductor_client import _base, errors, health
from traductor_client.results import ModelInfo, StreamEvent, StreamToken, Translation, stream_event_from_pb
from traductor_client.retry import Deadline, next_delay
from traductor_client.v1 import translator_pb2, translator_pb2_grpc

T = TypeVar("T")


class AsyncTranslatorClient:
    """asyncio client for ``traductor.v1.Translator``; see :class:`TranslatorClient` for the
    meaning of options, timeouts, retries and errors.

    Create it inside a running event loop (grpc.aio channels bind to the loop they are made
    in) and close it with ``await client.close()`` or ``async with``. ``stream`` and
    ``stream_events`` are async generators: when leaving one early, close it (e.g. with
    ``contextlib.aclosing``) so the RPC is cancelled promptly.
    """

    def __init__(self, target: str = _base.DEFAULT_TARGET, **settings: Any) -> None:
        self._settings = _base.ClientSettings(target, **settings)
        self._channel = self._settings.aio_channel()
        self._stub = translator_pb2_grpc.TranslatorStub(self._channel)
        self._health_check = _base.health_check_callable(self._channel)
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    @property
    def target(self) -> str:
        return self._settings.target

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncTranslatorClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def _call(self, method: Callable[..., Awaitable[T]], request: Any, timeout: Optional[float]) -> T:
        deadline = Deadline(self._settings.timeout_for(timeout))
        attempt = 0
        while True:
            attempt += 1
            try:
                return await method(request, timeout=deadline.remaining(), metadata=self._settings.metadata)
            except grpc.RpcError as rpc_error:  # grpc.aio.AioRpcError is an RpcError
                error = errors.from_rpc_error(rpc_error)
                delay = next_delay(self._settings.retry, attempt, error, deadline, self._settings.rng)
                if delay is None:
                    raise error from rpc_error
            await self._sleep(delay)

    async def translate(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> Translation:
        request = _base.translate_request(text, request_id, options, format)
        return Translation.from_pb(await self._call(self._stub.Translate, request, timeout))

    async def translate_batch(
        self,
        texts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> List[Translation]:
        request = _base.batch_request(texts, request_id, options, format)
        response = await self._call(self._stub.TranslateBatch, request, timeout)
        return [Translation.from_pb(result) for result in response.results]

    def stream_events(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> AsyncIterator[StreamEvent]:
        """``async for`` over :class:`StreamToken` events then one :class:`StreamFinal`.

        A plain method returning an async generator, so that bad options raise at the call.
        """
        request = _base.translate_request(text, request_id, options, format)
        return self._stream(request, Deadline(self._settings.timeout_for(timeout)))

    async def _stream(self, request: translator_pb2.TranslateRequest, deadline: Deadline) -> AsyncIterator[StreamEvent]:
        with_scores = request.options.return_scores
        attempt = 0
        while True:
            attempt += 1
            received = False
            call = self._stub.TranslateStream(request, timeout=deadline.remaining(), metadata=self._settings.metadata)
            try:
                async for message in call:
                    received = True
                    yield stream_event_from_pb(message, with_scores)
                return
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                delay = (
                    None if received else next_delay(self._settings.retry, attempt, error, deadline, self._settings.rng)
                )
                if delay is None:
                    raise error from rpc_error
            finally:
                call.cancel()  # no-op once finished; stops the server's work on early exit
            await self._sleep(delay)

    async def stream(self, text: str, **kwargs: Any) -> AsyncIterator[str]:
        """The translation's text pieces as they are generated."""
        events = self.stream_events(text, **kwargs)
        try:
            async for event in events:
                if isinstance(event, StreamToken) and event.text:
                    yield event.text
        finally:
            await events.aclose()

    async def model_info(self, *, timeout: Optional[float] = None) -> ModelInfo:
        response = await self._call(self._stub.GetModelInfo, translator_pb2.GetModelInfoRequest(), timeout)
        return ModelInfo.from_pb(response)

    async def health(self, service: str = "", *, timeout: Optional[float] = None) -> str:
        """Serving status of ``service`` ("" = whole server); not retried (it is a probe)."""
        try:
            status = await self._health_check(
                service, timeout=self._settings.timeout_for(timeout), metadata=self._settings.metadata
            )
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
        return health.status_name(status)
