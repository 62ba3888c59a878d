"""The engine core's interface: what `AsyncEngine`, admission and the registry may ask of it.

Two cores implement it: `engine_process.ProcessCore` (the model in a process of its own, the
default) and `engine_thread.ThreadCore` (an engine thread in this process). Everything else in
the service talks to a core through these methods only, never to its scheduler: a process core
has none on this side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from ..engine.process import Job
from ..engine.request import FinishEvent, TokenEvent

Deliver = Callable[[list[tuple[int, TokenEvent | FinishEvent]]], None]


@dataclass(frozen=True)
class CoreStats:
    """A core's state as this side knows it (a process core: its last report plus what was sent)."""

    queued: int  # requests waiting to join the batch
    rows: int  # KV-cache rows decoding (a beam request holds beam_size of them)
    cache_bytes: int  # bytes of the KV cache held by those rows
    alive: bool  # False once the core has stopped or its process has died


class EngineCore(Protocol):
    max_queue: int  # waiting requests beyond which `submit` raises QueueFull

    def start(self, deliver: Deliver, on_exit: Callable[[BaseException], None]) -> None:
        """Begin stepping; events go to `deliver` on the calling event loop; `on_exit(EngineDown)`
        if the core dies on its own."""

    def stop(self, wait: bool = True) -> None:
        """Stop stepping and release the model (blocking, bounded); with `wait` False, only begin
        to (the registry tells every engine first, then waits for each: they end together)."""

    def submit(self, jobs: list[Job]) -> None:
        """Queue one group, all or none; QueueFull when the queue is full."""

    def cancel(self, keys: list[int]) -> None:
        """Stop the requests of `keys` at the next step (unknown keys are ignored)."""

    def queue_depth(self) -> int: ...

    def stats(self) -> CoreStats: ...
