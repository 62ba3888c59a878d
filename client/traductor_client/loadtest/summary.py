"""Turn one level's samples into the figures reported for it.

Definitions (also in docs/loadtest.md):

* warm-up samples are dropped first;
* ``elapsed_seconds``: from the earliest start to the latest end of the measured requests;
* ``requests_per_second``: successful requests / elapsed; ``output_tokens_per_second``: the
  sum of their ``usage.output_tokens`` / elapsed;
* latency and time-to-first-token distributions cover successful requests only (a fast
  rejection would otherwise look like a fast answer); errors are counted by status code name.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List

from traductor_client.loadtest.runner import Sample
from traductor_client.loadtest.stats import distribution, per_second


def summarize(samples: List[Sample]) -> Dict[str, Any]:
    measured = [s for s in samples if not s.warmup]
    ok = [s for s in measured if s.error is None]
    elapsed = (max(s.end for s in measured) - min(s.start for s in measured)) if measured else 0.0
    output_tokens = sum(s.output_tokens for s in ok)
    return {
        "requests": len(measured),
        "ok": len(ok),
        "errors": dict(sorted(Counter(s.error for s in measured if s.error).items())),
        "streams": sum(1 for s in measured if s.stream),
        "warmup_requests": len(samples) - len(measured),
        "elapsed_seconds": elapsed,
        "requests_per_second": per_second(len(ok), elapsed),
        "output_tokens": output_tokens,
        "output_tokens_per_second": per_second(output_tokens, elapsed),
        "latency_seconds": distribution([s.latency for s in ok]),
        "ttft_seconds": distribution([s.ttft for s in ok if s.stream and s.ttft is not None], points=(50, 99)),
    }
