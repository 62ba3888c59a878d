"""The scheduler: continuous batching around the KV cache. One call to `step()` is one turn of

    1. retire        cancelled and past-deadline requests leave before any work is spent on them
    2. admit         waiting requests join while rows are free; their sources are encoded
                     together (encoder once per request), their cross-attention K/V cached
    3. run           ONE decoder step for every running row of every request
    4. postprocess   greedy / sampled / beam tokens (decoding.py), events to each request's
                     sink; requests at EOS or max length finish at once and free their rows

Requests never wait for each other to finish: a new one joins at the next step. Everything here
runs on one thread (the engine thread); `submit`/`submit_many` and `Request.cancelled` are the only
things touched from other threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import QueueFull
from ..model.constraints import Constraints
from ..model.tokenizer import Tokenizer
from . import decoding
from .beam_transformers import TransformersBeam
from .cache import KVCache
from .request import BeamState, Detokenizer, FinishEvent, FinishReason, Request, Status, TokenEvent
from .runner import ModelRunner

log = logging.getLogger("traductor.engine")


@dataclass
class StepStats:
    """What the last step did, for metrics."""

    rows: int = 0
    step_seconds: float = 0.0
    encode_seconds: float = 0.0
    admitted: int = 0


class Scheduler:
    def __init__(
        self,
        runner: ModelRunner,
        tokenizer: Tokenizer | None,
        max_rows: int,
        max_queue: int,
        before_step: Callable[[], None] | None = None,
    ):
        b = runner.bundle
        self.runner, self.tokenizer = runner, tokenizer
        self.max_rows, self.max_queue = max_rows, max_queue
        self.pad_id, self.bos_id, self.eos_id = b.model.pad_id, b.model.bos_id, b.model.eos_id
        self.cache = KVCache(b.n_layers, b.n_heads, b.d_k, max_rows)
        self.tokens = np.zeros(max_rows, dtype=np.int64)  # each row's newest token
        self.positions = np.zeros(max_rows, dtype=np.int64)  # each row's position (= past length)
        self.row_request: list[Request] = []  # row -> request
        self.active: list[Request] = []
        self.waiting: deque[Request] = deque()
        self.lock = threading.Lock()
        self.work = threading.Condition(self.lock)
        # EOS and placeholder rules, the same as the PyTorch reference's (model/constraints.py)
        placeholder_ids = tokenizer.placeholder_ids if tokenizer is not None else frozenset()
        self.constraints = Constraints(placeholder_ids, self.eos_id)
        self.generation = b.config.generation  # an imported model's rules (model/generation.py), or None
        self._step_views: tuple = (-1, None, None)
        self.before_step = before_step  # test hook: a gate that holds the engine between steps
        self.last = StepStats()

    # ---- called from any thread ---------------------------------------------------------

    def submit(self, request: Request) -> None:
        self.submit_many([request])

    def submit_many(self, requests: list[Request]) -> None:
        """Queue one group (the segments of one text) under one lock, all or none, so they are admitted
        together; refused only when the queue is already full (a long text still runs on a quiet engine)."""
        for request in requests:
            if request.n_rows > self.max_rows:
                raise ValueError(f"beam_size {request.n_rows} exceeds the {self.max_rows} rows of the engine")
        with self.work:
            if len(self.waiting) >= self.max_queue:
                raise QueueFull(f"the queue is full ({self.max_queue} waiting requests)")
            self.waiting.extend(requests)
            self.work.notify()

    def queue_depth(self) -> int:
        return len(self.waiting)

    def has_work(self) -> bool:
        return bool(self.active or self.waiting)

    def wait_for_work(self, timeout: float) -> bool:
        with self.work:
            if not self.has_work():
                self.work.wait(timeout)
            return self.has_work()

    def wake(self) -> None:
        with self.work:
            self.work.notify_all()

    # ---- the engine step ------------------------------------------------------------------

    def step(self) -> None:
        """retire -> admit -> run -> postprocess; what it did goes to `self.last` (metrics)."""
        if self.before_step is not None:
            self.before_step()
        stats = StepStats()
        self._retire(time.monotonic())
        self._admit(stats)
        if self.active:
            t0 = time.monotonic()
            try:
                self._postprocess(self._run())
            except Exception as e:  # a fault in the batch: fail its requests, keep the engine alive
                log.exception("decode step failed; failing %d request(s)", len(self.active))
                for req in list(self.active):
                    self._finish(req, FinishReason.ERROR, error=e)
            stats.rows, stats.step_seconds = self.cache.rows, time.monotonic() - t0
        self.last = stats

    # 1. retire

    def _retire(self, now: float) -> None:
        with self.lock:
            stopped = [r for r in self.waiting if r.stopped(now)]
            for r in stopped:
                self.waiting.remove(r)
        for r in stopped + [r for r in self.active if r.stopped(now)]:
            self._finish(r, r.stopped(now))

    # 2. admit

    def _take_waiting(self) -> list[Request]:
        """The waiting requests that fit in the free rows, in arrival order (no overtaking)."""
        batch: list[Request] = []
        free = self.max_rows - self.cache.rows
        with self.lock:
            while self.waiting and self.waiting[0].n_rows <= free:
                req = self.waiting.popleft()
                free -= req.n_rows
                batch.append(req)
        return batch

    def _admit(self, stats: StepStats) -> None:
        batch = self._take_waiting()
        if not batch:
            return
        t0 = time.monotonic()
        try:
            n = max(len(r.source_ids) for r in batch)
            ids = np.full((len(batch), n), self.pad_id, dtype=np.int64)
            for i, r in enumerate(batch):
                ids[i, : len(r.source_ids)] = r.source_ids
            padding = ids == self.pad_id
            cross = self.runner.encode(ids, padding)
        except Exception as e:
            log.exception("encoder failed for %d request(s)", len(batch))
            for r in batch:
                self._finish(r, FinishReason.ERROR, error=e)
            return
        elapsed = time.monotonic() - t0
        rows = self.cache.add_rows(cross, padding, [r.n_rows for r in batch])
        now = time.monotonic()
        for r in batch:
            self._start(r, rows[: r.n_rows], t0, elapsed, now)
            rows = rows[r.n_rows :]
        stats.admitted, stats.encode_seconds = len(batch), elapsed

    def _start(self, r: Request, rows: list[int], admitted: float, encode_seconds: float, now: float) -> None:
        """A request joins the running ones: its rows, its decoding state, BOS at position 0."""
        st = r.state
        st.status, st.rows = Status.RUNNING, list(rows)
        st.admitted, st.encode_seconds, st.decode_started = admitted, encode_seconds, now
        st.required = self.constraints.required(r.source_ids)
        if r.forced_first is None and self.tokenizer is not None:
            r.forced_first = self.tokenizer.forced_first(r.options.target_language or None)
        st.missing = st.required.copy()
        if r.stream:
            st.detokenizer = Detokenizer(self.tokenizer, r.values)
        if r.options.sampling:
            st.rng = np.random.default_rng(r.options.seed)
        if r.n_rows > 1 and self.generation is not None and self.generation.beam == "transformers":
            st.beam = TransformersBeam(r.n_rows, self.eos_id, self.generation)
        elif r.n_rows > 1:
            st.beam = BeamState.start(r.n_rows)
        self.row_request.extend([r] * r.n_rows)
        self.tokens[st.rows] = self.bos_id
        self.positions[st.rows] = 0
        self.active.append(r)

    # 3. run

    def _run(self) -> np.ndarray:
        """One decoder step over every running row; returns the logits (the runner's buffer)."""
        B = self.cache.rows
        self.cache.ensure_positions(int(self.positions[:B].max()))
        past, cross, padding = self.cache.views()
        if self._step_views[0] != B:  # stable view objects keep the runner's bindings valid
            self._step_views = (B, self.tokens[:B, None], self.positions[:B])
        _, tokens, positions = self._step_views
        logits, new_kv = self.runner.step(tokens, positions, padding, past, cross)
        self.cache.append(new_kv, self.positions)
        self.positions[:B] += 1
        return logits

    # 4. postprocess

    def _postprocess(self, logits: np.ndarray) -> None:
        """Choose every request's token(s) while rows are as the step saw them, then apply the
        choices: a request that finishes frees its rows and moves the last rows into the holes,
        so nothing reads `logits` by row once that starts."""
        now = time.monotonic()
        beams = [r for r in self.active if r.state.beam is not None]
        plain = [r for r in self.active if r.state.beam is None]
        choices = [(r, self._choose_beam(r, logits)) for r in beams]
        if plain:
            chosen = decoding.choose_plain(plain, logits, self.cache.rows, self.constraints, self.generation)
            choices += zip(plain, chosen)
        for req, choice in choices:
            try:
                if req.state.beam is not None:
                    self._apply_beam(req, *choice, now=now)
                else:
                    self._apply_token(req, *choice, now)
            except Exception as e:  # a fault in one request fails that request only
                log.exception("request %s failed", req.id)
                self._finish(req, FinishReason.ERROR, error=e)

    def _choose_beam(self, r: Request, logits: np.ndarray) -> tuple:
        if isinstance(r.state.beam, TransformersBeam):
            return decoding.choose_transformers_beam(r, logits, self.constraints, self.generation)
        return decoding.choose_beam(r, logits, self.constraints, self.pad_id)

    def _apply_token(self, req: Request, token: int, logp: float | None, now: float) -> None:
        self.tokens[req.state.rows[0]] = token
        if token == self.eos_id:
            return self._finish(req, FinishReason.EOS)
        self._emit_token(req, token, logp, now)
        if len(req.state.tokens) >= req.options.max_new_tokens:
            self._finish(req, FinishReason.LENGTH)

    def _apply_beam(self, req: Request, *choice, now: float):
        beam, rows = req.state.beam, np.asarray(req.state.rows)
        source, token = choice[-2:]
        if not np.array_equal(source, np.arange(req.n_rows)):
            self.cache.reorder(rows, rows[source])
        self.tokens[rows] = token
        if isinstance(beam, TransformersBeam):  # it moved its beams when it chose them
            if not beam.done:
                return
            tokens, logprobs, ended = beam.best()
        else:
            decoding.advance_beam(beam, choice[0], source, token, self.eos_id)
            if not beam.finished.all() and beam.prefixes.shape[1] < req.options.max_new_tokens:
                return
            tokens, logprobs, ended = decoding.best_hypothesis(beam, self.eos_id, self.pad_id)
        for t, logp in zip(tokens, logprobs):  # the hypothesis, streamed at once
            self._emit_token(req, t, logp if req.options.return_scores else None, now)
        self._finish(req, FinishReason.EOS if ended else FinishReason.LENGTH)

    def _emit_token(self, req: Request, token: int, logp: float | None, now: float) -> None:
        st = req.state
        st.tokens.append(token)
        if st.missing[token] > 0:
            st.missing[token] -= 1
        if logp is not None:
            st.logprobs.append(logp)
        if not st.first_token:
            st.first_token = now
        if req.stream:
            delta = st.detokenizer.push(token)
            req.sink(TokenEvent(len(st.tokens) - 1, token, delta, logp if logp is not None else 0.0))

    # ---- leaving --------------------------------------------------------------------------

    def _finish(self, req: Request, reason: FinishReason, error: BaseException | None = None) -> None:
        st = req.state
        if st.status is Status.FINISHED:
            return
        if st.status is Status.RUNNING:
            self._free_rows(req)
        st.status = Status.FINISHED
        now = time.monotonic()
        text, rest = ("", "")
        try:
            if error is None and st.detokenizer is not None:
                text, rest = st.detokenizer.finish()
            elif error is None and self.tokenizer is not None:
                text = self.tokenizer.decode(st.tokens, req.values)
        except Exception as e:  # the request fails, but it still gets its finish event
            log.exception("request %s failed while finishing", req.id)
            reason, error = FinishReason.ERROR, e
        event = FinishEvent(
            reason, text, list(st.tokens), list(st.logprobs), len(req.source_ids), req.timings(now), rest, error
        )
        try:
            req.sink(event)
        except Exception:
            log.exception("sink of request %s failed on finish", req.id)

    def _free_rows(self, req: Request) -> None:
        self.active.remove(req)
        moves = self.cache.remove_rows(req.state.rows)
        for old, new in moves.items():
            owner = self.row_request[old]
            owner.state.rows = [new if r == old else r for r in owner.state.rows]
            self.row_request[new] = owner
            self.tokens[new], self.positions[new] = self.tokens[old], self.positions[old]
        del self.row_request[self.cache.rows :]
