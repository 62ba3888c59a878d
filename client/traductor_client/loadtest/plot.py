"""Optional chart of a sweep: latency percentiles and throughput against the level.

matplotlib is an optional dependency (``pip install 'traductor-client[plot]'``), imported only
here and only when a plot is asked for; :func:`require_matplotlib` lets the command fail before
spending time on a run whose chart it could not draw.
"""

from __future__ import annotations

from typing import Any, Dict


class PlotUnavailable(Exception):
    pass


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'traductor-client[plot]'") from error


def plot_report(report: Dict[str, Any], path: str) -> None:
    """Write a PNG (or any format matplotlib infers from ``path``) with two panels."""
    require_matplotlib()
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    levels = [level["level"] for level in report["levels"]]
    figure = Figure(figsize=(10, 4), tight_layout=True)
    latency_axes, throughput_axes = figure.subplots(1, 2)
    for point in ("p50", "p90", "p99"):
        values = [_ms(level["latency_seconds"][point]) for level in report["levels"]]
        latency_axes.plot(levels, values, marker="o", label=point)
    latency_axes.set_ylabel("latency (ms)")
    latency_axes.set_title("latency of successful requests")
    latency_axes.legend()

    throughput_axes.plot(
        levels, [level["requests_per_second"] or 0 for level in report["levels"]], marker="o", color="tab:blue"
    )
    throughput_axes.set_ylabel("requests/s", color="tab:blue")
    tokens_axes = throughput_axes.twinx()
    tokens_axes.plot(
        levels, [level["output_tokens_per_second"] or 0 for level in report["levels"]], marker="s", color="tab:orange"
    )
    tokens_axes.set_ylabel("output tokens/s", color="tab:orange")
    throughput_axes.set_title("throughput")
    for axes in (latency_axes, throughput_axes):
        axes.set_xlabel(report["level_name"])
        if len(levels) > 1 and min(levels) > 0 and max(levels) / min(levels) >= 8:
            axes.set_xscale("log", base=2)
        axes.set_xticks(levels, [f"{level:g}" for level in levels])  # label the levels run
        axes.grid(True, alpha=0.3)
    figure.savefig(path, dpi=120)


def _ms(seconds: Any) -> Any:
    return None if seconds is None else seconds * 1000.0
