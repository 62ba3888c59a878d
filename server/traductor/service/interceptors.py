"""The interceptor that maps every error to a status a caller can act on (and records the
request's metrics and log line, and sheds load: service/overload.py). Keys are checked by the
servicer, through the gate every interface shares (service/keys/gate.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import grpc
from grpc._cython.cygrpc import ExecuteBatchError  # what a status sent to a call already ended raises

from ..errors import (
    DeadlinePassed,
    Draining,
    EngineDown,
    InvalidInput,
    KeyStoreDown,
    NotFound,
    Overloaded,
    PermissionDenied,
    QueueFull,
    RateLimited,
    Unauthenticated,
)
from .async_engine import request_summary
from .metrics import Metrics
from .overload import ENGINE_RPCS, Admission

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
    if isinstance(exc, EngineDown):  # the model's engine is restarted: a retry (here or elsewhere) can succeed
        return grpc.StatusCode.UNAVAILABLE, "the translation engine stopped; retry"
    if isinstance(exc, DeadlinePassed):
        return grpc.StatusCode.DEADLINE_EXCEEDED, str(exc)
    if isinstance(exc, Unauthenticated):
        return grpc.StatusCode.UNAUTHENTICATED, str(exc)
    if isinstance(exc, PermissionDenied):
        return grpc.StatusCode.PERMISSION_DENIED, str(exc)
    if isinstance(exc, RateLimited):  # and QuotaExceeded: the key's own limits (service/keys)
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc)
    if isinstance(exc, KeyStoreDown):  # fail closed; the store's address, never a password, in the message
        return grpc.StatusCode.UNAVAILABLE, f"{exc}; calls that need a key are refused until it answers"
    if isinstance(exc, NotFound):
        return grpc.StatusCode.NOT_FOUND, str(exc)
    return grpc.StatusCode.INTERNAL, "internal error"  # details go to the log, never to the caller


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Maps errors to statuses, records each call (metrics, one log line) and sheds load
    (service/overload.py) when given an `Admission`."""

    def __init__(self, metrics: Metrics, admission: Admission | None = None):
        self.metrics, self.admission = metrics, admission

    async def intercept_service(self, continuation, details):
        handler = await continuation(details)
        method = details.method
        if handler is None or not method.startswith(SERVICE_PREFIX):
            return handler
        rpc = method[len(SERVICE_PREFIX) :]
        shed = self.admission is not None and rpc in ENGINE_RPCS
        reason = self.admission.refusal() if shed else None
        if reason is not None:  # refused before the request is even parsed
            return _shed_handler(self, rpc, handler, reason)
        deserializer = _tolerant(handler.request_deserializer)
        if handler.unary_unary:
            behaviour = self._unary(rpc, handler.unary_unary, admit=shed)
            return grpc.unary_unary_rpc_method_handler(behaviour, deserializer, handler.response_serializer)
        if handler.unary_stream:
            behaviour = self._stream(rpc, handler.unary_stream, admit=shed)
            return grpc.unary_stream_rpc_method_handler(behaviour, deserializer, handler.response_serializer)
        return handler

    def _unary(self, rpc, behaviour, admit: bool = False):
        async def wrapper(request, context):
            start, code, admitted = time.monotonic(), grpc.StatusCode.OK, False
            request_summary.set({})
            try:
                _check_parsed(request)
                if admit:
                    self.admission.check("handler")  # before the text is tokenized
                    self.admission.calls, admitted = self.admission.calls + 1, True
                response = await behaviour(request, context)
                if _deadline_passed(context):  # the caller has stopped waiting: leave the call to gRPC
                    raise asyncio.CancelledError
                return response
            except asyncio.CancelledError:
                code = _cancelled_code(context)
                raise
            except Exception as e:
                code, message, trailers = self._fail(e, rpc, request)
                await _abort(context, code, message, trailers, rpc, request)
            finally:
                if admitted:
                    self.admission.calls -= 1
                self._record(rpc, request, code, start)

        return wrapper

    def _stream(self, rpc, behaviour, admit: bool = False):
        async def wrapper(request, context):
            start, code, admitted = time.monotonic(), grpc.StatusCode.OK, False
            request_summary.set({})
            try:
                _check_parsed(request)
                if admit:
                    self.admission.check("handler")
                    self.admission.calls, admitted = self.admission.calls + 1, True
                async for message in behaviour(request, context):
                    yield message
                if _deadline_passed(context):  # as for unary calls: no final status to a call gRPC ends
                    raise asyncio.CancelledError
            except asyncio.CancelledError:
                code = _cancelled_code(context)
                raise
            except Exception as e:
                code, message, trailers = self._fail(e, rpc, request)
                await _abort(context, code, message, trailers, rpc, request)
            finally:
                if admitted:
                    self.admission.calls -= 1
                self._record(rpc, request, code, start)

        return wrapper

    def _fail(self, exc: Exception, rpc: str, request) -> tuple[grpc.StatusCode, str, tuple]:
        """The status, message and trailers for `exc`; logs faults, counts shed calls."""
        code, message = status_for(exc)
        trailers = ()
        if code is grpc.StatusCode.INTERNAL:
            log.error("rpc=%s request_id=%s failed", rpc, getattr(request, "request_id", ""), exc_info=exc)
        if isinstance(exc, RateLimited):  # when the key may call again, as overload's retry hint
            trailers = (("grpc-retry-pushback-ms", str(int(exc.retry_after * 1000))),)
        if isinstance(exc, QueueFull):
            model = (request_summary.get() or {}).get("model", "")
            self.metrics.record_shed("grpc", rpc, getattr(exc, "stage", "queue"), model)
            if self.admission is not None:
                trailers = self.admission.trailers()
        return code, message, trailers

    def _record(self, rpc: str, request, code: grpc.StatusCode, start: float) -> None:
        elapsed = time.monotonic() - start
        self.metrics.record_request("grpc", rpc, code.name, elapsed, (request_summary.get() or {}).get("model", ""))
        if not log.isEnabledFor(logging.INFO):  # the line is not built for nobody (--log-level WARNING)
            return
        line = {
            "protocol": "grpc",
            "rpc": rpc,
            "request_id": getattr(request, "request_id", ""),
            "code": code.name,
            "total_ms": round(elapsed * 1000, 2),
            **(request_summary.get() or {}),
        }
        log.info(json.dumps(line))


