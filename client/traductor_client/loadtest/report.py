"""Render a load-test report (a JSON-ready dict) as a terminal table."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


def _ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f}"


def _num(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}"


_COLUMNS = ["reqs", "ok", "err", "req/s", "tok/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "ttft50", "ttft99"]


def format_table(report: Dict[str, Any]) -> str:
    """A fixed-width table, one row per level, then the errors of each level by code."""
    level_name = report["level_name"]
    rows: List[List[str]] = []
    for level in report["levels"]:
        latency, ttft = level["latency_seconds"], level["ttft_seconds"]
        rows.append(
            [
                f"{level['level']:g}",
                str(level["requests"]),
                str(level["ok"]),
                str(level["requests"] - level["ok"]),
                _num(level["requests_per_second"]),
                _num(level["output_tokens_per_second"]),
                _ms(latency["p50"]),
                _ms(latency["p90"]),
                _ms(latency["p99"]),
                _ms(latency["max"]),
                _ms(ttft["p50"]),
                _ms(ttft["p99"]),
            ]
        )
    header = [level_name] + _COLUMNS
    widths = [
        max(len(header[i]), *(len(row[i]) for row in rows)) if rows else len(header[i]) for i in range(len(header))
    ]
    config = report["config"]
    stop = f"{config['requests']} requests" if config["requests"] is not None else f"{config['duration_seconds']:g} s"
    lines = [
        f"{report['mode']} loop against {config['target']}: {stop} per level, "
        f"stream fraction {config['stream_fraction']:g}, {config['input_texts']} texts",
        "  ".join(h.rjust(w) for h, w in zip(header, widths)),
    ]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows]
    for level in report["levels"]:
        if level["errors"]:
            counts = ", ".join(f"{code}={count}" for code, count in level["errors"].items())
            lines.append(f"errors at {level_name} {level['level']:g}: {counts}")
    return "\n".join(lines)
