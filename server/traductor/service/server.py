"""Building and running the gRPC server.

signal handlers -> load bundle (off the event loop) -> engine process, which loads the model itself
(or, with --no-engine-process, runner + scheduler -> engine thread) -> warm-up -> HTTP API (with
--http-port) -> health SERVING
SIGTERM/SIGINT during start-up -> stop at once, exit 0
SIGTERM/SIGINT when serving -> health NOT_SERVING at once -> calls still served for prestop_seconds
(while balancers and DNS drop this replica) -> the gRPC listener closes and connections get GOAWAY
(a new call is refused at connect time, so a balancer or client retries it elsewhere; no call that
never started gets an UNAVAILABLE from us) -> calls in flight finish (up to drain_seconds, then
cancelled); HTTP: new requests 503 while its in-flight ones finish -> engine thread stops -> exit 0
the engine process dies -> its calls fail UNAVAILABLE, NOT_SERVING, the server stops -> exit 2
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from traductor_client.v1 import translator_pb2, translator_pb2_grpc

from ..engine.bundle import Bundle, default_bundle, load_bundle
from ..engine.process import EngineSpec
from ..options import DecodingOptions, Limits
from .async_engine import AsyncEngine
from .engine_process import ProcessCore
from .engine_thread import ThreadCore
from .http import HttpServer, start_http
from .interceptors import AuthInterceptor, ErrorInterceptor, quiet_ended_calls
from .metrics import Metrics
from .overload import Admission
from .servicer import TranslatorServicer, model_info
from .settings import Settings

log = logging.getLogger("traductor.server")
SERVICE_NAME = translator_pb2.DESCRIPTOR.services_by_name["Translator"].full_name
WARMUP_TEXTS = ["Warming up the translation engine.", "file not found: %s"]


@dataclass
class Service:
    """A running service: what tests and the CLI hold on to."""

    server: grpc.aio.Server
    engine: AsyncEngine
    health: health.aio.HealthServicer
    metrics: Metrics
    port: int
    settings: Settings
    http: HttpServer | None = None  # the LibreTranslate-compatible HTTP API, when settings.http_port
    watcher: asyncio.Future | None = None  # watch_engine(), from start() on

    async def set_serving(self, serving: bool) -> None:
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)

    async def watch_engine(self) -> None:
        """NOT_SERVING once the engine is down (its process died): the calls it held have failed and
        no new one can run; `serve` then stops, and the supervisor restarts the server."""
        await self.engine.down.wait()
        await self.set_serving(False)

    async def abort(self) -> None:
        """Stop at once (the engine is down): no pre-stop window, no grace."""
        await self.set_serving(False)
        await self.server.stop(None)
        if self.http is not None:
            await self.http.stop()
        self.engine.stop()

    async def drain(self, prestop_over: asyncio.Event | None = None) -> None:
        """NOT_SERVING, serve through the pre-stop window (cut short when `prestop_over` is set), stop
        accepting, let calls in flight finish within the grace period, stop (see the module docstring)."""
        s = self.settings
        await self.set_serving(False)
        if s.prestop_seconds > 0:
            log.info("stopping: NOT_SERVING, still serving for %.1f s (pre-stop)", s.prestop_seconds)
            try:
                await asyncio.wait_for((prestop_over or asyncio.Event()).wait(), s.prestop_seconds)
            except TimeoutError:
                pass
        log.info(
            "draining: closing the listener, %d request(s) in flight, grace %.1f s",
            self.engine.in_flight,
            s.drain_seconds,
        )
        end = time.monotonic() + s.drain_seconds
        await self.server.stop(grace=s.drain_seconds)  # cancels what is left at the end of the grace
        self.engine.draining = True  # the HTTP API (still listening) answers 503 from now on
        if not await self.engine.wait_idle(max(0.0, end - time.monotonic())):
            log.warning("grace period over with %d request(s) in flight: cancelling them", self.engine.in_flight)
        if self.http is not None:
            await self.http.stop()
        self.engine.stop()
        if self.watcher is not None:
            self.watcher.cancel()
        log.info("stopped")


def engine_threads(settings: Settings) -> int:
    """ONNX Runtime's intra-op threads: `--threads`, or when 0, all cores (ONNX Runtime's own count)
    for an engine thread, and all cores this process may use but one for an engine process, whose
    front (gRPC, one message per streamed token) then has a core of its own (docs/performance.md)."""
    if settings.threads or not settings.engine_process:
        return settings.threads
    return max(1, len(os.sched_getaffinity(0)) - 1)


def build_engine(bundle: Bundle, settings: Settings, metrics: Metrics, before_step=None) -> AsyncEngine:
    """The engine of a service; blocking (loads the model): call off the event loop. With
    `engine_process` the model is loaded and run by a process of its own (service/engine_process.py)."""
    rows = settings.max_active_sequences
    spec = EngineSpec(
        str(bundle.path),
        engine_threads(settings),
        settings.spin,
        rows,
        settings.max_queued_requests,
        settings.log_level,
        before_step,
    )
    if settings.engine_process:
        core = ProcessCore(spec, metrics)
        core.launch()
    else:
        core = ThreadCore(spec.scheduler(bundle), metrics)
    limits = Limits(
        max_input_tokens=min(settings.max_input_tokens, bundle.max_len),
        max_new_tokens=min(settings.max_new_tokens, bundle.max_len - 1),
        max_beam_size=min(settings.max_beam_size, rows),
    )
    memory = bundle.memory() if settings.use_memory else {}
    tokenizer = bundle.tokenizer()
    return AsyncEngine(core, tokenizer, limits, settings.max_input_chars, metrics, settings.max_segments, memory)


def _credentials(s: Settings):
    if not s.tls_cert:
        return None
    chain, key = Path(s.tls_cert).read_bytes(), Path(s.tls_key).read_bytes()
    client_ca = Path(s.tls_client_ca).read_bytes() if s.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


async def warm_up(engine: AsyncEngine) -> None:
    for text in WARMUP_TEXTS:
        beam = min(2, engine.limits.max_beam_size)  # 1 when the engine has a single row
        for options in (DecodingOptions(max_new_tokens=8), DecodingOptions(max_new_tokens=4, beam_size=beam)):
            async for _ in engine.generate(text, options, "warmup"):
                pass


def _grpc_server(settings: Settings, interceptors: list) -> grpc.aio.Server:
    size, pending = settings.max_message_bytes, settings.max_pending_calls
    return grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", size),
            ("grpc.max_send_message_length", size),
            ("grpc.so_reuseport", 0),
            # gRPC core cancels calls beyond these before we see them (service/overload.py)
            ("grpc.server.max_pending_requests", pending),
            ("grpc.server.max_pending_requests_hard_limit", pending),
        ],
    )


async def _off_loop(fn):
    """Run a blocking `fn` on a daemon thread, so that the event loop (signals) stays responsive and
    a process stopped during start-up does not wait for it."""
    done: concurrent.futures.Future = concurrent.futures.Future()

    def run() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(fn())
        except BaseException as e:  # noqa: BLE001  (handed to the awaiting coroutine)
            done.set_exception(e)

    threading.Thread(target=run, name="traductor-load", daemon=True).start()
    return await asyncio.wrap_future(done)


async def start(settings: Settings, metrics: Metrics | None = None, before_step=None) -> Service:
    """Start a service and return once it is SERVING (model loaded, warmed up); cancelled (a signal
    during start-up), it stops what it started."""
    metrics = metrics or Metrics()
    bundle = await _off_loop(lambda: load_bundle(settings.model or default_bundle()))
    engine = await _off_loop(lambda: build_engine(bundle, settings, metrics, before_step))
    capacity = settings.max_active_sequences + settings.max_queued_requests
    admission = Admission(engine.core, capacity, settings.retry_pushback_ms)
    interceptors = [ErrorInterceptor(metrics, admission)]
    quiet_ended_calls()  # grpcio's traceback for an answer to a call core had just ended: INFO
    server = _grpc_server(settings, interceptors + ([AuthInterceptor(settings.token)] if settings.token else []))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    translator_pb2_grpc.add_TranslatorServicer_to_server(
        TranslatorServicer(engine, model_info(bundle, settings, engine.limits)), server
    )
    if settings.reflection:
        reflection.enable_server_reflection([SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    address = f"{settings.host}:{settings.port}"
    creds = _credentials(settings)
    port = server.add_secure_port(address, creds) if creds else server.add_insecure_port(address)
    service = Service(server, engine, health_servicer, metrics, port, settings)
    try:
        await service.set_serving(False)
        await server.start()
        engine.start()
        await warm_up(engine)
        if settings.http_port:  # same loop, same engine (docs/http-api.md)
            langs = bundle.config.languages
            name = bundle.config.name or bundle.path.name
            service.http = await start_http(engine, settings, metrics, langs.source, langs.target, name)
            log.info("HTTP API (LibreTranslate-compatible) on %s, port %d", settings.host, service.http.port)
    except BaseException:
        await server.stop(None)
        engine.stop()
        raise
    await service.set_serving(True)
    service.watcher = asyncio.ensure_future(service.watch_engine())
    log.info("serving %s (bundle %s) on %s, port %d", bundle.config.name, bundle.checksum[:12], settings.host, port)
    return service


async def serve(settings: Settings) -> None:
    """`traductor serve`: run until SIGTERM/SIGINT, then drain and return (exit 0). The handlers are
    installed first: a signal during start-up (loading, warm-up) stops the process at once. A
    second signal ends the pre-stop window early."""
    stop, prestop_over = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: prestop_over.set() if stop.is_set() else stop.set())
    log.info("starting: model %s", settings.model or "(the default model)")
    metrics = Metrics()
    if settings.metrics_port:
        metrics.serve(settings.metrics_port, settings.host)
    starting = asyncio.ensure_future(start(settings, metrics))
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not starting.done():
        log.info("signal during start-up: stopping")
        starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        return
    service = starting.result()  # a failed start raises here
    await asyncio.wait({stopping, service.watcher}, return_when=asyncio.FIRST_COMPLETED)
    if not stopping.done():  # the engine process died: stop now, exit non-zero
        stopping.cancel()
        await service.abort()
        raise service.engine.down_error
    await service.drain(prestop_over)
