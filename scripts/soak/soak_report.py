"""The figures of scripts/soak/soak.py: one sample per interval, and the final report (JSON + table).

A call of the mix that is not expected (soak_mix.classify) is set against the bursts and the
restarts by its start and end times: a RESOURCE_EXHAUSTED is allowed only while a burst was in
flight or within ``AFTER_BURST`` seconds of its end, otherwise it counts as unexpected; every
non-expected call overlapping a restart (SIGTERM until SERVING again, plus ``AFTER_RESTART``
seconds) is counted against that restart. A burst's own codes may only be OK and
RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections import Counter

AFTER_BURST = 5.0
AFTER_RESTART = 5.0
BURST_CODES = {"OK", "RESOURCE_EXHAUSTED"}


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))] * 1000, 1)


def sample(elapsed: float, rss: float | None, latencies: dict[str, list[float]], events: list[str]) -> dict:
    """One interval: RSS now, and the p99 of the OK calls completed in it (unary + stream, as in
    the earlier soak runs, and per kind)."""
    return {
        "minute": round(elapsed / 60, 2),
        "rss_mib": rss,
        "loadavg_1min": round(os.getloadavg()[0], 2),  # the whole machine: other work slows the load down
        "completed": sum(len(v) for v in latencies.values()),
        "p99_ms": p99(latencies.get("unary", []) + latencies.get("stream", [])),
        "p99_ms_by_kind": {kind: p99(v) for kind, v in sorted(latencies.items())},
        "events": events,
    }


def overlaps(call: dict, window: tuple[float, float]) -> bool:
    return call["start"] <= window[1] and call["end"] >= window[0]


def judge_calls(odd: list[dict], bursts: list[dict], restarts: list[dict]) -> dict:
    burst_windows = [(b["began"], b["ended"] + AFTER_BURST) for b in bursts if b.get("began")]
    restart_windows = [
        (r["began"], (r.get("serving_at") or r["began"] + 300) + AFTER_RESTART) for r in restarts if "began" in r
    ]
    refused_in, refused_out, unexpected = 0, 0, []
    for call in odd:
        in_burst = any(overlaps(call, w) for w in burst_windows)
        if call["verdict"] == "refused" and in_burst:
            refused_in += 1
            continue
        refused_out += call["verdict"] == "refused"
        unexpected.append({**call, "in_burst": in_burst})
    for r, window in zip((r for r in restarts if "began" in r), restart_windows):
        r["failed_calls"] = dict(Counter(c["code"] for c in unexpected if overlaps(c, window)))
    return {
        "refused_in_bursts": refused_in,
        "refused_outside_bursts": refused_out,
        "unexpected": len(unexpected),
        "unexpected_by_code": dict(Counter(f"{c['kind']}:{c['code']}" for c in unexpected)),
        "unexpected_examples": unexpected[:50],
    }


def judge_bursts(bursts: list[dict]) -> dict:
    codes, odd = Counter(), 0
    for b in bursts:
        codes.update(b.get("codes", {}))
        got = b.get("codes", {})
        odd += sum(n for code, n in got.items() if code not in BURST_CODES) + b["calls"] - sum(got.values())
    refusals = [
        b["latency_ms"]["RESOURCE_EXHAUSTED"] for b in bursts if "RESOURCE_EXHAUSTED" in b.get("latency_ms", {})
    ]
    return {
        "count": len(bursts),
        "codes": dict(codes),
        "unexpected": odd,
        "refusal_ms_p50_median": statistics.median(r["p50"] for r in refusals) if refusals else None,
        "refusal_ms_p99_max": max(r["p99"] for r in refusals) if refusals else None,
        "each": bursts,
    }


def rss_figures(samples: list[dict], warmup: float) -> dict:
    measured = [s for s in samples if s["rss_mib"] is not None]
    if not measured:
        return {}
    warm = [s for s in measured if s["minute"] >= warmup] or measured
    start, end = warm[0]["rss_mib"], measured[-1]["rss_mib"]
    return {
        "rss_mib_first_sample": measured[0]["rss_mib"],
        "rss_mib_after_warmup": start,
        "rss_warmup_minute": warm[0]["minute"],
        "rss_mib_end": end,
        "rss_mib_max": max(s["rss_mib"] for s in warm),
        "rss_growth_pct": round(100 * (end - start) / start, 2),
    }


def build(args, mix, samples: list[dict], bursts: list[dict], restarts: list[dict], extra: dict, minutes: float):
    calls = judge_calls(mix.odd, bursts, restarts)
    floods = judge_bursts(bursts)
    p99s = [s["p99_ms"] for s in samples if s["p99_ms"] is not None]
    by_code = Counter()
    for (_, code), n in mix.counts.items():
        by_code[code] += n
    bad_restarts = [r for r in restarts if r.get("exit_code") != 0 or not r.get("serving_at")]
    report = {
        "command": " ".join(sys.argv),
        "target": args.target or "local traductor serve",
        "model": args.model or "default",
        "minutes": round(minutes, 2),
        "workers": args.workers,
        "requests": {f"{k}:{o}": n for (k, o), n in sorted(mix.counts.items())},
        "requests_by_code": dict(by_code),
        "total_requests": sum(mix.counts.values()),
        "client_retries": dict(mix.retries),
        **calls,
        "bursts": floods,
        "restarts": restarts,
        **rss_figures(samples, args.warmup_minutes),
        "p99_ms_first_interval": p99s[0] if p99s else None,
        "p99_ms_last_interval": p99s[-1] if p99s else None,
        **extra,
        "samples": samples,
    }
    report["failed"] = bool(
        calls["unexpected"]
        or floods["unexpected"]
        or bad_restarts
        or extra.get("server_died")
        or extra.get("server_exit_code", 0) != 0
    )
    return report


def show(report: dict) -> None:
    print(f"{'minute':>7} {'rss MiB':>8} {'done':>6} {'p99 ms':>8} {'batch':>7} {'long':>7} {'load':>5}  events")
    for s in report["samples"]:
        kinds = s["p99_ms_by_kind"]
        cells = [s["p99_ms"], kinds.get("batch"), kinds.get("long")]
        cells = [("-" if c is None else c) for c in cells]
        print(
            f"{s['minute']:>7} {s['rss_mib'] or '-':>8} {s['completed']:>6} {cells[0]:>8} {cells[1]:>7} {cells[2]:>7}",
            end="",
        )
        print(f" {s.get('loadavg_1min', '-'):>5}  {', '.join(s['events'])}")
    print(
        f"requests {report['total_requests']} by code {report['requests_by_code']}; retries {report['client_retries']}"
    )
    print(f"  {', '.join(f'{k}={v}' for k, v in report['requests'].items())}")
    b = report["bursts"]
    print(
        f"bursts {b['count']}: codes {b['codes']}, unexpected {b['unexpected']}, refusal p50 (median) "
        f"{b['refusal_ms_p50_median']} ms, p99 (worst) {b['refusal_ms_p99_max']} ms"
    )
    for r in report["restarts"]:
        print(f"restart {r}")
    print(
        f"unexpected {report['unexpected']} {report['unexpected_by_code']}; RESOURCE_EXHAUSTED in bursts "
        f"{report['refused_in_bursts']}, outside {report['refused_outside_bursts']}; RSS "
        f"{report.get('rss_mib_after_warmup')} -> {report.get('rss_mib_end')} MiB ({report.get('rss_growth_pct')}%); "
        f"p99 {report['p99_ms_first_interval']} -> {report['p99_ms_last_interval']} ms; failed {report['failed']}"
    )
    print({k: v for k, v in report.items() if k in ("server_exit_code", "server_log", "replica_logs", "rss_of")})
