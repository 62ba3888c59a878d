"""The live progress line on stderr: one line rewritten in place with ``\\r``."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

from traductor_client.loadtest.runner import Sample


class Progress:
    """Counts samples and redraws at most every ``interval`` seconds (drawing is cheap, but
    a terminal flooded with thousands of redraws a second is not)."""

    def __init__(self, enabled: bool, stream: Optional[TextIO] = None, interval: float = 0.25) -> None:
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.interval = interval
        self._label = ""
        self._begin = self._last_draw = 0.0
        self.done = self.errors = 0
        self._width = 0

    def start(self, label: str) -> None:
        self._label = label
        self._begin = time.perf_counter()
        self._last_draw = 0.0
        self.done = self.errors = 0
        self._width = 0

    def __call__(self, sample: Sample) -> None:
        self.done += 1
        self.errors += sample.error is not None
        now = time.perf_counter()
        if self.enabled and now - self._last_draw >= self.interval:
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self._begin
        rate = self.done / elapsed if elapsed > 0 else 0.0
        line = f"{self._label}: {self.done} done, {self.errors} errors, {rate:.1f} req/s, {elapsed:.1f}s"
        padding = " " * max(0, self._width - len(line))  # erase a longer previous line
        self._width = len(line)
        self.stream.write(f"\r{line}{padding}")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
