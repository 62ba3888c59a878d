"""Load shedding: a call the server cannot take is refused before any work is spent on it.

Every refusal is RESOURCE_EXHAUSTED with a retry hint (trailer `grpc-retry-pushback-ms`, honoured by
the client library), is counted in `traductor_shed_requests_total{stage}` besides the usual
`traductor_requests_total{code="RESOURCE_EXHAUSTED"}`, and costs no engine step. Three checks,
earliest first (`stage`):

    accept    the interceptor resolves the method: refused before the request bytes are parsed
    handler   the handler starts, request parsed: refused before the text is tokenized
    queue     the engine core's `submit` finds the queue full (QueueFull): the authoritative check,
              after tokenizing, for the calls that passed the first two together

The first two ask `Admission.refusal()`, before the call's model is known: every model's queue
is full, or as many Translator calls are in progress as the engines can hold together
(`capacity` = models x (rows + queue slots); each accepted call holds at least one of them).
One model's full queue is found by the third check only, so a flood on one model never refuses
the calls of another. GetModelInfo, ListModels and health checks are never refused.

Why not `grpc.aio.server(maximum_concurrent_rpcs=...)`: grpcio then refuses by itself, but every
method alike (health probes too), with no retry hint and unseen by the metrics.

Below all of this, gRPC core keeps the calls that arrived before the server asked for them in a
pending queue; past `grpc.server.max_pending_requests` (default 1000) it cancels some at random, and
the caller sees CANCELLED from a server that never saw the call. `server.py` sets that limit and
its hard limit to `Settings.max_pending_calls`, so that every call of a flood reaches the checks.
This module knows nothing about gRPC; the interceptor (interceptors.py) applies its answers.
"""

from __future__ import annotations

from ..errors import Overloaded

PUSHBACK_TRAILER = "grpc-retry-pushback-ms"
ENGINE_RPCS = frozenset({"Translate", "TranslateStream", "TranslateBatch"})  # the ones shed


class Admission:
    """Counts the Translator calls in progress (event loop only) and says when to refuse one."""

    def __init__(self, models, capacity: int, pushback_ms: int):
        # models: the Registry (models come and go on SIGHUP); capacity: of one model
        self.models, self.per_model, self.pushback_ms = models, capacity, pushback_ms
        self.calls = 0

    @property
    def capacity(self) -> int:
        return self.per_model * max(1, len(self.models))

    def refusal(self) -> str | None:
        """Why a new call cannot be taken now, or None."""
        cores = [m.engine.core for m in self.models]  # engine_core.EngineCore
        if cores and all(c.queue_depth() >= c.max_queue for c in cores):
            return f"the queue is full ({cores[0].max_queue} waiting requests)"
        if self.calls >= self.capacity:
            return f"the server is at capacity ({self.calls} calls in progress)"
        return None

    def check(self, stage: str) -> None:
        """Raise Overloaded if a new call cannot be taken now."""
        reason = self.refusal()
        if reason is not None:
            raise Overloaded(reason, stage)

    def trailers(self) -> tuple[tuple[str, str], ...]:
        """The retry hint sent with every RESOURCE_EXHAUSTED."""
        return ((PUSHBACK_TRAILER, str(self.pushback_ms)),)
