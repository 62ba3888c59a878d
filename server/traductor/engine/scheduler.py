"""The scheduler: continuous batching around the KV cache. One call to `step()` is one turn of

    1. retire    cancelled and past-deadline requests leave before any work is spent on them
    2. admit     waiting requests join while rows are free; their sources are encoded together
                 (encoder once per request), their cross-attention K/V written into the cache
    3. decode    ONE decoder step for every active row of every request
    4. select    greedy / sampled / beam tokens; events to each request's sink
    5. finish    requests at EOS or max length leave at once and free their rows

Requests never wait for each other to finish: a new one joins at the next step. Everything here
runs on one thread (the engine thread); `submit` and `Request.cancelled` are the only things
touched from other threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import QueueFull
from ..model.tokenizer import Tokenizer
from . import selection
from .cache import KVCache
from .request import BeamState, Detokenizer, FinishEvent, FinishReason, Request, TokenEvent
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
        # Placeholder constraint (as in model/generate.py): a <phK> token only while the source
        # has an unused occurrence of it; EOS only once all of them are out.
        self.placeholder_ids = tokenizer.placeholder_ids if tokenizer is not None else frozenset()
        self.placeholder_cols = np.array(sorted(self.placeholder_ids), dtype=np.int64)
        self._step_views: tuple = (-1, None, None)
        self.before_step = before_step  # test hook: a gate that holds the engine between steps
        self.last = StepStats()

    # ---- called from any thread ---------------------------------------------------------

    def submit(self, request: Request) -> None:
        if request.n_rows > self.max_rows:
            raise ValueError(f"beam_size {request.n_rows} exceeds the {self.max_rows} rows of the engine")
        with self.work:
            if len(self.waiting) >= self.max_queue:
                raise QueueFull(f"the queue is full ({self.max_queue} waiting requests)")
            self.waiting.append(request)
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
        if self.before_step is not None:
            self.before_step()
        stats = StepStats()
        now = time.monotonic()
        self._retire_stopped(now)
        self._admit(stats)
        if self.active:
            t0 = time.monotonic()
            try:
                self._decode_and_select()
            except Exception as e:  # a fault in the batch: fail its requests, keep the engine alive
                log.exception("decode step failed; failing %d request(s)", len(self.active))
                for req in list(self.active):
                    self._finish(req, FinishReason.ERROR, error=e)
            stats.rows, stats.step_seconds = self.cache.rows, time.monotonic() - t0
        self.last = stats

    def _retire_stopped(self, now: float) -> None:
        with self.lock:
            stopped = [r for r in self.waiting if r.cancelled or (r.deadline is not None and now >= r.deadline)]
            for r in stopped:
                self.waiting.remove(r)
        for r in stopped + [r for r in self.active if r.cancelled or (r.deadline is not None and now >= r.deadline)]:
            self._finish(r, FinishReason.CANCELLED if r.cancelled else FinishReason.DEADLINE)

    def _admit(self, stats: StepStats) -> None:
        batch: list[Request] = []
        free = self.max_rows - self.cache.rows
        with self.lock:
            while self.waiting and self.waiting[0].n_rows <= free:
                req = self.waiting.popleft()
                free -= req.n_rows
                batch.append(req)
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
            r.rows, rows = rows[: r.n_rows], rows[r.n_rows :]
            r.admitted, r.encode_seconds, r.decode_started = t0, elapsed, now
            r.required = Counter(t for t in r.source_ids if t in self.placeholder_ids)
            r.ph_left = Counter(r.required)
            if r.stream:
                r.detokenizer = Detokenizer(self.tokenizer, r.values)
            if r.options.sampling:
                r.rng = np.random.default_rng(r.options.seed)
            if r.n_rows > 1:
                K = r.n_rows
                r.beam = BeamState(
                    np.array([0.0] + [-np.inf] * (K - 1)),
                    np.zeros(K, bool),
                    np.zeros(K),
                    np.zeros((K, 0), dtype=np.int64),
                    np.zeros((K, 0)),
                )
            self.row_request.extend([r] * r.n_rows)
            self.tokens[r.rows] = self.bos_id
            self.positions[r.rows] = 0
            self.active.append(r)
        stats.admitted, stats.encode_seconds = len(batch), elapsed

    def _decode_and_select(self) -> None:
        B = self.cache.rows
        self.cache.ensure_positions(int(self.positions[:B].max()))
        past, cross, padding = self.cache.views()
        if self._step_views[0] != B:  # stable view objects keep the runner's bindings valid
            self._step_views = (B, self.tokens[:B, None], self.positions[:B])
        _, tokens, positions = self._step_views
        logits, new_kv = self.runner.step(tokens, positions, padding, past, cross)
        self.cache.append(new_kv, self.positions)
        self.positions[:B] += 1
        now = time.monotonic()
        # Phase 1: choose every request's token(s) while rows are as the step saw them.
        # Phase 2: apply the choices; a request that finishes frees its rows and moves the last
        # rows into the holes, so nothing reads `logits` by row after that starts.
        choices = [(req, self._choose_beam(req, logits)) for req in self.active if req.beam is not None]
        plain = [req for req in self.active if req.beam is None]
        if plain:
            choices += zip(plain, self._choose_plain(plain, logits))
        for req, choice in choices:
            try:
                if req.beam is not None:
                    self._apply_beam(req, *choice, now)
                else:
                    self._apply_token(req, *choice, now)
            except Exception as e:  # a fault in one request fails that request only
                log.exception("request %s failed", req.id)
                self._finish(req, FinishReason.ERROR, error=e)

    def _choose_plain(self, plain: list[Request], logits: np.ndarray) -> list[tuple[int, float | None]]:
        """Greedy and sampled requests (one row each): one vectorised argmax for all of them."""
        rows = np.fromiter((r.rows[0] for r in plain), dtype=np.int64, count=len(plain))
        scored = [i for i, r in enumerate(plain) if r.options.return_scores]
        pending = [r for r in plain if +r.ph_left]  # sources with placeholders not yet produced
        suppress = [r.rows[0] for r in plain if len(r.tokens) < r.options.min_new_tokens] + [r.rows[0] for r in pending]
        if scored:  # log p under the unsuppressed softmax, as the reference reports it
            original = logits[rows[scored]].copy()
        if self.placeholder_cols.size:  # ban every placeholder, then re-allow each row's unused ones
            allowed = [(r.rows[0], [p for p, n in r.ph_left.items() if n > 0]) for r in pending]
            kept = [logits[row, cols].copy() for row, cols in allowed]
            logits[: self.cache.rows, self.placeholder_cols] = -np.inf
            for (row, cols), values in zip(allowed, kept):
                logits[row, cols] = values
        if suppress:
            logits[suppress, self.eos_id] = -np.inf  # the buffer is ours until the next step
        tokens = logits[: self.cache.rows].argmax(axis=-1)[rows]
        for i, r in enumerate(plain):
            if r.options.sampling:
                o = r.options
                tokens[i] = selection.sample(logits[rows[i]], o.temperature, o.top_k, o.top_p, r.rng)
        logps: list[float | None] = [None] * len(plain)
        if scored:
            for j, lp in zip(scored, selection.token_logprobs(original, tokens[scored])):
                logps[j] = float(lp)
        return list(zip(tokens.tolist(), logps))

    def _apply_token(self, req: Request, token: int, logp: float | None, now: float) -> None:
        self.tokens[req.rows[0]] = token
        if token == self.eos_id:
            return self._finish(req, FinishReason.EOS)
        self._emit_token(req, token, logp, now)
        if len(req.tokens) >= req.options.max_new_tokens:
            self._finish(req, FinishReason.LENGTH)

    def _emit_token(self, req: Request, token: int, logp: float | None, now: float) -> None:
        req.tokens.append(token)
        if req.ph_left[token] > 0:
            req.ph_left[token] -= 1
        if logp is not None:
            req.logprobs.append(logp)
        if not req.first_token:
            req.first_token = now
        if req.stream:
            delta = req.detokenizer.push(token)
            req.sink(TokenEvent(len(req.tokens) - 1, token, delta, logp if logp is not None else 0.0))

    def _choose_beam(self, req: Request, logits: np.ndarray):
        s, o, K = req.beam, req.options, req.n_rows
        logp = selection.log_softmax(logits[np.asarray(req.rows)])
        if s.prefixes.shape[1] < o.min_new_tokens:
            logp[:, self.eos_id] = -np.inf
        if self.placeholder_cols.size:
            for k in range(K):
                left = req.required - Counter(s.prefixes[k].tolist())
                logp[k, [p for p in self.placeholder_cols.tolist() if left[p] <= 0]] = -np.inf
                if +left:
                    logp[k, self.eos_id] = -np.inf
        return selection.beam_step(logp, s.scores, s.finished, self.pad_id, K)

    def _apply_beam(self, req: Request, scores: np.ndarray, source: np.ndarray, token: np.ndarray, now: float) -> None:
        s, K = req.beam, req.n_rows
        rows = np.asarray(req.rows)
        if not np.array_equal(source, np.arange(K)):
            self.cache.reorder(rows, rows[source])
        was_finished = s.finished[source]
        s.logprobs = np.concatenate([s.logprobs[source], (scores - s.scores[source])[:, None]], axis=1)
        s.scores = scores
        s.lengths = s.lengths[source] + (~was_finished)
        s.finished = was_finished | (token == self.eos_id)
        s.prefixes = np.concatenate([s.prefixes[source], token[:, None]], axis=1)
        self.tokens[rows] = token
        if not s.finished.all() and s.prefixes.shape[1] < req.options.max_new_tokens:
            return
        k = selection.best_beam(s.scores, s.lengths)
        best = s.prefixes[k].tolist()
        ended = self.eos_id in best
        scores = req.options.return_scores
        for t, logp in zip(best[: best.index(self.eos_id)] if ended else best, s.logprobs[k].tolist()):
            if t == self.pad_id:  # the hypothesis, streamed at once
                break
            self._emit_token(req, t, logp if scores else None, now)
        self._finish(req, FinishReason.EOS if ended else FinishReason.LENGTH)

    # ---- leaving --------------------------------------------------------------------------

    def _finish(self, req: Request, reason: FinishReason, error: BaseException | None = None) -> None:
        if req.done:
            return
        req.done = True
        if req in self.active:
            self._free_rows(req)
        now = time.monotonic()
        text, rest = ("", "")
        try:
            if error is None and req.detokenizer is not None:
                text, rest = req.detokenizer.finish()
            elif error is None and self.tokenizer is not None:
                text = self.tokenizer.decode(req.tokens, req.values)
        except Exception as e:  # the request fails, but it still gets its finish event (done is set)
            log.exception("request %s failed while finishing", req.id)
            reason, error = FinishReason.ERROR, e
        try:
            req.sink(
                FinishEvent(
                    reason,
                    text,
                    list(req.tokens),
                    list(req.logprobs),
                    len(req.source_ids),
                    req.timings(now),
                    rest,
                    error,
                )
            )
        except Exception:
            log.exception("sink of request %s failed on finish", req.id)

    def _free_rows(self, req: Request) -> None:
        self.active.remove(req)
        moves = self.cache.remove_rows(req.rows)
        for old, new in moves.items():
            owner = self.row_request[old]
            owner.rows = [new if r == old else r for r in owner.rows]
            self.row_request[new] = owner
            self.tokens[new], self.positions[new] = self.tokens[old], self.positions[old]
        del self.row_request[self.cache.rows :]
