"""tests/stack_stop_time.py, which the stack checks use to hold every stop to its grace period."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from stack_stop_time import percentiles, stop_seconds

SCRIPT = Path(__file__).parent / "stack_stop_time.py"
TWO_RUNS = """\
2026-11-26 07:50:00,000 INFO traductor.server starting: model /models
2026-11-26 07:50:09,000 INFO traductor.server stopping: NOT_SERVING, still serving for 2.0 s (pre-stop)
2026-11-26 07:50:11,000 INFO traductor.server draining: closing the listener, 0 request(s) in flight, grace 3.0 s
2026-11-26 07:50:18,100 ERROR traductor.stall stop (SIGTERM) not done after 7.0 s: where it waits
--- thread MainThread (1)
2026-11-26 07:51:00,000 INFO traductor.server starting: model /models
2026-11-26 07:51:30,500 INFO traductor.requests {"protocol": "grpc", "code": "OK"}
2026-11-26 07:51:40,250 INFO traductor.server draining: closing the listener, 1 request(s) in flight, grace 3.0 s
2026-11-26 07:51:40,900 INFO traductor.server stopped: drained in 0.40 s, connections closed in 0.01 s, ...
"""


def test_the_last_run_counts_from_its_first_line_after_sigterm():
    seconds, stalled = stop_seconds(TWO_RUNS.splitlines(), "2026-11-26 07:51:41.000000000 +0000 UTC")
    assert round(seconds, 3) == 0.75 and not stalled


def test_a_stall_report_in_the_run_is_reported():
    first_run = TWO_RUNS.split("2026-11-26 07:51:00")[0].splitlines()
    seconds, stalled = stop_seconds(first_run, "2026-11-26 07:50:18.500 +0000 UTC")
    assert round(seconds, 3) == 9.5 and stalled


def test_the_command_line():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "2026-11-26 07:51:41.000000000 +0000 UTC"],
        input=TWO_RUNS,
        capture_output=True,
        text=True,
    )
    assert (run.returncode, run.stdout) == (0, "0.75\n")
    none = subprocess.run([sys.executable, str(SCRIPT), "x"], input="no log\n", capture_output=True, text=True)
    assert none.returncode == 1
    times = subprocess.run(
        [sys.executable, str(SCRIPT), "--percentiles", "0.5", "no", "2.0", "1.0"], capture_output=True, text=True
    )
    assert times.stdout == "3 stops: p50 1.00 s, p90 2.00 s, max 2.00 s\n"
    assert percentiles([]) == "no stop time"