async def _abort(context, code: grpc.StatusCode, message: str, trailers: tuple, rpc: str, request) -> None:
    """Send the status (raises, as `context.abort` does), unless gRPC has ended or is ending the call.

    The race: the engine retires a call at its deadline while gRPC core expires the same call.
    A status sent then can fail inside grpcio (ExecuteBatchError, logged at ERROR with a traceback).
    So a deadline that has passed is left to gRPC, which answers DEADLINE_EXCEEDED itself, and a
    status that still meets a call ended in core is dropped with an INFO line."""
    if code is grpc.StatusCode.DEADLINE_EXCEEDED and _deadline_passed(context):
        raise asyncio.CancelledError
    try:
        await context.abort(code, message, trailers)
    except ExecuteBatchError:
        rid = getattr(request, "request_id", "")
        log.info("rpc=%s request_id=%s: the call ended in gRPC before its status %s was sent", rpc, rid, code.name)
        raise asyncio.CancelledError from None


class EndedCallFilter(logging.Filter):
    """Turns grpcio's ERROR traceback for an answer sent to a call that gRPC core had already ended
    into one INFO line.

    The sliver of the deadline race the interceptor cannot close: the answer is ready a moment
    before the deadline, and core expires the call while grpcio sends it. grpcio then logs the
    failed batch (`ExecuteBatchError`) with a traceback, unless it had already seen the call close.
    The caller has its status (DEADLINE_EXCEEDED or its own cancel) and nothing is lost, so this is
    an INFO event. Any other record passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], ExecuteBatchError):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = "a call ended in gRPC core (deadline or cancel) while its answer was sent", ()
            record.exc_info, record.exc_text = None, None
        return True


GRPC_SERVER_LOGGER = "grpc._cython.cygrpc"  # where grpcio's asyncio server logs a handler's errors


def quiet_ended_calls() -> None:
    """Install `EndedCallFilter` on grpcio's server logger (once; called when a server is built)."""
    logger = logging.getLogger(GRPC_SERVER_LOGGER)
    if not any(isinstance(f, EndedCallFilter) for f in logger.filters):
        logger.addFilter(EndedCallFilter())


def _check_parsed(request) -> None:
    if request is MALFORMED:
        raise InvalidInput("the request is not a valid protobuf message (corrupt bytes or invalid UTF-8)")


def _deadline_passed(context) -> bool:
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0


def _cancelled_code(context) -> grpc.StatusCode:
    """What the caller of a call ended under our feet sees: its deadline, or its own cancel."""
    return grpc.StatusCode.DEADLINE_EXCEEDED if _deadline_passed(context) else grpc.StatusCode.CANCELLED


def _shed_handler(interceptor: ErrorInterceptor, rpc: str, handler, reason: str):
    """A handler that refuses the call (stage "accept") without parsing its request."""

    async def unary(request, context):
        raise Overloaded(reason, "accept")

    async def stream(request, context):
        raise Overloaded(reason, "accept")
        yield  # makes this an async generator

    def skip(data: bytes) -> None:
        return None

    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(interceptor._stream(rpc, stream), skip, handler.response_serializer)
    return grpc.unary_unary_rpc_method_handler(interceptor._unary(rpc, unary), skip, handler.response_serializer)
