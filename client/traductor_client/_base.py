"""What the sync and asyncio clients share: connection settings, channel construction, call
metadata, the retry decisions (:class:`Attempts`) and the methods themselves (:class:`ClientBase`);
the request messages they send are built by :mod:`traductor_client.messages`. Keeping it here
means the two clients differ only in how they wait (blocking vs ``await``): each gives
``_unary`` and ``_stream`` (plus closing, ``stream`` and ``health``), never what they send.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple

import grpc

from traductor_client import errors, health
from traductor_client.messages import STREAM_DELAY_MS, batch_request, translate_request
from traductor_client.results import ModelInfo, Translation
from traductor_client.retry import Deadline, RetryPolicy, next_delay
from traductor_client.v1 import translator_pb2, translator_pb2_grpc

__version__ = "0.1.0"

DEFAULT_TARGET = "localhost:50051"
DEFAULT_TIMEOUT = 30.0

ChannelOptions = Sequence[Tuple[str, Any]]


class ClientSettings:
    """Validated connection settings, shared by both clients.

    TLS is used when ``tls`` is true or any certificate is given. ``root_certificates`` (PEM
    bytes) replaces the system roots, e.g. for a private CA; ``certificate_chain`` and
    ``private_key`` (PEM bytes, both or neither) enable mutual TLS. ``token`` is sent as
    ``authorization: Bearer <token>`` on every call.
    """

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        certificate_chain: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        server_name: Optional[str] = None,
        token: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        retry: Optional[RetryPolicy] = None,
        channel_options: Optional[ChannelOptions] = None,
    ) -> None:
        if (certificate_chain is None) != (private_key is None):
            raise ValueError("mutual TLS needs both certificate_chain and private_key")
        if timeout is not None and timeout <= 0:
            raise ValueError("timeout must be positive (or None for no deadline)")
        self.target = target
        self.tls = bool(tls or root_certificates or certificate_chain)
        self.root_certificates = root_certificates
        self.certificate_chain = certificate_chain
        self.private_key = private_key
        self.server_name = server_name
        self.token = token
        self.timeout = timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self.channel_options: List[Tuple[str, Any]] = [("grpc.primary_user_agent", f"traductor-client/{__version__}")]
        if server_name:
            self.channel_options.append(("grpc.ssl_target_name_override", server_name))
        self.channel_options.extend(channel_options or ())
        self.metadata: Tuple[Tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        self.rng = random.Random()  # jitter source; seeded by the OS, one per client

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.root_certificates,
            private_key=self.private_key,
            certificate_chain=self.certificate_chain,
        )

    def sync_channel(self) -> grpc.Channel:
        if self.tls:
            return grpc.secure_channel(self.target, self.credentials(), self.channel_options)
        return grpc.insecure_channel(self.target, self.channel_options)

    def aio_channel(self) -> grpc.aio.Channel:
        if self.tls:
            return grpc.aio.secure_channel(self.target, self.credentials(), self.channel_options)
        return grpc.aio.insecure_channel(self.target, self.channel_options)

    def timeout_for(self, timeout: Optional[float]) -> Optional[float]:
        """A per-call timeout overrides the client's; None means "the client's default"."""
        return self.timeout if timeout is None else timeout


def health_check_callable(channel: Any) -> Any:
    """A generic unary-unary callable for Health/Check (see :mod:`traductor_client.health`)."""
    return channel.unary_unary(
        health.CHECK_METHOD,
        request_serializer=health.encode_check_request,
        response_deserializer=health.decode_check_response,
    )


class Attempts:
    """The retries of one call: its overall deadline, the attempt count, and after a failure
    either the delay before the next attempt or the error to raise. Both clients drive it; they
    differ only in how they sleep."""

    def __init__(self, settings: ClientSettings, timeout: Optional[float]) -> None:
        self.settings, self.attempt = settings, 0
        self.deadline = Deadline(settings.timeout_for(timeout))

    def start(self) -> Optional[float]:
        """Count an attempt; the time it may take (None: no deadline)."""
        self.attempt += 1
        return self.deadline.remaining()

    def delay_after(self, rpc_error: grpc.RpcError, received: bool = False) -> float:
        """The delay before retrying after ``rpc_error``; raises the client error instead when
        the policy says no, or when a stream already received messages (a retry would repeat them)."""
        error = errors.from_rpc_error(rpc_error)
        s = self.settings
        delay = None if received else next_delay(s.retry, self.attempt, error, self.deadline, s.rng)
        if delay is None:
            raise error from rpc_error
        return delay


