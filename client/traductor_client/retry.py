"""Retry policy: exponential backoff with full jitter on UNAVAILABLE, and the server's own retry
hint on RESOURCE_EXHAUSTED.

Why UNAVAILABLE: it is the one code meaning "this request never reached a working server"
(not started yet, draining, connection refused), so sending it again is safe and may succeed.
RESOURCE_EXHAUSTED means the server refused the call before doing any work because it is full:
retried only when the server says when (trailer ``grpc-retry-pushback-ms``, sent by traductor
with every overload refusal), after at least that long; without the hint, retrying would only add
load. A pushback on any code overrides the backoff; a negative one means "do not retry".
INVALID_ARGUMENT would fail again; DEADLINE_EXCEEDED may mean the work was done; INTERNAL is a bug.

Full jitter (sleep a uniform random time in [0, cap]) spreads the retries of many clients that
failed together, instead of having them come back in synchronised waves. The total time spent,
retries and sleeps included, stays within the call's deadline: a retry whose backoff would not
leave any time for the attempt itself is not made and the last error is raised instead.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Callable, Optional

import grpc

from traductor_client.errors import TranslatorError

#: Called before each retry's sleep with (attempt that failed, its error, delay in seconds).
RetryHook = Callable[[int, TranslatorError, float], None]


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` counts the first attempt: 1 disables retrying."""

    max_attempts: int = 4
    initial_backoff: float = 0.1
    max_backoff: float = 2.0
    multiplier: float = 2.0
    on_retry: Optional[RetryHook] = None  # e.g. for logging; tests use it to observe retries

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.multiplier < 1:
            raise ValueError("backoffs must be >= 0 and the multiplier >= 1")

    def backoff_cap(self, failed_attempt: int) -> float:
        """Upper bound of the sleep after attempt number ``failed_attempt`` (1-based)."""
        return min(self.max_backoff, self.initial_backoff * self.multiplier ** (failed_attempt - 1))

    def backoff(self, failed_attempt: int, rng: random.Random) -> float:
        """Full jitter: uniform in [0, cap]."""
        return rng.uniform(0.0, self.backoff_cap(failed_attempt))


#: A policy that never retries (the load generator uses it to measure the server as it is).
NO_RETRY = RetryPolicy(max_attempts=1)


def is_retryable(error: TranslatorError) -> bool:
    pushback = getattr(error, "pushback_ms", None)
    if pushback is not None and pushback < 0:
        return False  # the server asked not to retry
    if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return pushback is not None
    return error.code == grpc.StatusCode.UNAVAILABLE


def pushback_delay(error: TranslatorError, rng: random.Random) -> Optional[float]:
    """The server's hint in seconds, spread over [hint, 2 x hint) so that the clients refused
    together do not all come back together; None without a hint."""
    pushback = getattr(error, "pushback_ms", None)
    if pushback is None or pushback < 0:
        return None
    return pushback / 1000.0 * (1.0 + rng.random())


class Deadline:
    """An absolute point in time derived from a timeout; ``None`` means no deadline."""

    def __init__(self, timeout: Optional[float]) -> None:
        self._end = None if timeout is None else time.monotonic() + timeout

    def remaining(self) -> Optional[float]:
        """Seconds left (never negative), or None without a deadline."""
        if self._end is None:
            return None
        return max(0.0, self._end - time.monotonic())


def next_delay(
    policy: RetryPolicy, failed_attempt: int, error: TranslatorError, deadline: Deadline, rng: random.Random
) -> Optional[float]:
    """How long to sleep before retrying, or None when ``error`` must be raised now."""
    if not is_retryable(error) or failed_attempt >= policy.max_attempts:
        return None
    hinted = pushback_delay(error, rng)
    delay = hinted if hinted is not None else policy.backoff(failed_attempt, rng)
    remaining = deadline.remaining()
    if remaining is not None and delay >= remaining:
        return None
    if policy.on_retry is not None:
        policy.on_retry(failed_attempt, error, delay)
    return delay
