"""The bridge between asyncio (gRPC and HTTP handlers) and the engine.

    handler (event loop)                      engine core
    ────────────────────                      ───────────
    tokenize, check limits
    core.submit(jobs)  ──────────────────▶    step(): admit, decode, select
      (one request, or a text's segments)
    await queue.get()  ◀──────────────────    deliver(batch): the step's events, by key
    finally: core.cancel(unfinished keys) ─▶  next step: the requests leave, their rows are freed

The core is where the steps run (`engine_core.EngineCore`): `engine_process.ProcessCore` (a process
of its own, the default) or `engine_thread.ThreadCore` (an engine thread in this process,
`--no-engine-process`). Each request has a key; the core hands back (key, event) pairs and never
sees a queue. ONNX Runtime never runs on the event loop, so it stays free for health checks and
new requests while the model works. One AsyncEngine per served model (service/registry.py); when
its engine process dies, the calls it held fail (UNAVAILABLE) and the registry gives it a new
core (`replace_core`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import uuid
from contextlib import aclosing
from contextvars import ContextVar
from typing import AsyncIterator, Collection

from ..engine.process import Job, failed
from ..engine.request import FinishEvent, TokenEvent
from ..errors import BundleError, Draining, EngineDown, InvalidInput
from ..model.tokenizer import Tokenizer
from ..options import DecodingOptions, Limits, resolve
from ..text import TextLimits, register_convert
from .engine_core import EngineCore
from .metrics import ModelMetrics

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
        core: EngineCore,
        tokenizer: Tokenizer,
        limits: Limits,
        max_input_chars: int,
        metrics: ModelMetrics,
        max_segments: int = TextLimits.max_segments,
        memory: dict[str, str] | None = None,
        language: str = "",
        target: str = "",
    ):
        self.core, self.tokenizer, self.limits = core, tokenizer, limits
        for register in tokenizer.rewrites:  # a register delivered by a rewrite needs the target's rules
            try:
                register_convert.check(register, target)
            except ValueError as e:
                raise BundleError(f"register_rewrites: {e}") from e
        # the model's source language: its rules split a text's sentences (service/pipeline/cut.py)
        self.language = language
        # its default target language: the verifier's checks read punctuation by it (service/pipeline/verify.py)
        self.target = target
        # the translation memory (source -> translation), read by service/pipeline/protect.py; {} with --no-memory
        self.memory = memory or {}
        self.metrics = metrics
        # the text-level limits of one request (a text is cut into segments: service/pipeline/cut.py)
        self.text_limits = TextLimits(max_chars=max_input_chars, max_segments=max_segments)
        self.draining = False
        self.in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._keys = itertools.count()
        self._waiters: dict[int, tuple[asyncio.Queue, int]] = {}  # key -> (its call's queue, position)
        self.down = asyncio.Event()  # set when the core exited: the registry restarts it
        self.down_error: EngineDown | None = None

    @property
    def model(self) -> str:
        return self.metrics.model

    def rewritten(self, register: str) -> bool:
        """Whether the model delivers `register` by rewriting its output in another (its config.json's
        `register_rewrites`: the text pipeline's register stage rewrites, service/pipeline/register.py)."""
        return register in self.tokenizer.rewrites

    def start(self) -> None:
        """Start the core's steps; call from the event loop that will make the requests."""
        self.core.start(self._deliver, self._core_down)

    def replace_core(self, core: EngineCore) -> None:
        """Serve from `core` (started here) after the old one died: new calls are taken again."""
        self.core = core
        self.down_error = None
        self.down = asyncio.Event()
        self.start()

    def stop(self, wait: bool = True) -> None:
        self.core.stop(wait)

    def _deliver(self, batch: list[tuple[int, TokenEvent | FinishEvent]]) -> None:
        for key, event in batch:
            waiter = self._waiters.pop(key, None) if isinstance(event, FinishEvent) else self._waiters.get(key)
            if waiter is not None:  # None: its call left already
                queue, position = waiter
                queue.put_nowait((position, event))

    def _core_down(self, error: EngineDown) -> None:
        """The engine process died: every request in flight ends with `error` (UNAVAILABLE), and so
        does every new one until `replace_core`."""
        self.down_error = error
        self._deliver([(key, failed(error)) for key in list(self._waiters)])
        self.down.set()

    # ---- called on the event loop ---------------------------------------------------------

    def prepare(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str], DecodingOptions]:
        """Tokenize one segment and check its options; raises InvalidInput with a message for the
        caller. (A caller's whole text is checked, empty or too long, by the pipeline's prepare, which cuts
        it into segments.)"""
        ids, values = self.encode(text, options)
        return ids, values, resolve(options, len(ids), self.limits)

    def encode(self, text: str, options: DecodingOptions) -> tuple[list[int], list[str]]:
        """Text -> (source ids, placeholder values) in the call's languages: a multilingual model's
        target (OPUS-MT's >>xx<< goes into the source) and a many-to-many model's source (NLLB's
        source token starts it); InvalidInput for a code the model lacks. A model with one target
        ignores the target, one without source tokens the source (the registry routed the call by
        them). The one place requests are tokenized (the pipeline's cut and protect too)."""
        self._check("target_language", options.target_language, self.tokenizer.languages)
        self._check("source_language", options.source_language, self.tokenizer.source_languages)
        return self.tokenizer.encode(
            text, options.target_language or None, options.source_language or None, options.register
        )

    def _check(self, field: str, code: str, own: Collection[str]) -> None:
        if code and own and self.tokenizer.own_language(code) not in own:
            known = ", ".join(sorted(self.tokenizer.codes.shown(c) for c in own))
            raise InvalidInput(f"{field} {code!r} is not one of the model's ({known})")

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
        if self.down_error is not None:
            raise self.down_error
        queue: asyncio.Queue = asyncio.Queue()
        deadline = time.monotonic() + timeout if timeout is not None else None
        now, jobs = time.monotonic(), []
        for i, ((ids, values, resolved), rid) in enumerate(zip(inputs, request_ids, strict=True)):
            jobs.append(Job(next(self._keys), rid, ids, values, resolved, deadline, stream, now))
            self._waiters[jobs[-1].key] = (queue, i)
        try:
            self.core.submit(jobs)  # QueueFull propagates: RESOURCE_EXHAUSTED
        except BaseException:
            for job in jobs:
                del self._waiters[job.key]
            raise
        self.in_flight += 1
        self._idle.clear()
        left = len(jobs)
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
            unfinished = [job.key for job in jobs if self._waiters.pop(job.key, None) is not None]
            if unfinished:  # the caller went away (cancel, disconnect, deadline): stop decoding
                self.core.cancel(unfinished)

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is in flight (drain); False if the timeout passed first."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            pass
        return self.in_flight == 0
