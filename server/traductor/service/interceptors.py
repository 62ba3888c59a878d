"""Two interceptors: one maps every error to a status a caller can act on (and records the
request's metrics and log line); one checks the bearer token."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time

import grpc

from ..errors import DeadlinePassed, Draining, InvalidInput, QueueFull, Unauthenticated
from .async_engine import request_summary
from .metrics import Metrics

log = logging.getLogger("traductor.requests")
SERVICE_PREFIX = "/traductor.v1.Translator/"


MALFORMED = object()  # the request the handler gets when its bytes are not a valid message


def _tolerant(deserializer):
    """grpcio answers a message it cannot parse with UNKNOWN and the parser's exception text;
    parse here instead and let the handler refuse it with INVALID_ARGUMENT."""
    if deserializer is None:
        return None

    def parse(data: bytes):
        try:
            return deserializer(data)
        except Exception:
            return MALFORMED

    return parse


def status_for(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The one place where exceptions become gRPC statuses."""
    if isinstance(exc, InvalidInput):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    if isinstance(exc, QueueFull):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, f"{exc}; retry later"
    if isinstance(exc, Draining):
        return grpc.StatusCode.UNAVAILABLE, str(exc)
    if isinstance(exc, DeadlinePassed):
        return grpc.StatusCode.DEADLINE_EXCEEDED, str(exc)
    if isinstance(exc, Unauthenticated):
        return grpc.StatusCode.UNAUTHENTICATED, str(exc)
    return grpc.StatusCode.INTERNAL, "internal error"  # details go to the log, never to the caller


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, metrics: Metrics):
        self.metrics = metrics

    async def intercept_service(self, continuation, details):
        handler = await continuation(details)
        method = details.method
        if handler is None or not method.startswith(SERVICE_PREFIX):
            return handler
        rpc = method[len(SERVICE_PREFIX) :]
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(rpc, handler.unary_unary),
                _tolerant(handler.request_deserializer),
                handler.response_serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                self._stream(rpc, handler.unary_stream),
                _tolerant(handler.request_deserializer),
                handler.response_serializer,
            )
        return handler

    def _unary(self, rpc, behaviour):
        async def wrapper(request, context):
            start, code, error = time.monotonic(), grpc.StatusCode.OK, None
            request_summary.set({})
            try:
                _check_parsed(request)
                return await behaviour(request, context)
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except Exception as e:
                code, error = self._fail(e, rpc, request)
                await context.abort(code, error)
            finally:
                self._record(rpc, request, code, start)

        return wrapper

    def _stream(self, rpc, behaviour):
        async def wrapper(request, context):
            start, code, error = time.monotonic(), grpc.StatusCode.OK, None
            request_summary.set({})
            try:
                _check_parsed(request)
                async for message in behaviour(request, context):
                    yield message
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except Exception as e:
                code, error = self._fail(e, rpc, request)
                await context.abort(code, error)
            finally:
                self._record(rpc, request, code, start)

        return wrapper

    def _fail(self, exc: Exception, rpc: str, request) -> tuple[grpc.StatusCode, str]:
        code, message = status_for(exc)
        if code is grpc.StatusCode.INTERNAL:
            log.error("rpc=%s request_id=%s failed", rpc, getattr(request, "request_id", ""), exc_info=exc)
        return code, message

    def _record(self, rpc: str, request, code: grpc.StatusCode, start: float) -> None:
        elapsed = time.monotonic() - start
        self.metrics.record_request("grpc", rpc, code.name, elapsed)
        line = {
            "protocol": "grpc",
            "rpc": rpc,
            "request_id": getattr(request, "request_id", ""),
            "code": code.name,
            "total_ms": round(elapsed * 1000, 2),
            **(request_summary.get() or {}),
        }
        log.info(json.dumps(line))


def _check_parsed(request) -> None:
    if request is MALFORMED:
        raise InvalidInput("the request is not a valid protobuf message (corrupt bytes or invalid UTF-8)")


class AuthInterceptor(grpc.aio.ServerInterceptor):
    """Translator calls need `authorization: Bearer <token>`; health and reflection stay open."""

    def __init__(self, token: str):
        self.expected = f"Bearer {token}".encode()

    async def intercept_service(self, continuation, details):
        handler = await continuation(details)
        if handler is None or not details.method.startswith(SERVICE_PREFIX):
            return handler
        given = dict(details.invocation_metadata or ()).get("authorization", "")
        if hmac.compare_digest(given.encode(), self.expected):
            return handler
        return _refuse(handler)


def _refuse(handler):
    async def unary(request, context):
        raise Unauthenticated("missing or invalid bearer token")

    async def stream(request, context):
        raise Unauthenticated("missing or invalid bearer token")
        yield  # makes this an async generator

    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(stream, handler.request_deserializer, handler.response_serializer)
    return grpc.unary_unary_rpc_method_handler(unary, handler.request_deserializer, handler.response_serializer)
