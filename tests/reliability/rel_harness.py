"""A real service in a background event loop, for synchronous tests (no pytest-asyncio here)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path

import grpc

from traductor.service.server import Service, start
from traductor.service.settings import Settings
from traductor_client.v1 import translator_pb2_grpc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServiceThread:
    """`server.start()` on an event loop of its own thread; `stop()` drains and joins it."""

    def __init__(self, bundle: Path, before_step=None, **overrides):
        values = dict(
            model=str(bundle),
            host="127.0.0.1",
            port=0,
            metrics_port=0,
            threads=1,
            max_active_sequences=8,
            max_queued_requests=64,
            drain_seconds=2.0,
        )
        values.update(overrides)
        self.settings = Settings(**values)
        self.before_step = before_step
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-service-loop", daemon=True)
        self.thread.start()
        self.service: Service = self.call(start(self.settings, before_step=before_step))
        self.target = f"127.0.0.1:{self.service.port}"

    def call(self, coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def gauge(self, name: str, labels: dict | None = None) -> float | None:
        """A sample of the service's own metrics registry."""
        return self.service.metrics.registry.get_sample_value(name, labels or {})

    def wait_for(self, predicate, timeout: float = 10.0, interval: float = 0.01) -> bool:
        """Bounded polling (for gauges the engine thread updates after a step)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(interval)
        return predicate()

    def release(self) -> None:
        """Open a gate the test left closed, so that the engine can stop."""
        if isinstance(self.before_step, StepGate):
            self.before_step.open()

    def stop(self) -> None:
        try:
            self.call(self.service.drain())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


class StepGate:
    """A `before_step` hook that holds the engine at the start of a step.

    Open, it lets every step through; closed, a step waits until `allow(n)` grants it. `held`
    tells whether the engine is waiting at the gate right now.
    """

    def __init__(self):
        self.cond = threading.Condition()
        self.permits: float = float("inf")
        self.held = False
        self.steps = 0  # steps that went through

    def __call__(self) -> None:
        with self.cond:
            self.held = True
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.permits > 0)
            self.permits -= 1
            self.held = False
            self.steps += 1
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self.permits = 0

    def open(self) -> None:
        with self.cond:
            self.permits = float("inf")
            self.cond.notify_all()

    def allow(self, n: int = 1) -> None:
        with self.cond:
            self.permits += n
            self.cond.notify_all()

    def wait_held(self, timeout: float = 10.0) -> bool:
        """Wait until the engine stands at the gate (its previous step is over)."""
        with self.cond:
            return self.cond.wait_for(lambda: self.held and self.permits == 0, timeout)


def vm_rss_kib(pid: int | str = "self") -> int:
    """Resident set size from /proc (psutil is not installed)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS line")


def stub_of(channel: grpc.Channel) -> translator_pb2_grpc.TranslatorStub:
    return translator_pb2_grpc.TranslatorStub(channel)
