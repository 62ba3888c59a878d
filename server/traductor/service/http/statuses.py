"""Errors -> HTTP statuses, as LibreTranslate answers them: `{"error": "..."}` with the status.

An exception is classified once, by `interceptors.status_for` (the same function that gives
gRPC callers their status); this module only turns that gRPC code into the HTTP status a
LibreTranslate client expects. So a new error class gets its HTTP status by getting its gRPC
code, in one place.

    InvalidInput (bad parameter, unsupported pair, too long)  INVALID_ARGUMENT    400
    Unauthenticated (missing or wrong api_key)                UNAUTHENTICATED     403
    PermissionDenied (a model or pair the key may not use)    PERMISSION_DENIED   403
    QueueFull (the engine's queue is full)                    RESOURCE_EXHAUSTED  429
    RateLimited, QuotaExceeded (the key's limits)             RESOURCE_EXHAUSTED  429 + Retry-After
    KeyStoreDown (the key store does not answer)              UNAVAILABLE         503
    Draining (the server is shutting down)                    UNAVAILABLE         503
    EngineDown (the engine process exited)                    UNAVAILABLE         503
    DeadlinePassed                                            DEADLINE_EXCEEDED   504
    anything else: "internal error", details in the log       INTERNAL            500

Metrics and log lines of HTTP requests carry the gRPC code name (`code="OK"`, ...), so one
dashboard query covers both protocols; the HTTP status is in the log line as `status`.
"""

from __future__ import annotations

from http import HTTPStatus

import grpc

from ..interceptors import status_for

HTTP_STATUS = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.UNAUTHENTICATED: 403,  # LibreTranslate answers a bad api_key with 403
    grpc.StatusCode.PERMISSION_DENIED: 403,  # a key used beyond its models or pairs
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.UNIMPLEMENTED: 405,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}
# aiohttp's own refusals (unknown path, wrong method, body over the size limit) by HTTP status
_CODE_OF_STATUS = {status: code for code, status in HTTP_STATUS.items()} | {413: grpc.StatusCode.INVALID_ARGUMENT}


def http_error_for(exc: BaseException) -> tuple[int, grpc.StatusCode, str]:
    """(HTTP status, gRPC code for metrics and logs, message for the caller) of an exception."""
    code, message = status_for(exc)
    return HTTP_STATUS.get(code, 500), code, message


def code_of_status(status: int) -> grpc.StatusCode:
    """The gRPC code name that a response with this HTTP status is counted under."""
    if status < 400:
        return grpc.StatusCode.OK
    return _CODE_OF_STATUS.get(status, grpc.StatusCode.INTERNAL if status >= 500 else grpc.StatusCode.INVALID_ARGUMENT)


def reason(status: int) -> str:
    """The standard phrase of a status ("Not Found"), the error text of aiohttp's own refusals."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"
