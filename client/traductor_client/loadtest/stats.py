"""Pure arithmetic for the load generator: percentiles, rates and Poisson arrival times.

Percentiles use linear interpolation between closest ranks (the same definition as NumPy's
default ``method="linear"`` and Excel's PERCENTILE.INC): for ``n`` sorted values and a
percentile ``p`` in [0, 100], the rank is ``h = (n - 1) * p / 100`` and the result is
``x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])``. So p0 is the minimum,
p100 the maximum, and the p50 of an even-sized sample is the mean of the two middle values.
Unlike nearest-rank, the result need not be an observed value, but it moves smoothly as
samples are added, which keeps small runs comparable.
"""

from __future__ import annotations

import math
import random
from typing import Dict, Iterator, Optional, Sequence


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (0..100) of already sorted values, by linear interpolation."""
    if not sorted_values:
        raise ValueError("percentile of an empty sample")
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile must be within [0, 100], got {p}")
    rank = (len(sorted_values) - 1) * p / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = rank - low
    return sorted_values[low] + fraction * (sorted_values[high] - sorted_values[low])


def distribution(values: Sequence[float], points: Sequence[float] = (50, 90, 99)) -> Dict[str, Optional[float]]:
    """``{"count", "mean", "p50", ..., "max"}`` of ``values`` (unsorted); None where empty."""
    ordered = sorted(values)
    result: Dict[str, Optional[float]] = {"count": len(ordered)}
    result["mean"] = sum(ordered) / len(ordered) if ordered else None
    for point in points:
        result[f"p{point:g}"] = percentile(ordered, point) if ordered else None
    result["max"] = ordered[-1] if ordered else None
    return result


def per_second(count: float, elapsed_seconds: float) -> Optional[float]:
    """``count / elapsed_seconds``; 0 when nothing happened, None when no time elapsed (a rate
    over an empty interval is undefined, and JSON has no infinity)."""
    if elapsed_seconds < 0:
        raise ValueError("elapsed time cannot be negative")
    if count == 0:
        return 0.0
    if elapsed_seconds == 0:
        return None
    return count / elapsed_seconds


def poisson_arrivals(rate: float, rng: random.Random) -> Iterator[float]:
    """Arrival times (seconds from the start, increasing) of a Poisson process of ``rate``
    per second: the gaps are independent and exponentially distributed with mean 1/rate.

    Times are absolute offsets rather than gaps so that the sender can sleep until each one
    and a late wake-up does not shift all the following arrivals (no drift).
    """
    if rate <= 0:
        raise ValueError("rate must be positive")
    now = 0.0
    while True:
        now += rng.expovariate(rate)
        yield now


def stream_slot(index: int, fraction: float) -> bool:
    """Whether request number ``index`` (0-based) should stream, for a stream ``fraction``.

    Deterministic and evenly spread: after any ``n`` requests exactly ``floor(n * fraction)``
    streamed, so a small run has the requested mix exactly instead of a random one.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError("stream fraction must be within [0, 1]")
    return math.floor((index + 1) * fraction) > math.floor(index * fraction)
