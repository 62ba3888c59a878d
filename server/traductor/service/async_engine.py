"""The bridge between asyncio (gRPC handlers) and the engine thread.

    handler (event loop)                      engine thread
    ────────────────────                      ─────────────
    tokenize, check limits
    scheduler.submit_many(requests) ──────▶   step(): admit, decode, select
      (one request, or a text's segments)
    await queue.get()          ◀───────────   request.sink(event) via call_soon_threadsafe
    finally: request.cancelled = True  ────▶  next step: the request leaves, its rows are freed

ONNX Runtime only ever runs on the engine thread, so the event loop stays free for health
checks and new requests while the model works.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from contextlib import aclosing
from contextvars import ContextVar
from typing import AsyncIterator

from ..engine.request import FinishEvent, Request, TokenEvent
from ..engine.scheduler import Scheduler
from ..errors import Draining, InvalidInput
from ..model.tokenizer import Tokenizer
from ..options import DecodingOptions, Limits, resolve
from ..text import TextLimits
from .metrics import Metrics

log = logging.getLogger("traductor.engine")


# The interceptor puts a dict here for each RPC; generate() adds what the request did, and the
# interceptor writes it as the RPC's one log line.
request_summary: ContextVar[dict | None] = ContextVar("request_summary", default=None)


def _summarize(event: FinishEvent) -> None:
    summary = request_summary.get()
    if summary is None:
        return
    t = event.timings
    summary["input_tokens"] = summary.get("input_tokens", 0) + event.input_tokens
    summary["output_tokens"] = summary.get("output_tokens", 0) + len(event.token_ids)
    summary["finish"] = event.reason.value
    for name in ("queue", "encode", "decode", "first_token"):
        summary[f"{name}_ms"] = round(max(summary.get(f"{name}_ms", 0.0), getattr(t, name) * 1000), 2)


class AsyncEngine:
    def __init__(
        self,
        scheduler: Scheduler,
        tokenizer: Tokenizer,
        limits: Limits,
        max_input_chars: int,
        metrics: Metrics,
        max_segments: int = TextLimits.max_segments,
        memory: dict[str, str] | None = None,
    ):
        self.scheduler, self.tokenizer, self.limits = scheduler, tokenizer, limits
        # the translation memory (source -> translation), read by service/texts.py; {} with --no-memory
        self.memory = memory or {}
        self.max_input_chars, self.metrics = max_input_chars, metrics
        # the text-level limits of one request (a text is cut into segments: service/texts.py)
        self.text_limits = TextLimits(max_chars=max_input_chars, max_segments=max_segments)
        self.draining = False
        self.in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._outbox: list[tuple[asyncio.Queue, TokenEvent | FinishEvent]] = []  # engine thread only
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="traductor-engine", daemon=True)

    # ---- the engine thread ----------------------------------------------------------------

    def start(self) -> None:
        """Start the engine thread; call from the event loop that will make the requests."""
        self._loop = asyncio.get_running_loop()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.scheduler.wake()
        if self._thread.is_alive():  # not started when start-up was stopped before it
            self._thread.join(timeout=10)

    def _run(self) -> None:
        s = self.scheduler
        while not self._stop.is_set():
            if not s.wait_for_work(timeout=0.5):
                continue
            try:
                s.step()
            except Exception:  # the scheduler fails requests itself; this is the last line of defence
                log.exception("engine step raised; continuing")
            self._flush()
            self.metrics.observe_step(s.last, s.cache.rows, s.queue_depth(), s.cache.nbytes())

    def _flush(self) -> None:
        """Hand the step's events to the event loop in one wake-up (not one per token)."""
        if not self._outbox:
            return
        batch, self._outbox = self._outbox, []
        try:
            self._loop.call_soon_threadsafe(_deliver, batch)
        except RuntimeError:  # the loop is closed (shutdown): nobody is left to receive them
            log.debug("%d event(s) dropped: event loop closed", len(batch))

    # ---- called on the event loop ---------------------------------------------------------

    def prepare(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str], DecodingOptions]:
        """Tokenize and check a request; raises InvalidInput with a message for the caller."""
        if not text or not text.strip():
            raise InvalidInput("text is empty")
        if len(text) > self.max_input_chars:
            raise InvalidInput(f"text is {len(text)} characters, over the limit of {self.max_input_chars}")
        ids, values = self.tokenizer.encode(text)
        return ids, values, resolve(options, len(ids), self.limits)

    async def generate(
        self,
        text: str,
        options: DecodingOptions,
        request_id: str = "",
        timeout: float | None = None,
        stream: bool = True,
        prepared: tuple | None = None,
    ) -> AsyncIterator[TokenEvent | FinishEvent]:
        """Submit one request and yield its events until the FinishEvent (inclusive).

        With stream=False only the FinishEvent comes (no per-token events or detokenizing).
        `prepared` is what `prepare(text, options)` returned, for a caller that checked first."""
        if self.draining:
            raise Draining("the server is shutting down")
        inputs, ids = [prepared or self.prepare(text, options)], [request_id or uuid.uuid4().hex[:16]]
        async with aclosing(self.generate_many(inputs, ids, timeout, stream)) as events:
            async for _, event in events:
                yield event

    async def generate_many(
        self, inputs: list[tuple], request_ids: list[str], timeout: float | None = None, stream: bool = True
    ) -> AsyncIterator[tuple[int, TokenEvent | FinishEvent]]:
        """Submit prepared requests as ONE group and yield (position in `inputs`, event) until every
        one has its FinishEvent. The group is queued at once (`Scheduler.submit_many`), so the
        engine admits all of it in one step when rows are free: the segments of a text decode as
        rows of the same batch. Leaving early (error, cancel) cancels the unfinished ones."""
        if self.draining:
            raise Draining("the server is shutting down")
        if not inputs:
            return
        queue: asyncio.Queue = asyncio.Queue()
        deadline = time.monotonic() + timeout if timeout is not None else None
        requests = []
        for i, ((ids, values, resolved), rid) in enumerate(zip(inputs, request_ids, strict=True)):

            def sink(event, i=i) -> None:  # runs on the engine thread, inside a step
                self._outbox.append((queue, (i, event)))

            requests.append(Request(rid, ids, values, resolved, sink, deadline, stream=stream))
        self.scheduler.submit_many(requests)  # QueueFull propagates: RESOURCE_EXHAUSTED
        self.in_flight += 1
        self._idle.clear()
        left = len(requests)
        try:
            while left:
                i, event = await queue.get()
                if isinstance(event, FinishEvent):
                    self.metrics.observe_finish(event)
                    _summarize(event)
                    left -= 1
                yield i, event
        finally:
            self.in_flight -= 1
            if self.in_flight == 0:
                self._idle.set()
            unfinished = [r for r in requests if not r.done]
            for r in unfinished:  # the caller went away (cancel, disconnect, deadline): stop decoding
                r.cancelled = True
            if unfinished:
                self.scheduler.wake()

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is in flight (drain); False if the timeout passed first."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            pass
        return self.in_flight == 0


def _deliver(batch) -> None:
    for queue, event in batch:
        queue.put_nowait(event)
