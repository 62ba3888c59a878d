"""The scheduler: continuous batching around the KV cache. One call to `step()` is one turn of

    1. retire        cancelled and past-deadline requests leave before any work is spent on them
    2. admit         waiting requests join while rows are free; their sources are encoded
                     together (encoder once per request), their cross-attention K/V cached
    3. run           ONE decoder step for every running row of every request
    4. postprocess   greedy / sampled / beam tokens (choice.py: decoding.py on the host, or on
                     the runner's device), events to each request's sink; requests at EOS or max
                     length finish at once and free their rows (an EOS that the loop rule forced
                     finishes as LOOP)

Requests never wait for each other to finish: a new one joins at the next step. Everything here
runs on one thread (the engine thread); `submit`/`submit_many` and `Request.cancelled` are the only
things touched from other threads.

It owns the requests' life (WAITING -> RUNNING -> FINISHED, request.py) and the order of a step's
phases. It reaches the model only through the runner (runner_protocol.Runner: ONNX Runtime's
runner.py or PyTorch's torch_runner.py; `encode` at admission, `step` in run) and keeps no per-row
state itself. Around it: the waiting queue and its lock are waiting.py's
(the scheduler is a `WaitingQueue`); the rows, their tokens, positions and KV cache batch.py's; how
tokens are chosen decoding.py's, and how a beam request's search goes on and ends beams.py's.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..model.constraints import Constraints, looped
from ..model.tokenizer import Tokenizer
from . import beams
from .batch import Batch
from .choice import chooser
from .confidence import confidence
from .request import Detokenizer, FinishEvent, FinishReason, Request, Status, TokenEvent
from .runner_protocol import Runner
from .waiting import WaitingQueue

log = logging.getLogger("traductor.engine")


@dataclass
class StepStats:
    """What the last step did, for metrics."""

    rows: int = 0
    step_seconds: float = 0.0
    encode_seconds: float = 0.0
    admitted: int = 0


class Scheduler(WaitingQueue):
    """The waiting queue (`WaitingQueue`) and the running requests; `step()` moves them on."""

    def __init__(
        self,
        runner: Runner,
        tokenizer: Tokenizer | None,
        max_rows: int,
        max_queue: int,
        before_step: Callable[[], None] | None = None,
        calibration: float = 0.0,  # the model's confidence calibration (confidence.bundle_calibration)
    ):
        m = runner.model
        self.calibration = calibration
        self.runner, self.tokenizer = runner, tokenizer
        super().__init__(max_rows, max_queue)
        self.pad_id, self.bos_id, self.eos_id = m.pad_id, m.bos_id, m.eos_id
        self.batch = Batch(runner.new_cache(max_rows), max_rows)  # the running rows
        self.cache = self.batch.cache
        self.active: list[Request] = []
        # EOS, placeholder and register rules, the same as the PyTorch reference's (model/constraints.py)
        placeholder_ids = tokenizer.placeholder_ids if tokenizer is not None else frozenset()
        register_bans = getattr(tokenizer, "register_bans", {})  # none: a tokenizer without register tags
        self.constraints = Constraints(placeholder_ids, self.eos_id, register_bans)
        self.generation = runner.generation  # an imported model's rules (model/generation.py), or None
        self.choice = chooser(runner)  # where tokens are chosen: the host, or the runner's device
        self.before_step = before_step  # test hook: a gate that holds the engine between steps
        self.last = StepStats()

    # ---- called from any thread (the rest: waiting.py) ----------------------------------

    def has_work(self) -> bool:
        return bool(self.active or self.waiting)

    def wait_for_work(self, timeout: float) -> bool:
        with self.work:
            if not self.has_work():
                self.work.wait(timeout)
            return self.has_work()

    # ---- the engine step ------------------------------------------------------------------

    def step(self) -> None:
        """retire -> admit -> run -> postprocess; what it did goes to `self.last` (metrics)."""
        if self.before_step is not None:
            self.before_step()
        stats = StepStats()
        self._retire(time.monotonic())
        self._admit(stats)
        if self.active:
            self._decode(stats)  # run -> postprocess
        self.last = stats

    # 1. retire

    def _retire(self, now: float) -> None:
        for r in self.take_stopped(now) + [r for r in self.active if r.stopped(now)]:
            self._finish(r, r.stopped(now))

    # 2. admit

    def _admit(self, stats: StepStats) -> None:
        batch = self.take(self.max_rows - self.cache.rows)
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
        rows = self.batch.add(cross, padding, batch, self.bos_id)
        now = time.monotonic()
        for r, mine in zip(batch, rows):
            self._start(r, mine, t0, elapsed, now)
        stats.admitted, stats.encode_seconds = len(batch), elapsed

    def _start(self, r: Request, rows: list[int], admitted: float, encode_seconds: float, now: float) -> None:
        """A request joins the running ones on its rows (BOS at position 0): its decoding state."""
        st = r.state
        st.status, st.rows = Status.RUNNING, rows
        st.admitted, st.encode_seconds, st.decode_started = admitted, encode_seconds, now
        st.required = self.constraints.required(r.source_ids)
        if r.forced_first is None and self.tokenizer is not None:
            r.forced_first = self.tokenizer.forced_first(r.options.target_language or None)
        st.missing = st.required.copy()
        st.register = self.constraints.register(r.source_ids)
        st.repeat_limit = self.constraints.repeat_limit(r.source_ids) if r.options.stop_loops else 0
        if r.stream:
            st.detokenizer = Detokenizer(self.tokenizer, r.values)
        if r.options.sampling:
            st.rng = np.random.default_rng(r.options.seed)
        if r.n_rows > 1:
            st.beam = beams.start(r.n_rows, self.eos_id, self.generation)
        self.active.append(r)

    # 3. run, then 4. postprocess

    def _decode(self, stats: StepStats) -> None:
        """Run, then postprocess; a fault in the batch fails its requests and keeps the engine alive."""
        t0 = time.monotonic()
        try:
            self._postprocess(self._run())
        except Exception as e:
            log.exception("decode step failed; failing %d request(s)", len(self.active))
            for req in list(self.active):
                self._finish(req, FinishReason.ERROR, error=e)
        stats.rows, stats.step_seconds = self.cache.rows, time.monotonic() - t0

    def _run(self):
        """One decoder step over every running row; returns the logits (the runner's buffer: host
        numpy, or a device tensor that the runner's own `choice` reads)."""
        logits, new_kv = self.runner.step(*self.batch.inputs())
        self.batch.advance(new_kv)
        return logits

    def _postprocess(self, logits) -> None:
        """Choose every request's token(s) while rows are as the step saw them, then apply the
        choices: a request that finishes frees its rows and moves the last rows into the holes,
        so nothing reads `logits` by row once that starts."""
        now = time.monotonic()
        with_beam = [r for r in self.active if r.state.beam is not None]
        plain = [r for r in self.active if r.state.beam is None]
        rules, generation = self.constraints, self.generation
        choices = []
        if with_beam:
            choices += zip(with_beam, self.choice.beams(with_beam, logits, rules, generation, self.pad_id))
        if plain:
            choices += zip(plain, self.choice.plain(plain, logits, self.cache.rows, rules, generation))
        for req, choice in choices:
            try:
                if req.state.beam is not None:
                    self._apply_beam(req, *choice, now=now)
                else:
                    self._apply_token(req, *choice, now)
            except Exception as e:  # a fault in one request fails that request only
                log.exception("request %s failed", req.id)
                self._finish(req, FinishReason.ERROR, error=e)

    def _apply_token(self, req: Request, token: int, logp: float, now: float) -> None:
        self.batch.tokens[req.state.rows[0]] = token
        if token == self.eos_id:
            return self._finish(req, self._ended(req, req.state.tokens))
        self._emit_token(req, token, logp, now)
        if len(req.state.tokens) >= req.options.max_new_tokens:
            self._finish(req, FinishReason.LENGTH)

    def _apply_beam(self, req: Request, *choice, now: float):
        self.batch.reorder(np.asarray(req.state.rows), *choice[-2:])
        hypothesis = beams.advance(req, choice, self.eos_id, self.pad_id)
        if hypothesis is None:
            return
        tokens, logprobs, ended = hypothesis
        for t, logp in zip(tokens, logprobs):  # the hypothesis, streamed at once
            self._emit_token(req, t, logp, now)
        self._finish(req, self._ended(req, tokens) if ended else FinishReason.LENGTH)

    def _alternatives(self, req: Request, text: str) -> list[str]:
        """Up to `alternatives` texts of the search's other hypotheses, best first, each different
        from `text` and from the ones before it (two token sequences may spell one text)."""
        found: list[str] = []
        for tokens in beams.others(req, self.eos_id, self.pad_id):
            other = self.tokenizer.decode(tokens, req.values)
            if other != text and other not in found:
                found.append(other)
        return found[: req.options.alternatives]

    def _ended(self, req: Request, tokens: list[int]) -> FinishReason:
        """Why an output that ended with EOS ended: LOOP when the loop rule stopped it, else EOS."""
        return FinishReason.LOOP if looped(tokens, req.state.repeat_limit) else FinishReason.EOS

    def _emit_token(self, req: Request, token: int, logp: float, now: float) -> None:
        """A token out: kept with its log p (the confidence reads them; the caller sees them with return_scores)."""
        st = req.state
        st.tokens.append(token)
        if st.missing[token] > 0:
            st.missing[token] -= 1
        st.logprobs.append(logp)
        if not st.first_token:
            st.first_token = now
        if req.stream:
            delta = st.detokenizer.push(token)
            req.sink(TokenEvent(len(st.tokens) - 1, token, delta, logp if req.options.return_scores else 0.0))

    # ---- leaving --------------------------------------------------------------------------

    def _finish(self, req: Request, reason: FinishReason, error: BaseException | None = None) -> None:
        st = req.state
        if st.status is Status.FINISHED:
            return
        if st.status is Status.RUNNING:
            self.active.remove(req)
            self.batch.remove(req.state.rows)
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
        scores = list(st.logprobs) if req.options.return_scores else []
        event = FinishEvent(reason, text, list(st.tokens), scores, len(req.source_ids), req.timings(now), rest, error)
        if error is None:
            event.confidence = confidence(
                req.source_ids, st.tokens, st.logprobs, self.eos_id, event.cut_short, self.calibration
            )
            if req.options.alternatives and st.beam is not None and self.tokenizer is not None:
                event.alternatives = self._alternatives(req, text)
        try:
            req.sink(event)
        except Exception:
            log.exception("sink of request %s failed on finish", req.id)
