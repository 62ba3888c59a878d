"""Building and running the gRPC server.

load bundle -> runner + scheduler -> engine thread -> warm-up -> HTTP API (with --http-port)
-> health SERVING
SIGTERM/SIGINT -> health NOT_SERVING, new requests UNAVAILABLE (HTTP: 503) -> in-flight requests
finish (up to drain_seconds) -> gRPC and HTTP servers stop -> engine thread stops -> exit 0
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from traductor_client.v1 import translator_pb2, translator_pb2_grpc

from ..engine.bundle import Bundle, default_bundle, load_bundle
from ..engine.runner import ModelRunner
from ..engine.scheduler import Scheduler
from ..model.tokenizer import Tokenizer
from ..options import DecodingOptions, Limits
from .async_engine import AsyncEngine
from .http import HttpServer, start_http
from .interceptors import AuthInterceptor, ErrorInterceptor
from .metrics import Metrics
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

    async def set_serving(self, serving: bool) -> None:
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)

    async def drain(self) -> None:
        """Stop taking work, let in-flight requests finish within the grace period, stop."""
        log.info("draining: %d request(s) in flight, grace %.1f s", self.engine.in_flight, self.settings.drain_seconds)
        self.engine.draining = True
        await self.set_serving(False)
        finished = await self.engine.wait_idle(self.settings.drain_seconds)
        if not finished:
            log.warning("grace period over with %d request(s) in flight: cancelling them", self.engine.in_flight)
        await self.server.stop(grace=0.5)
        if self.http is not None:
            await self.http.stop()
        self.engine.stop()
        log.info("stopped")


def build_engine(bundle: Bundle, settings: Settings, metrics: Metrics, before_step=None) -> AsyncEngine:
    rows = settings.max_active_sequences
    runner = ModelRunner(bundle, threads=settings.threads, max_rows=rows, spin=settings.spin)
    tokenizer = Tokenizer(bundle.file("tokenizer.model"))
    scheduler = Scheduler(
        runner, tokenizer, max_rows=rows, max_queue=settings.max_queued_requests, before_step=before_step
    )
    limits = Limits(
        max_input_tokens=min(settings.max_input_tokens, bundle.max_len),
        max_new_tokens=min(settings.max_new_tokens, bundle.max_len - 1),
        max_beam_size=min(settings.max_beam_size, rows),
    )
    return AsyncEngine(scheduler, tokenizer, limits, settings.max_input_chars, metrics, settings.max_segments)


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


async def start(settings: Settings, metrics: Metrics | None = None, before_step=None) -> Service:
    """Start a service and return once it is SERVING (model loaded, warmed up)."""
    bundle = load_bundle(settings.model or default_bundle())
    metrics = metrics or Metrics()
    engine = build_engine(bundle, settings, metrics, before_step)
    interceptors = [ErrorInterceptor(metrics)] + ([AuthInterceptor(settings.token)] if settings.token else [])
    size = settings.max_message_bytes
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", size),
            ("grpc.max_send_message_length", size),
            ("grpc.so_reuseport", 0),
        ],
    )
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
    await service.set_serving(False)
    await server.start()
    engine.start()
    await warm_up(engine)
    if settings.http_port:  # same loop, same engine (docs/http-api.md)
        langs = bundle.config.languages
        service.http = await start_http(engine, settings, metrics, langs.source, langs.target)
        log.info("HTTP API (LibreTranslate-compatible) on %s, port %d", settings.host, service.http.port)
    await service.set_serving(True)
    log.info("serving %s (bundle %s) on %s, port %d", bundle.config.name, bundle.checksum[:12], settings.host, port)
    return service


async def serve(settings: Settings) -> None:
    """`traductor serve`: run until SIGTERM/SIGINT, then drain and return (exit 0)."""
    metrics = Metrics()
    if settings.metrics_port:
        metrics.serve(settings.metrics_port, settings.host)
    service = await start(settings, metrics)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await service.drain()
