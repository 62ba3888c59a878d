"""The engine in a process of its own: what runs on the far side of service/engine_process.py.

    front process (event loop)                 engine process (this module)
    ──────────────────────────                 ────────────────────────────
    ("submit", [Job, ...])    ── jobs pipe ──▶ before a step: Scheduler.submit_many
    ("cancel", [key, ...])    ─────────────▶   before a step: request.cancelled = True
    ("stop", None), or EOF    ─────────────▶   the step loop ends, the process exits
                              ◀─ events pipe ─ after a step that has news: ([(key, event), ...], Report)
    queue check reads `left`  ◀─ shared memory ─ after every step: jobs that left the queue

One thread runs the steps and reads the jobs pipe before each (waiting on it when idle): ONNX
Runtime and the scheduler's Python have this interpreter to themselves, so the front's gRPC work
(one message per streamed token) never waits for the engine's hold on the GIL, nor the engine for
the front's. Everything that crosses the pipes is pickled: a `Job` in, `TokenEvent`/`FinishEvent`s
and a `Report` out, at most one message per step whatever the batch, and only for a step with news
for the front: events, the engine going idle, or `REPORT_SECONDS` of work since the last message
(the gauges of a long decode). A unary call decoding 30 tokens thus costs one message, its finish,
not 30 wake-ups of the front; the steps in between travel in that Report (`steps`), so the step
metrics count every one.

What the front's queue check needs is not a message: the number of jobs that have left the
engine's queue (admitted, refused, failed) is written after every step into a shared integer
(`left`), which the front reads when it checks a call (its queue: jobs sent - left). An admission
thus wakes nobody, and the check reads the engine's state as of its last step.

This module knows nothing of gRPC, asyncio or metrics; `EngineSpec` is all it is told.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import select
import signal
import sys
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, NamedTuple

from ..errors import EngineFailure, TraductorError
from ..options import DecodingOptions
from .bundle import Bundle, load_bundle
from .confidence import bundle_calibration
from .request import FinishEvent, FinishReason, Request, Timings, TokenEvent
from .runner import ModelRunner
from .scheduler import Scheduler, StepStats

log = logging.getLogger("traductor.engine")
REPORT_SECONDS = 0.1  # a long decode without events still refreshes the front's gauges this often
IDLE_WAIT_SECONDS = 0.5  # an idle engine looks up from the jobs pipe this often (nothing to do: it waits again)


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

            runner = torch_runner(bundle, self.device, self.dtype, threads=self.threads)
        else:
            runner = ModelRunner(bundle, threads=self.threads, max_rows=self.max_rows, spin=self.spin)
        tokenizer = bundle.tokenizer()
        calibration = bundle_calibration(bundle.config)  # its threshold on confidence.LOW
        return Scheduler(runner, tokenizer, self.max_rows, self.max_queue, self.before_step, calibration)


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


class Report(NamedTuple):
    """The engine's state after a step, sent with the step's events (the front's metrics).
    A tuple, like what it holds: pickling a dataclass costs ten times as much."""

    steps: list[tuple]  # every step since the last Report, in order: StepStats's fields
    rows: int
    queued: int
    cache_bytes: int

    def step_stats(self) -> list[StepStats]:
        return [StepStats(*fields) for fields in self.steps]


def packed(key: int, event: TokenEvent | FinishEvent) -> tuple:
    """An event as it crosses the pipe: a TokenEvent as the tuple of its fields (a stream sends one
    per token, and a dataclass pickles ten times slower than a tuple), a FinishEvent as it is."""
    return (key, tuple(vars(event).values()) if type(event) is TokenEvent else event)


def unpacked(batch: list[tuple]) -> list[tuple[int, TokenEvent | FinishEvent]]:
    """`packed`'s events back (the front's side)."""
    return [(key, TokenEvent(*e) if type(e) is tuple else e) for key, e in batch]


def failed(error: BaseException) -> FinishEvent:
    """The finish event of a request the engine could not run."""
    return FinishEvent(FinishReason.ERROR, "", [], [], 0, Timings(), error=error)


def _portable(error: BaseException | None) -> BaseException | None:
    """An error that pickles: ours as they are, any other (logged here already) as an EngineFailure."""
    if error is None or isinstance(error, TraductorError):
        return error
    return EngineFailure(f"{type(error).__name__}: {error}")


def step_when_work(scheduler: Scheduler, timeout: float = 0.5) -> bool:
    """Wait up to `timeout` for work, then take one step; False when there was none. The loop
    body of the engine thread (service/engine_thread.py)."""
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
    """The engine process's one thread: it waits on the jobs pipe while there is no work, and
    takes what came on it before every step (after `before_step`, the tests' gate), so a job
    reaches the scheduler with one wake-up of this process, not a receiver thread's and then the
    step loop's. `left` is the shared integer the front's queue check reads (a
    `multiprocessing` RawValue("q"): one aligned 8-byte word, written whole)."""

    def __init__(self, scheduler: Scheduler, jobs, events, left):
        self.scheduler, self.jobs, self.events, self.left = scheduler, jobs, events, left
        self.requests: dict[int, Request] = {}  # key -> request, until its FinishEvent
        self.outbox: list[tuple] = []  # the events of the steps since the last message, `packed`
        self.received = 0
        self.stopping = False
        self.steps: list[StepStats] = []  # taken since the last Report
        self.reported_at = 0.0  # the last message, or the end of the last idle wait
        self.jobs_ready = select.poll()
        self.jobs_ready.register(jobs.fileno(), select.POLLIN)
        self.gate, scheduler.before_step = scheduler.before_step, self.before_step

    def run(self) -> None:
        s = self.scheduler
        while not self.stopping:
            if not s.has_work():
                self.receive(IDLE_WAIT_SECONDS)
                self.reported_at = time.monotonic()  # the front heard of the idle engine: no news since
            if s.has_work() and not self.stopping:
                try:
                    s.step()
                except Exception:  # the scheduler fails requests itself; this is the last line of defence
                    log.exception("engine step raised; continuing")
                self.steps.append(s.last)
            self.left.value = self.received - s.queue_depth()
            try:
                self.send()
            except OSError:  # the front is gone: nobody is left to receive
                return

    def before_step(self) -> None:
        if self.gate is not None:
            self.gate()
        self.receive(0.0)

    def send(self) -> None:
        """Tell the front what the steps since the last message did, when there is news for it
        (see the module docstring); otherwise the steps wait for the next message."""
        s, now = self.scheduler, time.monotonic()
        news = self.outbox or not s.has_work()
        if not (self.outbox or self.steps) or not (news or now - self.reported_at >= REPORT_SECONDS):
            return
        batch, self.outbox = self.outbox, []
        steps, self.steps = [tuple(vars(step).values()) for step in self.steps], []
        self.reported_at = now
        self.events.send((batch, Report(steps, s.cache.rows, s.queue_depth(), s.cache.nbytes())))

    def sink(self, key: int, event: TokenEvent | FinishEvent) -> None:
        if isinstance(event, FinishEvent):
            self.requests.pop(key, None)
            event.error = _portable(event.error)
        self.outbox.append(packed(key, event))

    def receive(self, timeout: float) -> None:
        """Take every message waiting on the jobs pipe, waiting up to `timeout` s for the first."""
        wait_ms = timeout * 1000
        while not self.stopping and self.jobs_ready.poll(wait_ms):
            wait_ms = 0
            try:
                kind, payload = self.jobs.recv()
            except (EOFError, OSError):  # the front exited (or was killed): stop too
                kind = "stop"
            if kind == "submit":
                self.submit(payload)
            elif kind == "cancel":
                cancel(self.scheduler, self.requests, payload)
            else:
                self.stopping = True

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


def main(jobs, events, spec: EngineSpec, left) -> None:
    """The engine process: build the engine, say "ready" (or why not), run steps until told to stop
    (`left`: see EngineLoop). Signals are the front's business: it drains, then stops this process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a stuck front asks for our stacks (service/stall.py)
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
    EngineLoop(scheduler, jobs, events, left).run()
    exit_now()


def exit_now() -> None:
    """End the process without tearing the interpreter down: nothing is left to do once the loop
    has ended, and the teardown's garbage collection of the model's objects is what made a stop
    slow (every engine process of a stall report "Garbage-collecting" for 15 s on a starved
    machine, docs/reliability.md). The log is flushed first."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)
