"""asyncio client: ``AsyncTranslatorClient``, the same methods as the blocking one
(``_base.ClientBase``) with ``await``: here is how it waits (grpc.aio calls, ``asyncio.sleep``)."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Awaitable, Callable, Optional

import grpc

from traductor_client import _base, errors, health
from traductor_client.results import StreamEvent, stream_events_from_pb
from traductor_client.v1 import translator_pb2


class AsyncTranslatorClient(_base.ClientBase):
    """asyncio client for ``traductor.v1.Translator``; see :class:`TranslatorClient` for the
    meaning of options, timeouts, retries and errors.

    Create it inside a running event loop (grpc.aio channels bind to the loop they are made
    in) and close it with ``await client.close()`` or ``async with``. ``translate``,
    ``translate_batch`` and ``model_info`` are awaited; ``stream`` and ``stream_events`` are async
    generators: when leaving one early, close it (e.g. with ``contextlib.aclosing``) so the RPC
    is cancelled promptly.
    """

    def __init__(self, target: str = _base.DEFAULT_TARGET, **settings: Any) -> None:
        super().__init__(target, **settings)
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def _open_channel(self, settings: _base.ClientSettings) -> grpc.aio.Channel:
        return settings.aio_channel()

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncTranslatorClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    async def _unary(self, method: Any, request: Any, timeout: Optional[float], convert: Callable[[Any], Any]) -> Any:
        attempts = _base.Attempts(self._settings, timeout)
        while True:
            try:
                return convert(await method(request, timeout=attempts.start(), metadata=self._settings.metadata))
            except grpc.RpcError as rpc_error:  # grpc.aio.AioRpcError is an RpcError
                delay = attempts.delay_after(rpc_error)
            await self._sleep(delay)

    async def _stream(
        self, request: translator_pb2.TranslateRequest, attempts: _base.Attempts
    ) -> AsyncIterator[StreamEvent]:
        with_scores = request.options.return_scores
        while True:
            received = False
            call = self._stub.TranslateStream(request, timeout=attempts.start(), metadata=self._settings.metadata)
            try:
                async for message in call:
                    received = True
                    for event in stream_events_from_pb(message, with_scores):
                        yield event
                return
            except grpc.RpcError as rpc_error:
                delay = attempts.delay_after(rpc_error, received)
            finally:
                call.cancel()  # no-op once finished; stops the server's work on early exit
            await self._sleep(delay)

    async def stream(self, text: str, **kwargs: Any) -> AsyncIterator[str]:
        """The translation's text pieces as they are generated; joined, they are the whole translation."""
        events = self.stream_events(text, **kwargs)
        try:
            async for event in events:
                if event.text:  # the final message's too (text kept as it is, from the memory, the end)
                    yield event.text
        finally:
            await events.aclose()

    async def health(self, service: str = "", *, timeout: Optional[float] = None) -> str:
        """Serving status of ``service`` ("" = whole server); not retried (it is a probe)."""
        try:
            status = await self._health_check(
                service, timeout=self._settings.timeout_for(timeout), metadata=self._settings.metadata
            )
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
        return health.status_name(status)
