"""The engine in a process of its own: what runs on the far side of service/engine_process.py.

    front process (event loop)                 engine process (this module)
    ──────────────────────────                 ────────────────────────────
    ("submit", [Job, ...])    ── jobs pipe ──▶ receiver thread: Scheduler.submit_many
    ("cancel", [key, ...])    ─────────────▶   receiver thread: request.cancelled = True
    ("stop", None), or EOF    ─────────────▶   the step loop ends, the process exits
                              ◀─ events pipe ─ after a step that has news: ([(key, event), ...], Report)

The step loop is the engine thread's (service/engine_thread.py) with nothing beside it: ONNX
Runtime and the scheduler's Python have this interpreter to themselves, so the front's gRPC work
(one message per streamed token) never waits for the engine's hold on the GIL, nor the engine for
the front's. Everything that crosses is pickled: a `Job` in, `TokenEvent`/`FinishEvent`s and a
`Report` out, at most one message per step whatever the batch, and only for a step with news for
the front: events, a change in what the front counts as queued (admissions, refusals), the engine
going idle, or `REPORT_SECONDS` since the last message. A unary call decoding 30 tokens thus costs
two messages (admitted, finished), not 30 wake-ups of the front; the steps in between travel in
the next Report (`steps`), so the step metrics count every one.

This module knows nothing of gRPC, asyncio or metrics; `EngineSpec` is all it is told.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

from ..errors import EngineFailure, TraductorError
from ..options import DecodingOptions
from .bundle import Bundle, load_bundle
from .request import FinishEvent, FinishReason, Request, Timings, TokenEvent
from .runner import ModelRunner
from .scheduler import Scheduler, StepStats

log = logging.getLogger("traductor.engine")
REPORT_SECONDS = 0.1  # a long decode without events still refreshes the front's gauges this often


@dataclass(frozen=True)
class EngineSpec:
    """What it takes to build the engine, here or in the engine process (picklable)."""

    bundle: str  # bundle directory
    threads: int  # ONNX Runtime intra-op threads (0: all cores)
    spin: bool
    max_rows: int
    max_queue: int
    log_level: str = "INFO"
    before_step: Callable[[], None] | None = None  # a test hook (tests/server_harness.py): picklable to cross
    cpus: tuple[int, ...] = ()  # the engine process runs on these cores only (empty: any; --cpu-sharing split)
    device: str = ""  # run the model's weights in PyTorch on this device (torch_weights.py); "": ONNX Runtime
    dtype: str = ""  # with device: the PyTorch runner's (fp16 on CUDA unless given)

    def scheduler(self, bundle: Bundle | None = None) -> Scheduler:
        bundle = bundle or load_bundle(self.bundle, verify=False)  # the front verified the checksums
        if self.device:  # imported here: without --device the engine never imports torch
            from .torch_weights import torch_runner

            runner = torch_runner(bundle, self.device, self.dtype)
        else:
            runner = ModelRunner(bundle, threads=self.threads, max_rows=self.max_rows, spin=self.spin)
        tokenizer = bundle.tokenizer()
        return Scheduler(runner, tokenizer, self.max_rows, self.max_queue, before_step=self.before_step)


@dataclass
class Job:
    """One request as the service hands it to the engine, here or across the pipe."""

    key: int  # the front's handle for the request's events
    request_id: str
    source_ids: list[int]
    values: list[str]
    options: DecodingOptions  # resolved
    deadline: float | None  # time.monotonic(): one clock for every process of the machine
    stream: bool
    arrived: float

    def request(self, sink: Callable[[TokenEvent | FinishEvent], None]) -> Request:
        return Request(
            self.request_id,
            self.source_ids,
            self.values,
            self.options,
            sink,
            deadline=self.deadline,
            stream=self.stream,
            arrived=self.arrived,
        )


@dataclass
class Report:
    """The engine's state after a step, sent with the step's events (the front's metrics and queue)."""

    steps: list[StepStats]  # every step since the last Report, in order
    rows: int
    queued: int
    cache_bytes: int
    received: int  # jobs received so far: the front's queue depth = queued + (sent - received)


def failed(error: BaseException) -> FinishEvent:
    """The finish event of a request the engine could not run."""
    return FinishEvent(FinishReason.ERROR, "", [], [], 0, Timings(), error=error)


def _portable(error: BaseException | None) -> BaseException | None:
    """An error that pickles: ours as they are, any other (logged here already) as an EngineFailure."""
    if error is None or isinstance(error, TraductorError):
        return error
    return EngineFailure(f"{type(error).__name__}: {error}")


def step_when_work(scheduler: Scheduler, timeout: float = 0.5) -> bool:
    """Wait up to `timeout` for work, then take one step; False when there was none. The one loop
    body of both engine cores (this process's EngineLoop, service/engine_thread.py's thread)."""
    if not scheduler.wait_for_work(timeout):
        return False
    try:
        scheduler.step()
    except Exception:  # the scheduler fails requests itself; this is the last line of defence
        log.exception("engine step raised; continuing")
    return True


def cancel(scheduler: Scheduler, requests: dict[int, Request], keys: list[int]) -> None:
    """Mark the requests of `keys` cancelled (those still in `requests`); the next step retires them."""
    for key in keys:
        request = requests.get(key)
        if request is not None:
            request.cancelled = True
    scheduler.wake()


class EngineLoop:
    """The engine process's two threads: the step loop (main thread) and the jobs receiver."""

    def __init__(self, scheduler: Scheduler, jobs, events):
        self.scheduler, self.jobs, self.events = scheduler, jobs, events
        self.requests: dict[int, Request] = {}  # key -> request, until its FinishEvent
        self.outbox: list[tuple[int, TokenEvent | FinishEvent]] = []
        self.lock = threading.Lock()  # the outbox: the receiver adds refusals to it
        self.received = 0
        self.stopping = threading.Event()
        self.steps: list[StepStats] = []  # taken since the last Report
        self.reported = (0, 0)  # (received, queued) as the front last heard them
        self.reported_at = 0.0

    def run(self) -> None:
        threading.Thread(target=self.receive, name="traductor-jobs", daemon=True).start()
        while not self.stopping.is_set():
            if step_when_work(self.scheduler):
                self.steps.append(self.scheduler.last)
            try:
                self.send()
            except OSError:  # the front is gone: nobody is left to receive
                return

    def send(self) -> None:
        """Tell the front what the steps since the last message did, when there is news for it
        (see the module docstring); otherwise the steps wait for the next message."""
        s = self.scheduler
        received = self.received  # read before the queue: a job arriving between is counted queued twice, not 0
        queued, now = s.queue_depth(), time.monotonic()
        with self.lock:
            news = self.outbox or (received, queued) != self.reported or not s.has_work()
            if not (self.outbox or self.steps) or not (news or now - self.reported_at >= REPORT_SECONDS):
                return
            batch, self.outbox = self.outbox, []
        steps, self.steps = self.steps, []
        self.reported, self.reported_at = (received, queued), now
        self.events.send((batch, Report(steps, s.cache.rows, queued, s.cache.nbytes(), received)))

    def sink(self, key: int, event: TokenEvent | FinishEvent) -> None:
        if isinstance(event, FinishEvent):
            self.requests.pop(key, None)
            event.error = _portable(event.error)
        with self.lock:
            self.outbox.append((key, event))

    # ---- the receiver thread ------------------------------------------------------------------

    def receive(self) -> None:
        try:
            while True:
                kind, payload = self.jobs.recv()
                if kind == "submit":
                    self.submit(payload)
                elif kind == "cancel":
                    cancel(self.scheduler, self.requests, payload)
                else:
                    break
        except (EOFError, OSError):  # the front exited (or was killed): stop too
            pass
        self.stopping.set()
        self.scheduler.wake()

    def submit(self, jobs: list[Job]) -> None:
        requests = [job.request(partial(self.sink, job.key)) for job in jobs]
        for job, request in zip(jobs, requests, strict=True):
            self.requests[job.key] = request
        self.received += len(jobs)
        try:
            self.scheduler.submit_many(requests)
        except Exception as e:  # the front checks first; this only keeps a refusal from being lost
            for job in jobs:
                self.sink(job.key, failed(e))
            self.scheduler.wake()


def main(jobs, events, spec: EngineSpec) -> None:
    """The engine process: build the engine, say "ready" (or why not), run steps until told to stop.
    Signals are the front's business: it drains, then stops this process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=spec.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    if spec.cpus:  # before ONNX Runtime makes its threads: they inherit it
        os.sched_setaffinity(0, spec.cpus)
    try:
        scheduler = spec.scheduler()
    except Exception as e:  # the front raises it: one line from the command, or a traceback of ours here
        if not isinstance(e, TraductorError):
            log.exception("the engine process could not start")
        events.send(("failed", _portable(e)))
        return
    events.send(("ready", os.getpid()))
    EngineLoop(scheduler, jobs, events).run()
