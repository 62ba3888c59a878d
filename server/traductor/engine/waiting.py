"""The waiting queue: requests submitted from any thread, taken by the engine thread in arrival order.

    submit_many(requests)    one group (the segments of one text) queued all or none; QueueFull
                             when the queue is already full
    take(free)               the waiting requests that fit in `free` rows (no overtaking)
    take_stopped(now)        the waiting requests cancelled or past their deadline

It owns the queue, its lock and the condition the engine thread sleeps on: the only part of the
scheduler that other threads touch (with `Request.cancelled`). It does not know the running rows,
the model or decoding: the scheduler (a `WaitingQueue`) says how many rows are free.
"""

from __future__ import annotations

import threading
from collections import deque

from ..errors import QueueFull
from .request import Request


class WaitingQueue:
    def __init__(self, max_rows: int, max_queue: int):
        self.max_rows, self.max_queue = max_rows, max_queue
        self.waiting: deque[Request] = deque()
        self.lock = threading.Lock()
        self.work = threading.Condition(self.lock)

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

    def wake(self) -> None:
        with self.work:
            self.work.notify_all()

    # ---- the engine thread ----------------------------------------------------------------

    def take(self, free: int) -> list[Request]:
        """The waiting requests that fit in `free` rows, in arrival order (no overtaking)."""
        batch: list[Request] = []
        with self.lock:
            while self.waiting and self.waiting[0].n_rows <= free:
                req = self.waiting.popleft()
                free -= req.n_rows
                batch.append(req)
        return batch

    def take_stopped(self, now: float) -> list[Request]:
        """The waiting requests cancelled or past their deadline, out of the queue."""
        with self.lock:
            stopped = [r for r in self.waiting if r.stopped(now)]
            for r in stopped:
                self.waiting.remove(r)
        return stopped
