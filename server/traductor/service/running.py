"""A running service (`Service`, what `server.start` returns and tests and the CLI hold on to):
its health and its stop.

Health: each model under `traductor.v1.Translator/<model>` (SERVING, or NOT_SERVING while it
restarts); the overall service ("" and `traductor.v1.Translator`) is SERVING while the server is
not draining and at least one model serves: a replica whose one model restarts for a few seconds
stays ready for the others (its calls to that model get UNAVAILABLE, which clients retry). The key
store has its own, `traductor.keys` (docs/keys.md).

The stop (`drain`, on SIGTERM/SIGINT): health NOT_SERVING at once -> calls still served for
prestop_seconds (while balancers and DNS drop this replica) -> the gRPC listener closes and
connections get GOAWAY (a new call is refused at connect time, so a balancer or client retries it
elsewhere; no call that never started gets an UNAVAILABLE from us) -> calls in flight finish (up
to drain_seconds, then cancelled); HTTP: new requests 503 while its in-flight ones finish -> the
connections left are closed (an idle one, a balancer's or a scraper's, does not hold the stop: with
nothing in flight it ends at once) -> engines stop. `abort` stops at once (a model that cannot be
restarted).

This module knows nothing of how the service is built (server.py) or of what a call translates.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2

from traductor_client.v1 import translator_pb2

from .async_engine import AsyncEngine
from .calls import CallsInFlight
from .glossaries import GlossaryStore
from .http import HttpServer
from .keys.gate import Gate
from .metrics import Metrics
from .registry import Registry
from .settings import Settings

log = logging.getLogger("traductor.server")
SERVICE_NAME = translator_pb2.DESCRIPTOR.services_by_name["Translator"].full_name
KEYS_HEALTH = "traductor.keys"  # NOT_SERVING while the key store does not answer (docs/keys.md)
SETTLE_SECONDS = 0.05  # drain: no Translator call for this long after the listener closed: none is left


@dataclass
class Service:
    """A running service: what tests and the CLI hold on to."""

    server: grpc.aio.Server
    registry: Registry
    health: health.aio.HealthServicer
    metrics: Metrics
    port: int
    settings: Settings
    calls: CallsInFlight | None = None  # the Translator calls in progress (the drain waits for them)
    http: HttpServer | None = None  # the LibreTranslate-compatible HTTP API, when settings.http_port
    glossaries: GlossaryStore | None = None  # the stored glossaries (glossaries.py), shared by both protocols
    watcher: asyncio.Future | None = None  # set when a model cannot be restarted (registry.fatal)
    gate: Gate | None = None  # the key check of every interface (keys/gate.py)
    keys_watch: asyncio.Future | None = None  # pings the key store (health KEYS_HEALTH, traductor_key_store_up)
    serving: bool = False

    @property
    def engine(self) -> AsyncEngine:
        """The default model's engine."""
        return self.registry.default.engine

    async def set_serving(self, serving: bool) -> None:
        """The overall health (and every model's, see the module docstring)."""
        self.serving = serving
        await self.update_health()

    async def update_health(self) -> None:
        up = health_pb2.HealthCheckResponse.SERVING
        down = health_pb2.HealthCheckResponse.NOT_SERVING
        any_model = False
        for model in self.registry:
            await self.health.set(health_name(model.name), up if self.serving and model.serving else down)
            any_model = any_model or model.serving
        for name in ("", SERVICE_NAME):
            await self.health.set(name, up if self.serving and any_model else down)
        if self.gate is not None and self.gate.store is not None:
            await self.health.set(KEYS_HEALTH, up if self.gate.up else down)

    def stop_keys(self) -> None:
        if self.keys_watch is not None:
            self.keys_watch.cancel()

    async def abort(self) -> None:
        """Stop at once (a model cannot be restarted): no pre-stop window, no grace."""
        await self.set_serving(False)
        self.registry.set_draining()
        await self.server.stop(None)
        if self.http is not None:
            await self.http.stop()
        self.registry.stop()
        self.stop_keys()

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
            self.registry.in_flight,
            s.drain_seconds,
        )
        end = time.monotonic() + s.drain_seconds
        closing = asyncio.ensure_future(self.server.stop(grace=s.drain_seconds))  # listener closed, GOAWAY
        if self.http is not None:
            await self.http.close_listener()  # and the HTTP API's: its open connections still answered
        finished = await self._calls_done(end)
        self.registry.set_draining()  # gRPC calls done: the HTTP API answers 503 on its open connections from now on
        finished = await self.registry.wait_idle(max(0.0, end - time.monotonic())) and finished
        if not finished:
            log.warning(
                "grace period over with %d call(s) and %d engine request(s) in flight: cancelling them",
                self.calls.count if self.calls else 0,
                self.registry.in_flight,
            )
        drained = time.monotonic()
        await self.server.stop(None)  # what is left: health watches, idle connections
        await closing
        if self.http is not None:
            await self.http.stop()
        closed = time.monotonic()
        self.registry.stop()
        self.stop_keys()
        if self.watcher is not None:
            self.watcher.cancel()
        log.info(
            "stopped: drained in %.2f s, connections closed in %.2f s, engines stopped in %.2f s",
            drained - (end - s.drain_seconds),
            closed - drained,
            time.monotonic() - closed,
        )

    async def _calls_done(self, end: float) -> bool:
        """Wait (until `end`) for the Translator calls in progress to end: True if none is left. A
        call accepted just before the listener closed reaches the count within a turn or two of the
        loop, so no call for SETTLE_SECONDS in a row is what says none is left."""
        if self.calls is None:
            return True
        while await _wait(self.calls.idle, max(0.0, end - time.monotonic())):
            await asyncio.sleep(SETTLE_SECONDS)
            if self.calls.idle.is_set():
                return True
        return False


async def _wait(event: asyncio.Event, timeout: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        pass
    return event.is_set()


def health_name(model: str) -> str:
    """A model's own service name in grpc.health.v1."""
    return f"{SERVICE_NAME}/{model}"
