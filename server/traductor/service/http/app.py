"""The HTTP server: aiohttp on the gRPC server's own event loop, one middleware around every request.

    request -> middleware: preflight? answer CORS at once
                           -> handler (handlers.py) -> JSON
                           exception -> statuses.http_error_for -> {"error": "..."} + status
                           count in traductor_requests_total{protocol="http"}, one JSON log line
                           CORS headers on every answer

Why aiohttp: it is an asyncio server that runs inside an existing event loop (no thread, no
second loop, no ASGI adapter), so a handler awaits the same `AsyncEngine` as the gRPC servicer;
it is a long-lived, actively maintained project with wheels for every platform the serving
image uses, and it parses JSON, urlencoded and multipart bodies with a size limit.

TLS uses the gRPC settings (`tls_cert`, `tls_key`, and `tls_client_ca` for client
certificates), so one certificate serves both protocols.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import ssl
import time
import uuid

import grpc
from aiohttp import web

from ..async_engine import request_summary
from ..metrics import Metrics
from ..settings import Settings
from . import deepl, page
from .api import HttpApi, json_response
from .cors import CORS_HEADERS
from .handlers import Handlers
from .statuses import code_of_status, http_error_for, reason

log = logging.getLogger("traductor.requests")


def _route_name(request: web.Request) -> str:
    """The metric's rpc label: the endpoint's path, or "unknown" (never the raw path: bounded labels)."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unknown"


def _with_cors(response: web.StreamResponse, request_id: str) -> web.StreamResponse:
    if response.prepared:  # a stream sent its headers already (with these, see handlers.translate_stream)
        return response
    response.headers.update(CORS_HEADERS)
    response.headers["X-Request-Id"] = request_id
    return response


def _start(request: web.Request) -> str:
    """The request's id (the caller's X-Request-Id, or made up), named in the engine's requests,
    the log line and the answer. It opens the request's summary, which the engine fills as for a
    gRPC call and the handlers read the id from (`handlers.request_id`)."""
    rid = request.headers.get("X-Request-Id", "")[:64] or uuid.uuid4().hex[:16]
    request_summary.set({"request_id": rid})
    return rid


def _error_response(exc: BaseException, request: web.Request, rid: str, retry_after: int):
    """(response, gRPC code) for an exception; an overload refusal (429) says when to retry, as the
    gRPC answer's `grpc-retry-pushback-ms` trailer does, in whole seconds (HTTP's Retry-After)."""
    if isinstance(exc, web.HTTPException):  # aiohttp's own refusal: unknown path, method, body size
        message = reason(exc.status)
        if exc.status == 413:  # aiohttp's text says the sizes; the flags say what to raise
            message = f"{exc.text} (the limits: --max-file-bytes for /translate_file, --max-message-bytes otherwise)"
        response = json_response({"error": message}, exc.status)
        if "Allow" in exc.headers:  # a 405 names the methods the path takes (RFC 9110), as aiohttp's own does
            response.headers["Allow"] = exc.headers["Allow"]
        return response, code_of_status(exc.status)
    status, code, message = http_error_for(exc)
    if code is grpc.StatusCode.INTERNAL:
        log.error("http %s %s request_id=%s failed", request.method, request.path, rid, exc_info=exc)
    response = json_response({"error": message}, status)
    if status == 429:  # a key's limit says when it frees up (service/keys); overload, the pushback
        own = getattr(exc, "retry_after", None)
        response.headers["Retry-After"] = str(math.ceil(own) if own is not None else retry_after)
    return response, code


def middleware(metrics: Metrics, retry_pushback_ms: int = 1000):
    retry_after = max(1, math.ceil(retry_pushback_ms / 1000))

    @web.middleware
    async def handle(request: web.Request, handler) -> web.StreamResponse:
        rid = _start(request)
        if request.method == "OPTIONS":  # CORS preflight: answered, not counted
            return _with_cors(web.Response(), rid)
        start, code, status = time.monotonic(), grpc.StatusCode.CANCELLED, 499
        try:
            response = await handler(request)
            status, code = response.status, code_of_status(response.status)
        except asyncio.CancelledError:  # the client went away; the engine request is cancelled too
            raise
        except Exception as e:
            response, code = _error_response(e, request, rid, retry_after)
            status = response.status
        finally:
            _record(metrics, request, code, status, time.monotonic() - start)
        return _with_cors(response, rid)

    return handle


def _record(metrics: Metrics, request: web.Request, code: grpc.StatusCode, status: int, elapsed: float) -> None:
    rpc, summary = _route_name(request), request_summary.get() or {}
    metrics.record_request("http", rpc, code.name, elapsed, summary.get("model", ""))
    line = {
        "protocol": "http",
        "rpc": rpc,
        "request_id": summary.get("request_id", ""),
        "code": code.name,
        "status": status,
        "total_ms": round(elapsed * 1000, 2),
        **summary,
    }
    log.info(json.dumps(line))


def ssl_context(s: Settings) -> ssl.SSLContext | None:
    """The gRPC server's certificate (and client CA, for mutual TLS) as an SSL context; None: plain HTTP."""
    if not s.tls_cert:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(s.tls_cert, s.tls_key)
    if s.tls_client_ca:
        ctx.load_verify_locations(s.tls_client_ca)
        ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


def build_app(api: HttpApi, metrics: Metrics) -> web.Application:
    s = api.settings
    # a body is limited to --max-message-bytes (/translate_file raises its own to --max-file-bytes)
    app = web.Application(middlewares=[middleware(metrics, s.retry_pushback_ms)], client_max_size=s.max_message_bytes)
    app.add_routes(Handlers(api).routes() + page.routes())
    deepl.setup(app, api)  # DeepL's API v2 under /v2/ (deepl.py)
    return app


class HttpServer:
    """The running HTTP API: `port` once started; `stop()` closes it (after the engine drained)."""

    def __init__(self, api: HttpApi, metrics: Metrics):
        self.api, self.port = api, 0
        # access_log=None: every request already gets the service's own JSON line (above)
        self.runner = web.AppRunner(build_app(api, metrics), access_log=None, shutdown_timeout=2.0)

    async def start(self) -> int:
        s = self.api.settings
        await self.runner.setup()
        site = web.TCPSite(self.runner, s.host, s.http_port, ssl_context=ssl_context(s))
        await site.start()
        self.port = self.runner.addresses[0][1]
        return self.port

    async def close_listener(self) -> None:
        """Stop accepting connections: a new one is refused (a balancer retries it elsewhere), while
        requests on the connections already open are still answered (served, or 503 once the
        engines drain) until `stop()`. The drain calls this when gRPC's listener closes. Left to
        `stop()` alone, the listener closed a moment before aiohttp's shutdown, which then found
        connections accepted in the last turns of the loop whose request it had not read yet: it
        dropped the request's bytes, waited out its shutdown timeout (2 s) and cut the connection
        without an answer (issue 47: 'connections closed in 2.00 s' and the client's
        RemoteDisconnected, in stops under HTTP load)."""
        for site in list(self.runner.sites):
            await site.stop()

    async def stop(self) -> None:
        """Close the listener if still open, let the requests in flight finish, close the rest."""
        await self.close_listener()
        await self.runner.cleanup()
