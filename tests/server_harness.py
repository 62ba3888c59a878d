"""The one server harness of the tests: an in-process traductor server, a step gate, bounded waits,
free ports.

The server runs on its own event loop in a background thread (as in production, the model runs
on the engine thread); tests talk to it with ordinary synchronous gRPC stubs, as a real client
would. Its `Gate` (the scheduler's `before_step` hook) lets a test hold the engine between steps
and release it one step at a time, so timing-dependent behaviour is observed without sleeps.

tests/service/service_harness.py and tests/reliability/rel_harness.py re-export what their
tests import from here.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import threading
import time
from dataclasses import replace
from typing import Callable

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from traductor.service.running import Service
from traductor.service.server import start
from traductor.service.settings import Settings
from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc

WAIT = 30.0  # upper bound of every bounded wait; a healthy run needs a fraction of a second


def free_port() -> int:
    """A TCP port nobody listens on right now (for servers that cannot take port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate: Callable[[], object], timeout: float = WAIT, what: str = "condition"):
    """Poll `predicate` until it is truthy; fail the test after `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


class Gate:
    """A `before_step` hook: open, the engine runs freely; closed, it waits before each step
    until the test grants steps with `allow(n)` (returns at once) or `step(n)` (returns once
    they have ended)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.is_open = True
        self.permits = 0
        self.steps = 0  # steps that have passed the gate
        self.waiting = False  # the engine thread is held at the gate
        self.ended = 0  # steps that have ended (see wrap)

    def __call__(self) -> None:  # the engine thread, before every step
        with self.cond:
            self.waiting = True
            self.cond.notify_all()
            while not self.is_open and self.permits == 0:
                self.cond.wait()
            if not self.is_open:
                self.permits -= 1
            self.waiting = False
            self.steps += 1
            self.cond.notify_all()

    @property
    def held(self) -> bool:
        """The engine stands at the closed gate with no step granted."""
        return self.waiting and not self.is_open and self.permits == 0

    def close(self) -> None:
        with self.cond:
            self.is_open, self.permits = False, 0

    def open(self) -> None:
        with self.cond:
            self.is_open = True
            self.cond.notify_all()

    def allow(self, n: int = 1) -> None:
        """Grant n more steps and return at once."""
        with self.cond:
            self.permits += n
            self.cond.notify_all()

    def step(self, n: int = 1) -> None:
        """Let exactly n steps through and return once they have ended (needs `wrap`)."""
        with self.cond:
            target = self.ended + n  # called while the engine is held: every step begun has ended
            self.permits += n
            self.cond.notify_all()
            if not self.cond.wait_for(lambda: self.ended >= target, WAIT):
                raise AssertionError(f"the engine did not take {n} step(s) within {WAIT} s")

    def wrap(self, scheduler) -> None:
        """Count the ends of the scheduler's steps (the gate itself only sees their starts)."""
        step = scheduler.step

        def counted_step() -> None:
            try:
                step()
            finally:
                with self.cond:
                    self.ended += 1
                    self.cond.notify_all()

        scheduler.step = counted_step

    def wait_held(self, timeout: float = WAIT) -> bool:
        """Wait until the engine is held at the closed gate (its previous step is over)."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.held, timeout):
                raise AssertionError("the engine never reached the gate")
        return True


class ProcessGate:
    """The `Gate` of an engine process (`engine_process=True`): the engine runs in another process,
    so the gate is built on multiprocessing primitives, handed to that process when it is spawned.
    close/open/allow/wait_held as `Gate`; steps are not counted (no `step`, no `wrap`)."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.cond = ctx.Condition()
        self._open = ctx.Value("b", 1, lock=False)  # guarded by cond
        self._permits = ctx.Value("i", 0, lock=False)
        self._waiting = ctx.Value("b", 0, lock=False)

    def __call__(self) -> None:  # the engine process, before every step
        with self.cond:
            self._waiting.value = 1
            self.cond.notify_all()
            while not self._open.value and self._permits.value == 0:
                self.cond.wait()
            if not self._open.value:
                self._permits.value -= 1
            self._waiting.value = 0
            self.cond.notify_all()

    def close(self) -> None:
        with self.cond:
            self._open.value, self._permits.value = 0, 0

    def open(self) -> None:
        with self.cond:
            self._open.value = 1
            self.cond.notify_all()

    def allow(self, n: int = 1) -> None:
        with self.cond:
            self._permits.value += n
            self.cond.notify_all()

    def wait_held(self, timeout: float = WAIT) -> bool:
        """Wait until the engine process stands at the closed gate with no step granted."""
        held = lambda: self._waiting.value and not self._open.value and self._permits.value == 0  # noqa: E731
        with self.cond:
            if not self.cond.wait_for(held, timeout):
                raise AssertionError("the engine process never reached the gate")
        return True


