"""Blocking client: ``TranslatorClient`` (its methods are ``_base.ClientBase``'s; here is how it
waits: blocking calls and ``time.sleep`` between retries)."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator, Optional

import grpc

from traductor_client import _base, errors, health
from traductor_client.results import StreamEvent, stream_events_from_pb
from traductor_client.v1 import translator_pb2


class TranslatorClient(_base.ClientBase):
    """Blocking client for ``traductor.v1.Translator``.

    Methods: ``translate``, ``translate_batch``, ``stream_events``, ``stream``, ``model_info``,
    ``health``. Errors raise :class:`traductor_client.errors.TranslatorError` subclasses. Use as a
    context manager, or call :meth:`close`.

    >>> with TranslatorClient("localhost:50051") as client:    # doctest: +SKIP
    ...     client.translate("File not found", beam_size=4).text
    """

    def __init__(self, target: str = _base.DEFAULT_TARGET, **settings: Any) -> None:
        super().__init__(target, **settings)
        self._sleep: Callable[[float], None] = time.sleep

    def _open_channel(self, settings: _base.ClientSettings) -> grpc.Channel:
        return settings.sync_channel()

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "TranslatorClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def _unary(self, method: Any, request: Any, timeout: Optional[float], convert: Callable[[Any], Any]) -> Any:
        """Run a unary call, retrying per the policy within one overall deadline."""
        attempts = _base.Attempts(self._settings, timeout)
        while True:
            try:
                return convert(method(request, timeout=attempts.start(), metadata=self._settings.metadata))
            except grpc.RpcError as rpc_error:
                delay = attempts.delay_after(rpc_error)
            self._sleep(delay)

    def _stream(self, request: translator_pb2.TranslateRequest, attempts: _base.Attempts) -> Iterator[StreamEvent]:
        with_scores = request.options.return_scores
        while True:
            received = False
            call = self._stub.TranslateStream(request, timeout=attempts.start(), metadata=self._settings.metadata)
            try:
                for message in call:
                    received = True
                    for event in stream_events_from_pb(message, with_scores):
                        yield event
                return
            except grpc.RpcError as rpc_error:
                delay = attempts.delay_after(rpc_error, received)
            finally:
                call.cancel()  # no-op once finished; stops the server's work on early exit
            self._sleep(delay)

    def stream(self, text: str, **kwargs: Any) -> Iterator[str]:
        """Yield the translation's text pieces as they are generated; joined, they are the whole
        translation (the final message's usage and timings are dropped: use :meth:`stream_events`)."""
        for event in self.stream_events(text, **kwargs):
            if event.text:  # the final message's too (text kept as it is, from the memory, the end)
                yield event.text

    def health(self, service: str = "", *, timeout: Optional[float] = None) -> str:
        """The serving status ("SERVING", "NOT_SERVING", ...) of ``service`` ("" = the whole
        server). Not retried: a probe must report the state now, not wait for it to improve."""
        try:
            status = self._health_check(
                service, timeout=self._settings.timeout_for(timeout), metadata=self._settings.metadata
            )
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
        return health.status_name(status)
