"""What the sync and asyncio clients share: connection settings, channel construction,
call metadata and request building. Keeping it here means the two clients differ only in
how they wait (blocking vs ``await``), never in what they send.
"""

from __future__ import annotations

import random
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import grpc

from traductor_client import health
from traductor_client import options as options_mod
from traductor_client.retry import RetryPolicy
from traductor_client.v1 import translator_pb2

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


FORMATS = {"text": translator_pb2.FORMAT_TEXT, "html": translator_pb2.FORMAT_HTML}


def _format(name: str) -> int:
    if name not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {name!r}")
    return FORMATS[name]


def translate_request(
    text: str, request_id: Optional[str], options: Dict[str, Any], format: str = "text"
) -> translator_pb2.TranslateRequest:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return translator_pb2.TranslateRequest(
        text=text, options=options_mod.to_pb(options), request_id=request_id or "", format=_format(format)
    )


def batch_request(
    texts: Iterable[str], request_id: Optional[str], options: Dict[str, Any], format: str = "text"
) -> translator_pb2.TranslateBatchRequest:
    if isinstance(texts, str):  # a str is iterable too, but means a caller mistake here
        raise TypeError("texts must be an iterable of str, not a single str")
    texts = list(texts)
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must all be str")
    return translator_pb2.TranslateBatchRequest(
        texts=texts, options=options_mod.to_pb(options), request_id=request_id or "", format=_format(format)
    )