class ServerThread:
    """A started `Service` on a private event loop, with sync stubs pointed at it.

    `before_step` defaults to a new open `Gate` (`self.gate`; a `ProcessGate` when the settings ask
    for an engine process); a test may pass its own gate or any other hook (a hook that is not a
    gate is called as is)."""

    def __init__(self, settings: Settings, before_step: Callable[[], None] | None = None):
        default_gate = ProcessGate if settings.engine_process else Gate
        self.gate = before_step if before_step is not None else default_gate()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-server-loop", daemon=True)
        self.thread.start()
        self.service: Service = self.run(start(settings, before_step=self.gate))
        if isinstance(self.gate, Gate):  # (a ProcessGate cannot count steps)
            self.gate.wrap(self.service.engine.core.scheduler)
        self.settings = settings
        self.target = f"127.0.0.1:{self.service.port}"
        self.channel = grpc.insecure_channel(self.target)
        self.stub = translator_pb2_grpc.TranslatorStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.drained = False

    def run(self, coro, timeout: float = 120.0):
        """Run a coroutine on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    call = run

    def submit(self, coro):
        """Schedule a coroutine on the server's loop; returns a concurrent future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def gauge(self, name: str, labels: dict | None = None) -> float | None:
        """A sample of the service's own metrics registry, summed over the labels not given (every
        model's, unless `labels` names one); None if it has none."""
        return sample(self.service.metrics.registry, name, labels)

    def metric(self, name: str, labels: dict | None = None) -> float:
        value = self.gauge(name, labels)
        return 0.0 if value is None else value

    def requests(self, rpc: str, code: str) -> float:
        return self.metric("traductor_requests_total", {"protocol": "grpc", "rpc": rpc, "code": code})

    def health_status(self, service: str = "") -> int:
        return self.health.Check(health_pb2.HealthCheckRequest(service=service), timeout=WAIT).status

    def wait_for(self, predicate, timeout: float = 10.0, interval: float = 0.01) -> bool:
        """Bounded polling that answers instead of failing (for gauges updated after a step)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(interval)
        return bool(predicate())

    def wait_idle(self) -> None:
        """Wait until no sequence is decoded and no request is queued or in flight."""
        wait_for(
            lambda: (
                self.service.engine.in_flight == 0
                and self.metric("traductor_active_sequences") == 0
                and self.metric("traductor_kv_cache_bytes") == 0
                and self.service.engine.core.queue_depth() == 0
            ),
            what="the engine to be idle",
        )

    def release(self) -> None:
        """Open a gate the test left closed, so that the engine can stop."""
        if isinstance(self.gate, (Gate, ProcessGate)):
            self.gate.open()

    def close(self) -> None:
        self.release()
        self.channel.close()
        try:
            if not self.drained:
                self.run(self.service.drain())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()

    stop = close


def sample(registry, name: str, labels: dict | None = None) -> float | None:
    """The sum of the samples called `name` whose labels include `labels`; None if there is none."""
    want, values = (labels or {}).items(), []
    for family in registry.collect():
        for s in family.samples:
            if s.name == name and want <= s.labels.items():
                values.append(s.value)
    return sum(values) if values else None


MARKER = "marca"  # a text every model of `make_repository` answers from its memory with its own name


def make_repository(bundle, root, pairs: dict[str, tuple[str, str]]):
    """A model repository of copies of `bundle`, one per name, each declaring its language pair
    (config.json's languages: the graphs, and so the checksums, are the same) and answering
    MARKER with "[name]" from a translation memory of its own, so a reply shows which model made
    it. Returns `root`."""
    import json
    import shutil
    from pathlib import Path

    from traductor.engine.bundle import sha256

    root = Path(root)
    for name, (source, target) in pairs.items():
        model = root / name
        shutil.copytree(bundle, model)
        (model / "memory.tsv").write_text(f"{MARKER}\t[{name}]\t2\n", encoding="utf-8")
        config = json.loads((model / "config.json").read_text())
        config["languages"] = {"source": source, "target": target}
        config["memory"] = {"file": "memory.tsv", "sha256": sha256(model / "memory.tsv"), "entries": 1}
        (model / "config.json").write_text(json.dumps(config, indent=2))
    return root


def new_version(bundle, answer: str) -> None:
    """The same model with another memory, so another config.json (a changed bundle, as SIGHUP sees
    it): it answers MARKER with `answer`."""
    import json
    from pathlib import Path

    from traductor.engine.bundle import sha256

    bundle = Path(bundle)
    (bundle / "memory.tsv").write_text(f"{MARKER}\t{answer}\t2\n", encoding="utf-8")
    config = json.loads((bundle / "config.json").read_text())
    config["memory"]["sha256"] = sha256(bundle / "memory.tsv")
    (bundle / "config.json").write_text(json.dumps(config))


def break_bundle(bundle) -> None:
    """A bundle whose config.json names a wrong checksum for its encoder: it fails to load."""
    import json
    from pathlib import Path

    config = json.loads((Path(bundle) / "config.json").read_text())
    config["sha256"]["encoder.onnx"] = "0" * 64
    (Path(bundle) / "config.json").write_text(json.dumps(config))


def make_settings(bundle, **overrides) -> Settings:
    """An in-process server's settings. Its engine runs on a thread here (engine_process=False), which
    a `Gate` holds step by step; tests/service/test_engine_process.py covers the engine process that
    `traductor serve` runs by default, and the subprocess tests (tests/reliability) run that default."""
    base = Settings(
        model=str(bundle),
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        threads=1,
        drain_seconds=5.0,
        prestop_seconds=0.0,
        engine_process=False,
    )
    return replace(base, **overrides)


def translate_request(text: str, request_id: str = "", **options) -> pb.TranslateRequest:
    return pb.TranslateRequest(text=text, request_id=request_id, options=pb.DecodingOptions(**options))
