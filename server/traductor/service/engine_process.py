"""The engine in a process of its own (`traductor serve`'s default): the front's side.

    event loop (this process)                       engine process (engine/process.py)
    ─────────────────────────                       ──────────────────────────────────
    submit(jobs): queue check, ("submit", jobs) ──▶ Scheduler.submit_many
    cancel(keys): ("cancel", keys) ───────────────▶ request.cancelled = True
    reader callback on the events pipe ◀─────────── a step's news: ([(key, event), ...], Report)
      deliver(batch), metrics.observe_steps(Report)
    queue_depth(): jobs sent - left ◀─── shared ─── after every step: jobs that left its queue
    the pipe reaches EOF (the process died) ──────▶ on_exit(EngineDown): every call in flight fails

The front keeps everything else: gRPC and HTTP, tokenizing, the text layer, the memory, metrics.
The engine process runs ONNX Runtime and the scheduler's Python with an interpreter of its own,
so neither waits for the other's hold on the GIL (the cost docs/performance.md measured for
streams). The queue check is made here: what was sent less what has left the engine's queue (a
shared integer the engine writes after every step, so that an admission needs no message); the
engine's own queue never refuses.

This module knows nothing of gRPC.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from dataclasses import replace
from typing import Callable

from ..engine import process
from ..engine.process import EngineSpec, Job, Report
from ..errors import EngineDown, EngineFailure, QueueFull
from .engine_core import CoreStats, Deliver
from .metrics import ModelMetrics

log = logging.getLogger("traductor.engine")
START_SECONDS = 120.0  # loading a bundle takes seconds; a process silent this long is stuck


class ProcessCore:
    def __init__(self, spec: EngineSpec, metrics: ModelMetrics):
        self.spec, self.metrics = spec, metrics
        self.max_queue = spec.max_queue
        self._report: Report | None = None
        self._sent = 0  # jobs sent to the engine process
        self._left = None  # jobs that have left its queue, as it wrote them last (shared memory)
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_exit: Callable[[BaseException], None] | None = None
        self.process = None

    # ---- life cycle -------------------------------------------------------------------------

    def launch(self) -> None:
        """Start the engine process and wait until it has loaded the model (blocking: call off the
        event loop). Raises what stopped it: a BundleError, or EngineFailure."""
        ctx = multiprocessing.get_context("spawn")  # never fork a process that runs gRPC threads
        jobs_r, self._jobs = ctx.Pipe(duplex=False)
        self._events, events_w = ctx.Pipe(duplex=False)
        engine_spec = replace(self.spec, max_queue=1 << 30)  # refusals are made here
        self._left = ctx.RawValue("q", 0)
        self.process = ctx.Process(
            target=process.main,
            args=(jobs_r, events_w, engine_spec, self._left),
            name="traductor-engine",
            daemon=True,
        )
        self.process.start()
        jobs_r.close(), events_w.close()  # the child's ends: once it exits, reads here reach EOF
        if not self._events.poll(START_SECONDS):
            self.process.kill()
            raise EngineFailure(f"the engine process did not start within {START_SECONDS:.0f} s")
        try:
            kind, payload = self._events.recv()
        except EOFError:
            self.process.join(5)
            raise EngineFailure(f"the engine process exited while starting ({self._exit()})") from None
        if kind == "failed":
            self.process.join(5)
            raise payload
        log.info("engine process %d ready", payload)

    def start(self, deliver: Deliver, on_exit: Callable[[BaseException], None]) -> None:
        """Receive the engine's events on this event loop from now on."""
        self._loop, self._deliver, self._on_exit = asyncio.get_running_loop(), deliver, on_exit
        self._loop.add_reader(self._events.fileno(), self._readable)

    def stop(self, wait: bool = True) -> None:
        """Ask the engine process to stop and, with `wait`, wait for it (then kill it); call from
        the event loop."""
        if self.process is None:
            return
        if not self._stopping:
            self._stopping = True
            if self._loop is not None:
                self._loop.remove_reader(self._events.fileno())
            try:
                self._jobs.send(("stop", None))
            except OSError:
                pass  # already gone
            # Nothing is read from it any more: an engine blocked sending a step's news to a full
            # pipe gets EPIPE and ends, instead of waiting for a reader until it is killed.
            self._events.close()
        if not wait:
            return
        self.process.join(timeout=10)
        if self.process.is_alive():
            log.warning("engine process did not stop within 10 s: killing it")
            self.process.kill()
            self.process.join(timeout=5)

    # ---- called on the event loop -----------------------------------------------------------

    def submit(self, jobs: list[Job]) -> None:
        """Send one group, all or none; QueueFull when the engine's queue is full (as it last said).
        (A beam wider than the engine's rows cannot come: Limits caps beam_size at the rows.)"""
        if self.queue_depth() >= self.max_queue:
            raise QueueFull(f"the queue is full ({self.max_queue} waiting requests)")
        try:
            self._jobs.send(("submit", jobs))
        except OSError as e:
            raise EngineDown(f"the engine process is not running ({self._exit()})") from e
        self._sent += len(jobs)

    def cancel(self, keys: list[int]) -> None:
        try:
            self._jobs.send(("cancel", keys))
        except OSError:
            pass  # the engine is gone; its requests were failed by on_exit

    def queue_depth(self) -> int:
        return self._sent - self._left.value if self._left is not None else 0

    def stats(self) -> CoreStats:
        r = self._report
        alive = self.process is not None and not self._stopping
        return CoreStats(self.queue_depth(), r.rows if r else 0, r.cache_bytes if r else 0, alive)

    def _readable(self) -> None:
        """One message per wake-up (the loop calls again while the pipe is readable): no
        `Connection.poll`, which builds a selector each time."""
        try:
            batch, report = self._events.recv()
        except (EOFError, OSError):
            return self._lost()
        self._report = report
        if batch:
            self._deliver(process.unpacked(batch))
        self.metrics.observe_steps(report.step_stats(), report.rows, report.queued, report.cache_bytes)

    def _lost(self) -> None:
        self._loop.remove_reader(self._events.fileno())
        if self._stopping:
            return
        self._stopping = True
        self.process.join(timeout=5)
        error = EngineDown(f"the engine process exited ({self._exit()})")
        log.error("%s: failing the calls in flight", error)
        self._on_exit(error)

    def _exit(self) -> str:
        code = self.process.exitcode
        if code is None:
            return "still running"
        return f"killed by signal {-code}" if code < 0 else f"exit code {code}"
