"""How long a replica's last stop took, from its own log: the stop checks of the container stacks
(tests/compose/churn.sh, tests/kubernetes/checks.sh). Standard library only: it runs with the
host's python3, which has none of traductor's packages.

    podman logs C 2>&1 | python3 tests/stack_stop_time.py "$(podman inspect -f '{{.State.FinishedAt}}' C)"

prints the seconds from the server's first line after SIGTERM ("stopping: NOT_SERVING ..." with a
pre-stop window, "draining: ..." without) in its last run to the exit podman recorded, and, when
that run logged a stall report (service/stall.py: "... not done after N s: where it waits"),
the word "stalled" after them. Exit status 1 when the log has no stop.

    python3 tests/stack_stop_time.py --percentiles 2.1 2.3 7.0 ...

prints the count, p50, p90 and the longest of the times given (words that are not times are skipped).
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone

STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) \w+ traductor\.(\w+) (.*)$")


def stop_seconds(lines: list[str], finished_at: str) -> tuple[float, bool] | None:
    """(seconds from SIGTERM to the exit, a stall report seen) for the last run in `lines`."""
    signalled, stalled = None, False
    for line in lines:
        m = STAMP.match(line)
        if not m:
            continue
        stamp, logger, message = m.groups()
        if logger == "server" and message.startswith("starting: model"):
            signalled, stalled = None, False  # a new run of the process
        elif logger == "server" and signalled is None and message.startswith(("stopping: NOT_SERVING", "draining:")):
            signalled = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=timezone.utc)
        elif logger == "stall":
            stalled = True
    if signalled is None:
        return None
    return (exited(finished_at) - signalled).total_seconds(), stalled


def exited(finished_at: str) -> datetime:
    """podman's State.FinishedAt ('2026-11-26 07:50:01.123456789 +0000 UTC') as a UTC datetime."""
    day, time = finished_at.split()[:2]
    return datetime.fromisoformat(f"{day}T{time[:15]}").replace(tzinfo=timezone.utc)


def percentiles(times: list[float]) -> str:
    t = sorted(times)
    if not t:
        return "no stop time"
    q = lambda f: t[min(len(t) - 1, round(f * (len(t) - 1)))]  # noqa: E731
    return f"{len(t)} stops: p50 {q(0.5):.2f} s, p90 {q(0.9):.2f} s, max {t[-1]:.2f} s"


def _number(word: str) -> float | None:
    try:
        return float(word)
    except ValueError:
        return None


if __name__ == "__main__":
    if sys.argv[1] == "--percentiles":
        print(percentiles([x for x in map(_number, sys.argv[2:]) if x is not None]))
        sys.exit(0)
    found = stop_seconds(sys.stdin.read().splitlines(), sys.argv[1])
    if found is None:
        print("no stop in the log")
        sys.exit(1)
    seconds, stalled = found
    print(f"{seconds:.2f}" + (" stalled" if stalled else ""))
