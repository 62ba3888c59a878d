"""Turning a bench report into a table, a JSON file and a chart for the docs; the machine it ran on."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

ANCHOR_NAMES = {"pytorch": "PyTorch generate", "optimum": "Optimum ONNX Runtime", "ctranslate2": "CTranslate2"}


def machine() -> dict:
    """The machine a report was measured on."""
    cpu = (
        next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    import onnxruntime

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "onnxruntime": onnxruntime.__version__,
    }


def rows(report: dict) -> list[tuple[str, dict]]:
    """(engine label, {batch: tokens/s}) for every engine and precision that produced numbers."""
    out = []
    for name, results in (report.get("anchors") or {}).items():
        if not isinstance(results, dict) or "results" not in results:
            continue
        for precision, by_batch in results["results"].items():
            out.append((f"{ANCHOR_NAMES.get(name, name)}, {precision}", by_batch))
    for precision, by_batch in report["traductor"].items():
        out.append((f"**traductor**, {precision}", by_batch))
    return out


def table(report: dict) -> str:
    batches = sorted({b for _, r in rows(report) for b in r}, key=int)
    lines = ["| engine | " + " | ".join(f"batch {b}" for b in batches) + " |", "|---" * (len(batches) + 1) + "|"]
    for label, by_batch in rows(report):
        lines.append(
            f"| {label} | " + " | ".join(f"{by_batch[b]:.0f}" if b in by_batch else "-" for b in batches) + " |"
        )
    for name, results in (report.get("anchors") or {}).items():
        if isinstance(results, dict) and "error" in results:
            lines.append(f"| {ANCHOR_NAMES.get(name, name)} | failed: {results['error'][:80]} |")
    return "\n".join(lines)


def service_table(report: dict) -> str:
    """Load generator against `traductor serve` on the same model: one row per concurrency, with
    the ratio of its tokens/s to the engine's own throughput at the same batch size."""
    service = report.get("service")
    if not service:
        return ""
    engine = report["traductor"].get(service["precision"], {})
    lines = [
        "| concurrent streams | tokens/s | vs engine at that batch | p50 ms | p99 ms | TTFT p50 ms | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for level in service["levels"]:
        c, tps = int(level["level"]), level["output_tokens_per_second"] or 0.0
        ref = engine.get(str(c))
        ratio = f"{tps / ref:.0%}" if ref else "-"
        lat, ttft = level["latency_seconds"], level["ttft_seconds"]
        ms = lambda v: f"{v * 1000:.0f}" if v is not None else "-"  # noqa: E731
        lines.append(
            f"| {c} | {tps:.0f} | {ratio} | {ms(lat['p50'])} | {ms(lat['p99'])} | {ms(ttft['p50'])} | "
            f"{sum(level['errors'].values())} |"
        )
    return "\n".join(lines)


def write(report: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    text = [
        f"Shape {report['shape']}, source length {report['source_length']}, exactly {report['new_tokens']} new tokens, "
        f"greedy; output tokens/s, median of {report['runs']} runs after a warm-up; {report['threads']} threads.",
        f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, ONNX Runtime {m['onnxruntime']}.",
        f"Command: `{report.get('command', 'traductor bench')}`",
        "",
        table(report),
        "",
    ]
    if report.get("service"):
        text += [
            f"Through gRPC (`traductor serve` on the same {report['service']['precision']} model, "
            "`traductor-client loadtest`, streams, exactly 32 new tokens, load generator on the same machine):",
            "",
            service_table(report),
            "",
        ]
    (out / "bench.md").write_text("\n".join(text))
    chart(report, out / "bench.png")


def chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = rows(report)
    batches = sorted({b for _, r in data for b in r}, key=int)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(len(data), 1)
    for i, (label, by_batch) in enumerate(data):
        xs = [j + i * width for j in range(len(batches))]
        ax.bar(xs, [by_batch.get(b, 0) for b in batches], width, label=label.replace("**", ""))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(batches))], [f"batch {b}" for b in batches])
    ax.set_ylabel("output tokens/s")
    ax.set_title(f"Greedy decoding, shape {report['shape']}, {report['threads']} threads")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
