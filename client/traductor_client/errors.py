"""Typed errors for the traductor client.

Every failed RPC surfaces as a :class:`TranslatorError` carrying the gRPC status code, so callers
can ``except InvalidArgument`` instead of inspecting ``grpc.RpcError`` objects (whose sync and
asyncio flavours differ). Codes without a dedicated subclass still raise the base class, with
``code`` set, so nothing is lost.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

import grpc

#: The trailer by which a server asks for a retry no sooner than this many milliseconds
#: (gRPC's retry design, A6); a negative or malformed value means "do not retry".
PUSHBACK_TRAILER = "grpc-retry-pushback-ms"


class TranslatorError(Exception):
    """A call to the translation service failed with gRPC status ``code``.

    ``pushback_ms`` is the server's retry hint (trailer ``grpc-retry-pushback-ms``): None when the
    server sent none, -1 when it asked not to retry, else the milliseconds to wait at least."""

    pushback_ms: Optional[int] = None

    def __init__(self, code: grpc.StatusCode, details: str = "") -> None:
        self.code = code
        self.details = details or ""
        super().__init__(f"{self.code_name}: {self.details}" if self.details else self.code_name)

    @property
    def code_name(self) -> str:
        """The status code's canonical name, e.g. ``"INVALID_ARGUMENT"``."""
        return self.code.name


class _FixedCode(TranslatorError):
    """Base for the subclasses whose code is implied by the class itself."""

    CODE: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, details: str = "") -> None:
        super().__init__(self.CODE, details)


class Cancelled(_FixedCode):
    CODE = grpc.StatusCode.CANCELLED


class Unknown(_FixedCode):
    CODE = grpc.StatusCode.UNKNOWN


class InvalidArgument(_FixedCode):
    """The text or a decoding option was rejected; retrying the same request cannot help."""

    CODE = grpc.StatusCode.INVALID_ARGUMENT


class DeadlineExceeded(_FixedCode):
    CODE = grpc.StatusCode.DEADLINE_EXCEEDED


class NotFound(_FixedCode):
    CODE = grpc.StatusCode.NOT_FOUND


class PermissionDenied(_FixedCode):
    CODE = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(_FixedCode):
    """The server's queue is full: back off at the application level."""

    CODE = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPrecondition(_FixedCode):
    CODE = grpc.StatusCode.FAILED_PRECONDITION


class Unimplemented(_FixedCode):
    CODE = grpc.StatusCode.UNIMPLEMENTED


class Internal(_FixedCode):
    CODE = grpc.StatusCode.INTERNAL


class Unavailable(_FixedCode):
    """The server is not reachable, not started yet or draining: the only retried code."""

    CODE = grpc.StatusCode.UNAVAILABLE


class Unauthenticated(_FixedCode):
    """The bearer token is missing or wrong."""

    CODE = grpc.StatusCode.UNAUTHENTICATED


_BY_CODE: Dict[grpc.StatusCode, Type[_FixedCode]] = {
    cls.CODE: cls
    for cls in (
        Cancelled,
        Unknown,
        InvalidArgument,
        DeadlineExceeded,
        NotFound,
        PermissionDenied,
        ResourceExhausted,
        FailedPrecondition,
        Unimplemented,
        Internal,
        Unavailable,
        Unauthenticated,
    )
}


def error_for(code: grpc.StatusCode, details: str = "") -> TranslatorError:
    """The most specific :class:`TranslatorError` for ``code``."""
    cls = _BY_CODE.get(code)
    return cls(details) if cls is not None else TranslatorError(code, details)


def from_rpc_error(error: grpc.RpcError) -> TranslatorError:
    """Convert a sync or asyncio ``grpc.RpcError`` into a typed error.

    Both flavours raised by grpcio implement ``code()`` and ``details()``; the bare base class
    does not, hence the defensive lookups (an RpcError without a code is reported as UNKNOWN).
    """
    code_fn = getattr(error, "code", None)
    details_fn = getattr(error, "details", None)
    code = code_fn() if callable(code_fn) else None
    details = details_fn() if callable(details_fn) else None
    typed = error_for(code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN, details or "")
    trailers_fn = getattr(error, "trailing_metadata", None)
    typed.pushback_ms = pushback_ms(trailers_fn() if callable(trailers_fn) else None)
    return typed


def pushback_ms(trailers: Any) -> Optional[int]:
    """The ``grpc-retry-pushback-ms`` value in trailing metadata: None if absent, -1 if it is
    negative or not an integer (the server asks not to retry), else the milliseconds."""
    for key, value in trailers or ():
        if key == PUSHBACK_TRAILER:
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
            return int(text) if text.strip().isdigit() else -1
    return None
