"""Turning a bench report into tables (engines; the service, unary and streams side by side), a JSON
file and a chart for the docs; what was measured and the machine it ran on."""

from __future__ import annotations

import json
import os
import platform
import statistics
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


def median_results(rounds: list[dict]) -> dict:
    """{precision: {batch: tokens/s}} of several rounds -> the median of each point."""
    points = {(p, b) for r in rounds for p, by_batch in r.items() for b in by_batch}
    out: dict[str, dict] = {}
    for p, b in sorted(points, key=lambda pb: (pb[0], int(pb[1]))):
        out.setdefault(p, {})[b] = statistics.median(r[p][b] for r in rounds if b in r.get(p, {}))
    return out


def merge_anchors(into: dict, report: dict) -> None:
    """Add one anchors' report (some batch sizes) to `into` (the same round's other batch sizes):
    each engine's results and details gain the new batch sizes. An engine that failed at some
    batch sizes and ran at others keeps its results, and its errors under "errors"."""
    for name, engine in report.items():
        known = into.get(name)
        if known is None:
            into[name] = engine
        elif not _ran(engine):
            if _ran(known):  # ran at the earlier batch sizes, failed at these
                known.setdefault("errors", []).append(_error(engine))
        elif not _ran(known):  # failed at the earlier batch sizes, ran at these
            into[name] = {**engine, "errors": [_error(known)]}
        else:
            for key in ("results", "details"):
                for precision, by_batch in engine.get(key, {}).items():
                    known.setdefault(key, {}).setdefault(precision, {}).update(by_batch)


def _ran(engine) -> bool:
    return isinstance(engine, dict) and "results" in engine


def _error(engine):
    return engine.get("error") if isinstance(engine, dict) else engine


def median_anchors(rounds: list[dict]) -> dict:
    """The anchors' reports of several rounds -> the last round's, each engine's results replaced by
    their medians over the rounds it ran in (an engine that failed in every round keeps its error)."""
    merged = dict(rounds[-1])
    for name in {n for r in rounds for n in r}:
        ran = [r[name] for r in rounds if _ran(r.get(name))]
        if ran:
            merged[name] = {**ran[-1], "results": median_results([e["results"] for e in ran])}
    return merged


def ratios(rounds: list[dict]) -> dict:
    """{precision: {batch: {"rounds": [...], "median": m}}}: per round, traductor's tokens/s over the
    best anchor's at the same precision and batch, timed in that round; their median."""
    per_point: dict[tuple[str, str], list[float]] = {}
    for r in rounds:
        for precision, by_batch in r["traductor"].items():
            for b, ours in by_batch.items():
                theirs = [
                    e["results"][precision][b]
                    for e in r.get("anchors", {}).values()
                    if isinstance(e, dict) and b in e.get("results", {}).get(precision, {})
                ]
                if theirs and max(theirs) > 0:
                    per_point.setdefault((precision, b), []).append(round(ours / max(theirs), 3))
    out: dict[str, dict] = {}
    for (precision, b), values in per_point.items():
        out.setdefault(precision, {})[b] = {"rounds": values, "median": round(statistics.median(values), 3)}
    return out


