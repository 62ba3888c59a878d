"""Building and running the gRPC server.

signal handlers -> the models (service/registry.py): for each, load its bundle (off the event loop)
-> its engine process, which loads the model itself (or, with --no-engine-process, runner +
scheduler -> engine thread) -> warm-up of each -> HTTP API (with --http-port) -> health SERVING
SIGTERM/SIGINT during start-up -> stop at once, exit 0
SIGHUP when serving -> the models rescanned: added, removed (after their calls finish), replaced
(the new version takes the calls once warm), a bad bundle refused (registry.Registry.reload)
SIGTERM/SIGINT when serving -> the drain (running.Service.drain: NOT_SERVING, the pre-stop window,
the listeners closed, calls in flight finished within the grace period, engines stopped) -> exit 0.
A start not SERVING within start_report_seconds, or a stop still running STOP_MARGIN_SECONDS after
its grace period, writes where it waits to the log (service/stall.py)
a model's engine process dies -> its calls fail UNAVAILABLE, that model is NOT_SERVING and started
again with backoff (registry.Registry._watch); the other models never notice; a model that cannot
be kept running (it failed again after max_restarts restarts in a row) stops the server -> exit 2

The running service, its health and its stop are running.py's (`Service`, imported here for the
callers of `start`).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from traductor_client.v1 import translator_pb2_grpc

from ..options import DecodingOptions
from .async_engine import AsyncEngine
from .calls import CallsInFlight
from .glossaries import GlossaryStore
from .http import start_http
from .interceptors import ErrorInterceptor, quiet_ended_calls
from .keys.stores import gate_for
from .metrics import Metrics
from .models import Model, ModelLoader, default_name, model_paths
from .overload import Admission
from .registry import Registry, off_loop
from .running import SERVICE_NAME, Service
from .servicer import TranslatorServicer
from .settings import Settings
from .stall import STOP_MARGIN_SECONDS, Deadline

log = logging.getLogger("traductor.server")
WARMUP_TEXTS = ["Warming up the translation engine.", "file not found: %s"]


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


async def start(settings: Settings, metrics: Metrics | None = None, before_step=None) -> Service:
    """Start a service and return once it is SERVING (model loaded, warmed up); cancelled (a signal
    during start-up), it stops what it started."""
    metrics = metrics or Metrics()
    paths = model_paths(settings)
    default = default_name(settings, list(paths))
    loader = ModelLoader(settings, metrics, before_step)
    models: list[Model] = []
    try:
        for i, (name, path) in enumerate(paths.items()):
            models.append(await off_loop(lambda name=name, path=path, i=i: loader.build(name, path, i, len(paths))))
    except BaseException:
        for m in models:
            m.engine.stop()
        raise
    registry = Registry(models, default, metrics)
    glossaries = GlossaryStore.from_settings(settings)
    admission = Admission(
        registry, settings.max_active_sequences + settings.max_queued_requests, settings.retry_pushback_ms
    )
    calls = CallsInFlight()
    interceptors = [calls, ErrorInterceptor(metrics, admission)]
    quiet_ended_calls()  # grpcio's traceback for an answer to a call core had just ended: INFO
    gate = gate_for(settings, metrics)  # --token, --api-keys, --keys-redis (docs/keys.md)
    server = _grpc_server(settings, interceptors)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    translator_pb2_grpc.add_TranslatorServicer_to_server(
        TranslatorServicer(registry, settings, glossaries, gate), server
    )
    if settings.reflection:
        reflection.enable_server_reflection([SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    address = f"{settings.host}:{settings.port}"
    creds = _credentials(settings)
    port = server.add_secure_port(address, creds) if creds else server.add_insecure_port(address)
    service = Service(
        server, registry, health_servicer, metrics, port, settings, calls, glossaries=glossaries, gate=gate
    )
    try:
        await service.set_serving(False)
        await server.start()
        registry.start()
        for model in registry:
            await warm_up(model.engine)
        if settings.http_port:  # same loop, same engines (docs/http-api.md)
            service.http = await start_http(registry, settings, metrics, glossaries, gate)
            log.info("HTTP API (LibreTranslate-compatible) on %s, port %d", settings.host, service.http.port)
    except BaseException:
        await server.stop(None)
        registry.stop()
        raise
    registry.on_change, registry.warm_up = service.update_health, warm_up
    registry.supervise(loader)
    await service.set_serving(True)
    service.watcher = asyncio.ensure_future(registry.fatal.wait())
    service.keys_watch = asyncio.ensure_future(gate.watch(service.update_health))
    for m in registry:
        mark = " [default]" if m.name == default else ""
        log.info("serving model %s (bundle %s)%s", m.describe(), m.bundle.checksum[:12], mark)
    log.info("listening on %s, port %d", settings.host, port)
    return service


async def serve(settings: Settings) -> None:
    """`traductor serve`: run until SIGTERM/SIGINT, then drain and return (exit 0). The handlers are
    installed first: a signal during start-up (loading, warm-up) stops the process at once. A
    second signal ends the pre-stop window early. A start or a stop that overruns its time says
    where it waits (service/stall.py)."""
    stop, prestop_over = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: prestop_over.set() if stop.is_set() else stop.set())
    reloads: set[asyncio.Future] = set()
    loop.add_signal_handler(signal.SIGHUP, lambda: log.info("SIGHUP during start-up: ignored"))
    log.info("starting: model %s", settings.model or settings.model_repository or "(the packaged models)")
    metrics = Metrics()
    if settings.metrics_port:
        metrics.serve(settings.metrics_port, settings.host)
    started = Deadline("start (SERVING)", settings.start_report_seconds, loop, logging.WARNING)
    starting = asyncio.ensure_future(start(settings, metrics))
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    started.done()
    if not starting.done():
        log.info("signal during start-up: stopping")
        stopped = Deadline("stop (signal during start-up)", STOP_MARGIN_SECONDS, loop)
        starting.cancel()
        await asyncio.gather(starting, return_exceptions=True)
        end_children()
        stopped.done()
        return
    service = starting.result()  # a failed start raises here

    def reload() -> None:  # SIGHUP: rescan the repository (registry.Registry.reload)
        log.info("SIGHUP: rescanning the models")
        task = asyncio.ensure_future(service.registry.reload())
        reloads.add(task)
        task.add_done_callback(reloads.discard)

    loop.add_signal_handler(signal.SIGHUP, reload)
    await asyncio.wait({stopping, service.watcher}, return_when=asyncio.FIRST_COMPLETED)
    if not stopping.done():  # a model cannot be restarted: stop now, exit non-zero
        stopping.cancel()
        await service.abort()
        end_children()
        raise service.registry.fatal_error
    # Not disarmed on return: the interpreter's own exit (threads, atexit) is part of the stop.
    Deadline("stop (SIGTERM)", settings.prestop_seconds + settings.drain_seconds + STOP_MARGIN_SECONDS, loop)
    await service.drain(prestop_over)
    end_children()


def end_children() -> None:
    """Kill the engine processes still alive once the models are stopped (one started by a restart
    or a reload that the stop cut short): they ignore SIGTERM (the front drains, then stops them), so
    multiprocessing's exit, which sends SIGTERM and then waits for them, would wait for ever."""
    for process in multiprocessing.active_children():
        log.warning("engine process %d (%s) still alive after the stop: killing it", process.pid, process.name)
        process.kill()
        process.join(5)
