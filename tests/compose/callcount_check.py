"""Reads a report of callcount.py and checks it, for run.sh (standard library only: runs on the host).

    python3 callcount_check.py restarts REPORT
    python3 callcount_check.py kill REPORT --killed T --gone T --rejoined T --max-failed N

``restarts``: every call must be OK (the rolling restarts lose none).

``kill`` (times in seconds since the epoch): ``--killed`` when SIGKILL was sent, ``--gone`` when
the replica's process had exited (its sockets closed), ``--rejoined`` when it served calls again.
Only calls in flight on the killed replica may fail: each failed call started before ``--gone``,
at most ``--max-failed`` of them (the concurrency: one call per client thread), all UNAVAILABLE
(nginx answers 502 for a call whose replica broke before answering), except a stream that had
already received messages: nginx can only reset it (RST_STREAM INTERNAL_ERROR), so INTERNAL;
and calls that started after the kill kept succeeding on the other replicas before the killed
one was back (the first one's latency and the longest pause between two OK calls are shown).

Prints the counts (per status code, per kind), one line per figure; exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import sys


def counts_line(report: dict) -> str:
    calls = sum(report["by_code"].values())
    kinds = ", ".join(f"{kind} {codes}" for kind, codes in sorted(report["by_kind"].items()))
    return f"{calls} calls at concurrency {report['concurrency']}: {report['by_code']} ({kinds})"


def check_restarts(report: dict) -> list[str]:
    bad = [f"{n} calls {code}" for code, n in report["by_code"].items() if code != "OK"]
    if not report["by_code"].get("OK"):
        bad.append("no call succeeded")
    for failure in report["failures"][:5]:
        print(f"    failed: {failure['kind']} {failure['code']} {failure['details']}")
    return bad


def check_kill(report: dict, killed: float, gone: float, rejoined: float, max_failed: int) -> list[str]:
    bad, failures = [], report["failures"]
    for f in failures:
        print(
            f"    failed: {f['kind']} {f['code']} started {f['start'] - killed:+.3f}s, ended "
            f"{f['end'] - killed:+.3f}s after the kill, {f.get('received', 0)} message(s) received: {f['details'][:80]}"
        )
    late = [f for f in failures if f["start"] >= gone]
    if late:
        bad.append(f"{len(late)} failed call(s) started after the replica was gone (not in flight on it)")
    if len(failures) > max_failed:
        bad.append(f"{len(failures)} failed calls, more than the {max_failed} that can be in flight")
    odd = [f for f in failures if f["code"] != "UNAVAILABLE" and not (f["code"] == "INTERNAL" and f.get("received"))]
    if odd:
        bad.append(f"failures other than UNAVAILABLE (or INTERNAL for a stream already answering): {odd}")
    after = sorted((end, start) for kind, start, end, code in report["calls"] if code == "OK" and start >= killed)
    served_by_others = [end for end, start in after if end < rejoined]
    print(
        f"    the replica's process was gone {gone - killed:.3f}s after SIGKILL; it served calls again "
        f"{rejoined - killed:.1f}s after it"
    )
    if not served_by_others:
        bad.append("no call that started after the kill succeeded before the replica was back")
    else:
        first_end, first_start = after[0]
        ends = [killed] + served_by_others
        pause = max(b - a for a, b in zip(ends, ends[1:]))
        print(
            f"    calls started after the kill and answered by the other replicas before it was back: "
            f"{len(served_by_others)}; the first ended {first_end - killed:.3f}s after the kill "
            f"(it took {first_end - first_start:.3f}s); longest pause between OK answers: {pause:.3f}s"
        )
    return bad


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("check", choices=["restarts", "kill"])
    parser.add_argument("report")
    parser.add_argument("--killed", type=float)
    parser.add_argument("--gone", type=float)
    parser.add_argument("--rejoined", type=float)
    parser.add_argument("--max-failed", type=int)
    args = parser.parse_args()
    with open(args.report, encoding="utf-8") as source:
        report = json.load(source)
    print(f"    {counts_line(report)}")
    if args.check == "restarts":
        bad = check_restarts(report)
    else:
        bad = check_kill(report, args.killed, args.gone, args.rejoined, args.max_failed)
    for line in bad:
        print(f"    {line}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