class ClientBase:
    """The methods of both clients. ``TranslatorClient`` blocks in ``_unary``/``_stream``;
    ``AsyncTranslatorClient``'s are coroutines and async generators, so there the same methods
    return awaitables. Decoding options are keyword arguments named like the ``DecodingOptions``
    fields (``max_new_tokens``, ``beam_size``, ...); only those given are sent. ``timeout``
    (seconds) bounds each call, retries included."""

    def __init__(self, target: str = DEFAULT_TARGET, **settings: Any) -> None:
        self._settings = ClientSettings(target, **settings)
        self._channel = self._open_channel(self._settings)
        self._stub = translator_pb2_grpc.TranslatorStub(self._channel)
        self._health_check = health_check_callable(self._channel)

    def _open_channel(self, settings: ClientSettings) -> Any:
        raise NotImplementedError

    def _unary(self, method: Any, request: Any, timeout: Optional[float], convert: Callable[[Any], Any]) -> Any:
        raise NotImplementedError

    def _stream(self, request: translator_pb2.TranslateRequest, attempts: Attempts) -> Any:
        raise NotImplementedError

    @property
    def target(self) -> str:
        return self._settings.target

    def translate(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> Any:
        """Translate one text (``format="html"``: tags kept): a :class:`Translation`.
        ``formality`` (one of :data:`traductor_client.messages.FORMALITIES`) asks for a register,
        on the models that have one (``ModelInfo.formality``)."""
        request = translate_request(text, request_id, options, format)
        return self._unary(self._stub.Translate, request, timeout, Translation.from_pb)

    def translate_batch(
        self,
        texts: Iterable[str],
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        **options: Any,
    ) -> Any:
        """Translate several texts with the same options: a list of :class:`Translation` in order."""
        request = batch_request(texts, request_id, options, format)
        return self._unary(self._stub.TranslateBatch, request, timeout, _translations)

    def stream_events(
        self,
        text: str,
        *,
        timeout: Optional[float] = None,
        request_id: Optional[str] = None,
        format: str = "text",
        group_tokens: bool = True,
        max_delay_ms: int = STREAM_DELAY_MS,
        **options: Any,
    ) -> Any:
        """A ``StreamToken`` per generated token, then one ``StreamFinal``. The request is checked
        now (bad options raise here, not at the first event). The call is retried (on
        UNAVAILABLE) only while nothing has been received; leaving the loop early cancels it.

        The server is asked to send the tokens generated since its previous message in one
        message (``group_tokens``; fewer messages cost both ends less CPU), each message but the
        first held up to ``max_delay_ms`` for the tokens that follow; they are handed out one
        event a token all the same, as soon as they arrive. ``max_delay_ms=0``: no token waits;
        ``group_tokens=False``: one message a token."""
        request = translate_request(text, request_id, options, format)
        request.stream.group_tokens = group_tokens
        request.stream.max_delay_ms = max_delay_ms if group_tokens else 0
        return self._stream(request, Attempts(self._settings, timeout))

    def model_info(self, model: str = "", *, timeout: Optional[float] = None) -> Any:
        """The model named (default: the server's default model): its languages, shape, the
        server's limits and version, a :class:`ModelInfo`; NotFound if it is not served."""
        request = translator_pb2.GetModelInfoRequest(model=model)
        return self._unary(self._stub.GetModelInfo, request, timeout, ModelInfo.from_pb)

    def list_models(self, *, timeout: Optional[float] = None) -> Any:
        """Every model the server serves, by name: a list of :class:`ModelInfo` (``is_default``
        marks the default one)."""
        request = translator_pb2.ListModelsRequest()
        return self._unary(self._stub.ListModels, request, timeout, _models)


def _models(response: translator_pb2.ListModelsResponse) -> List[ModelInfo]:
    return [ModelInfo.from_pb(m) for m in response.models]


def _translations(response: translator_pb2.TranslateBatchResponse) -> List[Translation]:
    return [Translation.from_pb(result) for result in response.results]
