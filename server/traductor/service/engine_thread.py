"""The engine in this process: one engine thread runs the scheduler's steps (`--no-engine-process`).

    event loop                                    engine thread
    ──────────                                    ─────────────
    submit(jobs) ─── Scheduler.submit_many ────▶  step(): admit, decode, select
    deliver(batch) ◀─ call_soon_threadsafe ─────  the step's events, one wake-up per step
    cancel(keys) ─── request.cancelled = True ─▶  next step: the request leaves

ONNX Runtime only ever runs on the engine thread, so the event loop stays free for health checks
and new requests while the model works; but the two share this process's interpreter, and each
waits while the other holds it. `engine_process.ProcessCore` runs the same steps in a process of
their own. Both implement `engine_core.EngineCore`. This module knows nothing of gRPC.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from functools import partial
from typing import Callable

from ..engine.process import Job, cancel, step_when_work
from ..engine.request import FinishEvent, Request, TokenEvent
from ..engine.scheduler import Scheduler
from .engine_core import CoreStats, Deliver
from .metrics import ModelMetrics

log = logging.getLogger("traductor.engine")


class ThreadCore:
    def __init__(self, scheduler: Scheduler, metrics: ModelMetrics):
        self.scheduler, self.metrics = scheduler, metrics
        self.max_queue = scheduler.max_queue
        self.requests: dict[int, Request] = {}  # key -> request, until its FinishEvent
        self._outbox: list[tuple[int, TokenEvent | FinishEvent]] = []  # engine thread only
        self._loop: asyncio.AbstractEventLoop | None = None
        self._deliver: Deliver | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="traductor-engine", daemon=True)

    def start(self, deliver: Deliver, on_exit: Callable[[BaseException], None]) -> None:
        """Start the engine thread; call from the event loop that receives the events. (This core
        never exits on its own, so `on_exit` is never called.)"""
        self._loop, self._deliver = asyncio.get_running_loop(), deliver
        self._thread.start()

    def stop(self, wait: bool = True) -> None:
        self._stop.set()
        self.scheduler.wake()
        if wait and self._thread.is_alive():  # not started when start-up was stopped before it
            self._thread.join(timeout=10)

    def submit(self, jobs: list[Job]) -> None:
        """Queue one group, all or none; QueueFull (and ValueError) propagate to the caller."""
        requests = [job.request(partial(self._sink, job.key)) for job in jobs]
        for job, request in zip(jobs, requests, strict=True):  # before the engine thread can finish one
            self.requests[job.key] = request
        try:
            self.scheduler.submit_many(requests)
        except Exception:
            for job in jobs:
                self.requests.pop(job.key, None)
            raise

    def cancel(self, keys: list[int]) -> None:
        cancel(self.scheduler, self.requests, keys)

    def queue_depth(self) -> int:
        return self.scheduler.queue_depth()

    def stats(self) -> CoreStats:
        s = self.scheduler
        return CoreStats(s.queue_depth(), s.cache.rows, s.cache.nbytes(), not self._stop.is_set())

    # ---- the engine thread ----------------------------------------------------------------

    def _sink(self, key: int, event: TokenEvent | FinishEvent) -> None:
        if isinstance(event, FinishEvent):
            self.requests.pop(key, None)
        self._outbox.append((key, event))

    def _run(self) -> None:
        s = self.scheduler
        while not self._stop.is_set():
            if not step_when_work(s):
                continue
            self._flush()
            self.metrics.observe_steps([s.last], s.cache.rows, s.queue_depth(), s.cache.nbytes())

    def _flush(self) -> None:
        """Hand the step's events to the event loop in one wake-up (not one per token)."""
        if not self._outbox:
            return
        batch, self._outbox = self._outbox, []
        try:
            self._loop.call_soon_threadsafe(self._deliver, batch)
        except RuntimeError:  # the loop is closed (shutdown): nobody is left to receive them
            log.debug("%d event(s) dropped: event loop closed", len(batch))