def ratio_table(report: dict) -> str:
    """traductor against the best anchor of its precision, per batch: the median ratio of the
    rounds, then each round's."""
    if not report.get("ratios"):
        return ""
    batches = sorted({b for by_batch in report["ratios"].values() for b in by_batch}, key=int)
    lines = [
        "| traductor / best anchor | " + " | ".join(f"batch {b}" for b in batches) + " |",
        "|---" * (len(batches) + 1) + "|",
    ]
    for precision, by_batch in report["ratios"].items():
        cells = []
        for b in batches:
            if b not in by_batch:
                cells.append("-")
                continue
            each = ", ".join(f"{v:.2f}" for v in by_batch[b]["rounds"])
            cells.append(f"**x{by_batch[b]['median']:.2f}**" + (f" ({each})" if len(by_batch[b]["rounds"]) > 1 else ""))
        lines.append(f"| {precision} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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


def subject(report: dict) -> str:
    """What was measured: random weights of a shape, or a bundle (its name, precision and size)."""
    b = report.get("bundle")
    if b is None:
        return f"Random weights of shape {report['shape']}"
    return (
        f"Bundle {b['name'] or b['path']} ({b['precision']}; d_model {b['d_model']}, {b['layers'][0]}+{b['layers'][1]} "
        f"layers, {b['heads']} heads, d_ff {b['d_ff']}, vocabulary {b['vocab']})"
    )


def _ms(seconds) -> str:
    return f"{seconds * 1000:.0f}" if seconds is not None else "-"


def _share(part, whole) -> str:
    return f"{part / whole:.0%}" if part is not None and whole else "-"


def service_table(report: dict) -> str:
    """`traductor serve` on the same model: unary calls and streams at each concurrency level side
    by side (tokens/s, p50 and p99 latency, each with the ratio stream/unary), the streams' time to
    first token, and the streams' tokens/s against the engine's own throughput at that batch size."""
    service = report.get("service")
    if not service:
        return ""
    engine = report["traductor"].get(service["precision"], {})
    lines = [
        "| concurrency | tok/s unary | tok/s stream | stream/unary | p50 ms unary | p50 ms stream | stream/unary "
        "| p99 ms unary | p99 ms stream | TTFT p50 ms | stream vs engine | errors unary/stream |",
        "|---" * 12 + "|",
    ]
    for level in service["levels"]:
        c, unary, stream = int(level["level"]), level["unary"], level["stream"]
        tps = [m["output_tokens_per_second"] or 0.0 for m in (unary, stream)]
        p50 = [m["latency_seconds"]["p50"] for m in (unary, stream)]
        p99 = [m["latency_seconds"]["p99"] for m in (unary, stream)]
        errors = "/".join(str(sum(m["errors"].values())) for m in (unary, stream))
        cells = [c, f"{tps[0]:.0f}", f"{tps[1]:.0f}", _share(tps[1], tps[0]), _ms(p50[0]), _ms(p50[1])]
        cells += [_share(p50[1], p50[0]), _ms(p99[0]), _ms(p99[1]), _ms(stream["ttft_seconds"]["p50"])]
        cells += [_share(tps[1], engine.get(str(c))), errors]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def _service_setup(report: dict) -> str:
    s, inputs = report["service"], report["service"]["input"]
    return (
        f"Through gRPC: `traductor serve` on the same {s['precision']} model (translation memory off, "
        f"the model on {'a process of its own' if s.get('engine') == 'process' else 'an engine thread'}), "
        f"`traductor-client loadtest` on the same machine, closed loop, at each concurrency unary calls then "
        f"streams against the same server, {s['seconds']:g} s each after {s['warmup_seconds']:g} s of warm-up, "
        f"exactly {s['new_tokens']} new tokens per call; {inputs['texts']} one-sentence texts from {inputs['file']} "
        f"({inputs['dropped_not_one_sentence']} left out: more than one sentence), "
        f"{inputs['source_tokens_mean']} source tokens on average under the model's tokenizer:"
    )


def write(report: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(report, indent=2) + "\n")
    m = report["machine"]
    text = [
        f"{subject(report)}, source length {report['source_length']}, exactly {report['new_tokens']} new tokens, "
        f"greedy; output tokens/s, median of {report['runs']} runs after a warm-up"
        + (f", then the median of {report['rounds']} rounds" if report.get("rounds", 1) > 1 else "")
        + f"; {report['threads']} threads.",
        f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, ONNX Runtime {m['onnxruntime']}.",
        f"Command: `{report.get('command', 'traductor bench')}`",
        "",
        table(report),
        "",
    ]
    if report.get("ratios"):
        text += [
            "traductor against the best anchor of the same precision (median of the rounds' ratios; each round's):",
            "",
            ratio_table(report),
            "",
        ]
    if report.get("service"):
        text += [_service_setup(report), "", service_table(report), ""]
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
    ax.set_title(f"Greedy decoding, {subject(report).split(' (')[0]}, {report['threads']} threads")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
