"""Blocking client: ``TranslatorClient``."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Iterator, List, Optional, TypeVar

import grpc

from traductor_client import _base, errors, health
from traductor_client.results import ModelInfo, StreamEvent, StreamToken, Translation, stream_event_from_pb
from traductor_client.retry import Deadline, next_delay
from traductor_client.v1 import translator_pb2, translator_pb2_grpc

T = TypeVar("T")


class TranslatorClient:
    """Blocking client for ``traductor.v1.Translator``.

    Decoding options are keyword arguments named like the ``DecodingOptions`` fields
    (``max_new_tokens``, ``beam_size``, ``temperature``, ...); only those given are sent.
    ``timeout`` (seconds) bounds each call, retries included; the client-wide default applies
    when a call does not give one. Errors raise :class:`traductor_client.errors.TranslatorError`
    subclasses. Use as a context manager, or call :meth:`close`.

    >>> with TranslatorClient("localhost:50051") as client:    # doctest: +SKIP
    ...     client.translate("File not found", beam_size=4).text
    """

    def __init__(self, target: str = _base.DEFAULT_TARGET, **settings: Any) -> None:
        self._settings = _base.ClientSettings(target, **settings)
        self._channel = self._settings.sync_channel()
        self._stub = translator_pb2_grpc.TranslatorStub(self._channel)
        self._health_check = _base.health_check_callable(self._channel)
        self._sleep: Callable[[float], None] = time.sleep

    @property
    def target(self) -> str:
        return self._settings.target

    # -- lifecycle -----------------------------------------------------------------------------
    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "TranslatorClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- plumbing ------------------------------------------------------------------------------
    def _call(self, method: Callable[..., T], request: Any, timeout: Optional[float]) -> T:
        """Run a unary call, retrying per the policy within one overall deadline."""
        deadline = Deadline(self._settings.timeout_for(timeout))
        attempt = 0
        while True:
            attempt += 1
            try:
                return method(request, timeout=deadline.remaining(), metadata=self._settings.metadata)
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                delay = next_delay(self._settings.retry, attempt, error, deadline, self._settings.rng)
                if delay is None:
                    raise error from rpc_error
            self._sleep(delay)

    # -- API -----------------------------------------------------------------------------------
    def translate(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> Translation:
        """Translate one text."""
        request = _base.translate_request(text, request_id, options, format)
        return Translation.from_pb(self._call(self._stub.Translate, request, timeout))

    def translate_batch(
        self,
        texts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> List[Translation]:
        """Translate several texts with the same options; results keep the texts' order."""
        request = _base.batch_request(texts, request_id, options, format)
        response = self._call(self._stub.TranslateBatch, request, timeout)
        return [Translation.from_pb(result) for result in response.results]

    def stream_events(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> Iterator[StreamEvent]:
        """Yield a :class:`StreamToken` per generated token, then one :class:`StreamFinal`.

        The request is checked now (bad options raise here, not at the first ``next``). The
        call is retried (on UNAVAILABLE) only while nothing has been received: once a token has
        been yielded, restarting would repeat it. Leaving the loop early cancels the RPC.
        """
        request = _base.translate_request(text, request_id, options, format)
        return self._stream(request, Deadline(self._settings.timeout_for(timeout)))

    def _stream(self, request: translator_pb2.TranslateRequest, deadline: Deadline) -> Iterator[StreamEvent]:
        with_scores = request.options.return_scores
        attempt = 0
        while True:
            attempt += 1
            received = False
            call = self._stub.TranslateStream(request, timeout=deadline.remaining(), metadata=self._settings.metadata)
            try:
                for message in call:
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
            self._sleep(delay)

    def stream(self, text: str, **kwargs: Any) -> Iterator[str]:
        """Yield the translation's text pieces as they are generated (the final message, with
        usage and timings, is dropped: use :meth:`stream_events` to see it)."""
        for event in self.stream_events(text, **kwargs):
            if isinstance(event, StreamToken) and event.text:
                yield event.text

    def model_info(self, *, timeout: Optional[float] = None) -> ModelInfo:
        response = self._call(self._stub.GetModelInfo, translator_pb2.GetModelInfoRequest(), timeout)
        return ModelInfo.from_pb(response)

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
