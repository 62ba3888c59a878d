"""Where a stuck process waits: a report written to the log when a start or a stop overruns.

`traductor serve` arms a `Deadline` when it starts (reach SERVING within start_report_seconds)
and another on SIGTERM (exit within the pre-stop window + the grace period + STOP_MARGIN_SECONDS).
One that is not disarmed in time writes, once, from a thread of its own (the event loop may be the
thing that is stuck):

- every thread's stack (names as `threading` knows them),
- every asyncio task's stack (the coroutine each call, drain or start is awaiting),
- the engine processes still alive (multiprocessing's children); then each is asked for its own
  threads' stacks with SIGUSR1, which they write to the same log after the report (engine/process.py
  registers faulthandler for it; a process that has not registered it yet is left alone: SIGUSR1
  would end it).

If a thread holds the GIL and never lets go, that thread cannot run: faulthandler's own watchdog
(C, no GIL needed) dumps the threads' stacks a moment later instead. The process is not stopped:
whoever waits for it (Kubernetes, podman stop) still decides; the report says why it waited.

This module knows nothing of gRPC or of the models; the caller names what is late.
"""

from __future__ import annotations

import asyncio
import faulthandler
import io
import logging
import multiprocessing
import os
import signal
import sys
import threading
import traceback
from pathlib import Path

log = logging.getLogger("traductor.stall")
STOP_MARGIN_SECONDS = 2.0  # after the pre-stop window and the grace period: a stop still running is stuck
FALLBACK_SECONDS = 1.0  # faulthandler's GIL-free dump follows a report that could not be written


class Deadline:
    """`what` must be done within `seconds` (call `done()`); otherwise its report goes to the log."""

    def __init__(
        self, what: str, seconds: float, loop: asyncio.AbstractEventLoop | None = None, level: int = logging.ERROR
    ):
        self.what, self.seconds, self.loop, self.level = what, seconds, loop, level
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._wait, name="traductor-deadline", daemon=True)
        self._fallback = faulthandler_stream()
        if self._fallback is not None:
            faulthandler.dump_traceback_later(seconds + FALLBACK_SECONDS, exit=False, file=self._fallback)
        self._thread.start()

    def done(self) -> None:
        if not self._over.is_set():
            self._over.set()
            if self._fallback is not None:
                faulthandler.cancel_dump_traceback_later()

    def _wait(self) -> None:
        if self._over.wait(self.seconds):
            return
        text, engines = report(self.loop)
        log.log(self.level, "%s not done after %.1f s: where it waits\n%s", self.what, self.seconds, text)
        self.done()  # written: faulthandler's dump is not needed
        for pid in engines:
            if catches(pid, signal.SIGUSR1):
                log.log(self.level, "engine process %d: its threads' stacks follow (faulthandler, SIGUSR1)", pid)
                os.kill(pid, signal.SIGUSR1)


def faulthandler_stream():
    """The log's stream when it has a file descriptor (faulthandler writes to one); else None."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return sys.stderr


def report(loop: asyncio.AbstractEventLoop | None) -> tuple[str, list[int]]:
    """Every thread's stack, every task's (when given the loop), the engine processes alive; and
    the engine processes' ids."""
    out = io.StringIO()
    names = {t.ident: t.name for t in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        if ident == threading.get_ident():
            continue  # this report's own thread
        out.write(f"--- thread {names.get(ident, '?')} ({ident})\n")
        out.write("".join(traceback.format_stack(frame)))
    if loop is not None:
        for task in _tasks(loop):
            out.write(f"--- task {task.get_name()}, awaiting:\n")
            out.write("".join(traceback.format_list(_awaiting(task.get_coro()))))
    engines = _children()
    for process in engines:
        out.write(f"--- engine process {process.pid} ({process.name}) alive\n")
    if not engines:
        out.write("--- engine processes: none alive\n")
    return out.getvalue(), [p.pid for p in engines]


def _tasks(loop: asyncio.AbstractEventLoop) -> list[asyncio.Task]:
    for _ in range(3):  # read from another thread: the set can change meanwhile
        try:
            return sorted(asyncio.all_tasks(loop), key=lambda t: t.get_name())
        except RuntimeError:
            continue
    return []


def _awaiting(coro) -> list[traceback.FrameSummary]:
    """Where a task waits: its coroutine's frame, then each coroutine or generator it awaits, in turn."""
    frames = []
    while coro is not None and len(frames) < 100:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        frames.append(traceback.FrameSummary(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None) or getattr(coro, "gi_yieldfrom", None)
    return frames


def _children() -> list[multiprocessing.Process]:
    for _ in range(3):
        try:
            return [p for p in multiprocessing.active_children() if p.pid is not None]
        except RuntimeError:  # the set of children changed while it was read (another thread)
            continue
    return []


def catches(pid: int, sig: int) -> bool:
    """Whether process `pid` has a handler for `sig` (Linux: /proc/PID/status SigCgt); False when
    unknown. A signal a process does not catch may end it: SIGUSR1's default action does."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    except (OSError, StopIteration, ValueError):
        return False
    return bool(caught >> (sig - 1) & 1)
