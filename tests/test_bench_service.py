"""`traductor bench --bundle DIR --service LEVELS`: a user's bundle run by the engine, then served
and loaded with unary calls and with streams at each level; the report, the bundle left as it
was, and the one-line errors of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import run_error
from tiny_task import synthetic_pairs

from traductor.bench.engine import DEFAULT_TOKENIZER
from traductor.bench.report import service_table
from traductor.bench.service import prepare_inputs
from traductor.cli import main
from traductor.errors import CommandError
from traductor.model.tokenizer import Tokenizer


def snapshot(directory: Path) -> dict[str, bytes | None]:
    """Every entry under `directory`, with the bytes of each file (None for a folder)."""
    return {p.relative_to(directory).as_posix(): p.read_bytes() if p.is_file() else None for p in directory.rglob("*")}


@pytest.mark.parametrize("engine", ["thread", "process"])
def test_bench_service_on_a_bundle_reports_unary_and_streams(tiny_bundle, tmp_path, capsys, engine):
    """The tiny exported bundle, with its own tokenizer and texts it was made for: engine figures
    at its own precision, and at each level a unary run and a stream run of exactly 32 new tokens
    per call, side by side in bench.json, bench.md and on stdout; the bundle is not touched. With
    `--service-engine process` the server runs the model in a process of its own."""
    texts = tmp_path / "texts.txt"
    two_sentences = "Uno dos. Tres cuatro."  # would decode 64 tokens in one call: left out
    texts.write_text("".join(f"{source}\n" for source, _ in synthetic_pairs(20, seed=5)) + two_sentences + "\n")
    before = snapshot(tiny_bundle)
    out = tmp_path / "out"
    argv = ["bench", "--bundle", str(tiny_bundle), "--batches", "1,2", "--runs", "1", "--threads", "1"]
    argv += ["--service", "1,2", "--service-seconds", "1", "--service-input", str(texts), "--out", str(out)]
    argv += ["--service-engine", engine]
    assert main(argv) == 0
    assert snapshot(tiny_bundle) == before

    report = json.loads((out / "bench.json").read_text())
    assert report["bundle"]["path"] == str(tiny_bundle) and report["bundle"]["precision"] == "fp32"
    assert "shape" not in report and report["new_tokens"] == 32
    assert set(report["traductor"]) == {"fp32"} and set(report["traductor"]["fp32"]) == {"1", "2"}
    assert all(tps > 0 for tps in report["traductor"]["fp32"].values())
    service = report["service"]
    assert service["precision"] == "fp32" and service["new_tokens"] == 32 and service["input"]["texts"] == 20
    assert service["engine"] == engine
    assert service["input"]["file"] == str(texts) and service["input"]["dropped_not_one_sentence"] == 1
    assert [level["level"] for level in service["levels"]] == [1, 2]
    for level in service["levels"]:
        for mode, streamed in (("unary", False), ("stream", True)):
            m = level[mode]
            assert m["errors"] == {} and m["ok"] == m["requests"] > 0, (level["level"], mode, m)
            assert m["output_tokens"] == 32 * m["ok"] and m["output_tokens_per_second"] > 0
            assert m["streams"] == (m["requests"] if streamed else 0)
        assert level["stream"]["ttft_seconds"]["p50"] is not None and level["unary"]["ttft_seconds"]["p50"] is None

    markdown = (out / "bench.md").read_text()
    assert "tok/s unary | tok/s stream | stream/unary" in markdown and "(fp32; d_model 40, 2+2 layers" in markdown
    assert ("a process of its own" in markdown) == (engine == "process")
    rows = [line for line in markdown.splitlines() if line.startswith(("| 1 |", "| 2 |"))]
    assert len(rows) == 2 and all(row.count("|") == 13 for row in rows), rows
    assert service_table(report) in capsys.readouterr().out


def test_service_table_ratios():
    """Stream/unary of tokens/s and of p50 latency, and streams against the engine at that batch."""

    def summary(tps, p50, ttft=None, errors=None):
        return {
            "output_tokens_per_second": tps,
            "latency_seconds": {"p50": p50, "p99": p50 * 2 if p50 else None},
            "ttft_seconds": {"p50": ttft, "p99": ttft},
            "errors": errors or {},
        }

    report = {
        "traductor": {"int8": {"8": 775.0}},
        "service": {
            "precision": "int8",
            "levels": [
                {"level": 8, "unary": summary(1000.0, 0.1), "stream": summary(620.0, 0.135, 0.02, {"UNAVAILABLE": 2})},
                {"level": 64, "unary": summary(0.0, None), "stream": summary(500.0, 0.5, 0.1)},
            ],
        },
    }
    row8, row64 = service_table(report).splitlines()[2:]
    assert row8 == "| 8 | 1000 | 620 | 62% | 100 | 135 | 135% | 200 | 270 | 20 | 80% | 0/2 |"
    assert row64 == "| 64 | 0 | 500 | - | - | 500 | - | - | 1000 | 100 | - | 0/0 |"
    assert service_table({"traductor": {}}) == ""


def test_prepare_inputs_keeps_one_sentence_lines(tmp_path):
    """Only texts the server translates as one sentence are sent (each call decodes exactly 32
    tokens); a file with none is refused."""
    source = tmp_path / "in.tsv"
    source.write_text("Cannot open file %s\tref\nIt failed. Try again.\n\nPermission denied\n")
    path, described = prepare_inputs(source, DEFAULT_TOKENIZER, 256, tmp_path)
    assert path.read_text() == "Cannot open file %s\nPermission denied\n"
    assert described["texts"] == 2 and described["dropped_not_one_sentence"] == 1
    assert described["source_tokens_mean"] > 1
    source.write_text("It failed. Try again.\n")
    with pytest.raises(CommandError, match="no line is a single sentence"):
        prepare_inputs(source, DEFAULT_TOKENIZER, 256, tmp_path)


def test_bench_bad_input_is_one_line(tmp_path, capsys):
    """Not a bundle, a missing directory, flags that describe random weights next to --bundle,
    bad levels, texts without --service or without text: one line each, status 2, before any work."""
    (tmp_path / "empty").mkdir()
    run_error(["bench", "--bundle", str(tmp_path / "empty")], capsys, "--bundle", "not a traductor bundle")
    run_error(["bench", "--bundle", str(tmp_path / "missing")], capsys, "--bundle", "is not a directory")
    run_error(
        ["bench", "--bundle", "default", "--shape", "64,2,4,128,1000", "--anchors"], capsys, "drop --shape, --anchors"
    )
    run_error(["bench", "--bundle", "default", "--precisions", "int8"], capsys, "--bundle", "drop --precisions")
    vocab = Tokenizer(DEFAULT_TOKENIZER).vocab_size  # the default model's (8,000 pieces today)
    run_error(["bench", "--shape", "64,2,4,128,1000", "--service", "1"], capsys, f"--shape needs vocab >= {vocab}")
    run_error(["bench", "--service", "1,x"], capsys, "--service takes comma-separated positive integers")
    run_error(["bench", "--service", "0"], capsys, "--service takes comma-separated positive integers")
    texts = tmp_path / "texts.txt"
    texts.write_text("uno dos\n")
    run_error(["bench", "--service-input", str(texts)], capsys, "--service-input", "--service LEVELS")
    (tmp_path / "blank.txt").write_text("\n \n")
    run_error(["bench", "--service", "1", "--service-input", str(tmp_path / "blank.txt")], capsys, "blank.txt")
    run_error(["bench", "--service", "1", "--service-input", str(tmp_path / "nope.txt")], capsys, "nope.txt")
    run_error(["bench", "--rounds", "2"], capsys, "--rounds", "--anchors")
    run_error(["bench", "--anchors", "--rounds", "0"], capsys, "--rounds")


def test_bench_rounds_alternate_and_ratios_are_taken_within_a_round(monkeypatch, tmp_path):
    """--rounds 3 with anchors: traductor and the anchors are timed three times, the first of the
    two alternating; the tables show each point's median, and a ratio divides traductor by the best
    anchor of the same precision *in the same round* before the median is taken."""
    import traductor.bench.measure as bench

    calls = []
    ours = iter([{"1": 100.0}, {"1": 50.0}, {"1": 90.0}])  # fp32 at batch 1, rounds 1..3
    theirs = iter([80.0, 50.0, 60.0])  # the best fp32 anchor in the same rounds

    def run_engine(model_dir, batches, runs, threads):
        calls.append("traductor")
        return next(ours)

    def run_anchors(shape, batches, runs, threads, anchors_dir):
        calls.append("anchors")
        best = next(theirs)
        return {
            "ctranslate2": {"results": {"fp32": {"1": best}}},
            "pytorch": {"results": {"fp32": {"1": best / 2}}},
            "optimum": {"error": "not installed"},
        }

    monkeypatch.setattr(bench, "run_engine", run_engine)
    monkeypatch.setattr(bench, "run_anchors", run_anchors)
    monkeypatch.setattr(bench, "anchor_model", lambda *a: tmp_path)
    monkeypatch.setattr(bench, "_models", lambda *a: iter([("fp32", tmp_path)]))
    report = bench.bench((8, 1, 1, 8, 16), [1], 1, 1, ["fp32"], tmp_path, progress=lambda m: None, rounds=3)
    assert calls == ["traductor", "anchors", "anchors", "traductor", "traductor", "anchors"]
    assert report["traductor"] == {"fp32": {"1": 90.0}}  # median of 100, 50, 90
    assert report["anchors"]["ctranslate2"]["results"] == {"fp32": {"1": 60.0}}
    assert report["anchors"]["optimum"] == {"error": "not installed"}
    # per round 100/80, 50/50, 90/60: median 1.25, not 90/60 = 1.5 from the medians
    assert report["ratios"] == {"fp32": {"1": {"rounds": [1.25, 1.0, 1.5], "median": 1.25}}}
    from traductor.bench.report import ratio_table

    assert "**x1.25** (1.25, 1.00, 1.50)" in ratio_table(report)


def test_bench_rounds_time_one_batch_size_at_a_time(monkeypatch, tmp_path):
    """With anchors, a round times traductor and the anchors back to back for each batch size, the
    first of the two alternating; the anchors' reports of one round are merged, an engine that
    failed at one batch size keeping its other results, and ratios pair each batch's two timings."""
    import traductor.bench.measure as bench

    calls = []
    ours = {"1": iter([100.0, 60.0]), "8": iter([400.0, 300.0])}  # rounds 1, 2
    theirs = {"1": iter([80.0, 60.0]), "8": iter([200.0, 300.0])}

    def run_engine(model_dir, batches, runs, threads):
        calls.append(("traductor", batches))
        return {str(b): next(ours[str(b)]) for b in batches}

    def run_anchors(shape, batches, runs, threads, anchors_dir):
        calls.append(("anchors", batches))
        (b,) = batches
        optimum = {"results": {"fp32": {"1": 1.0}}} if b == 1 else {"error": "optimum failed at 8"}
        return {
            "ctranslate2": {"results": {"fp32": {str(b): next(theirs[str(b)])}}, "details": {"fp32": {str(b): {}}}},
            "optimum": optimum,
        }

    monkeypatch.setattr(bench, "run_engine", run_engine)
    monkeypatch.setattr(bench, "run_anchors", run_anchors)
    monkeypatch.setattr(bench, "anchor_model", lambda *a: tmp_path)
    monkeypatch.setattr(bench, "_models", lambda *a: iter([("fp32", tmp_path)]))
    report = bench.bench((8, 1, 1, 8, 16), [1, 8], 1, 1, ["fp32"], tmp_path, progress=lambda m: None, rounds=2)
    assert calls == [
        ("traductor", [1]),
        ("anchors", [1]),
        ("anchors", [8]),
        ("traductor", [8]),
        ("anchors", [1]),
        ("traductor", [1]),
        ("traductor", [8]),
        ("anchors", [8]),
    ]
    first = report["per_round"][0]["anchors"]
    assert first["ctranslate2"]["results"] == {"fp32": {"1": 80.0, "8": 200.0}}
    assert first["ctranslate2"]["details"] == {"fp32": {"1": {}, "8": {}}}
    assert first["optimum"] == {"results": {"fp32": {"1": 1.0}}, "errors": ["optimum failed at 8"]}

    from traductor.bench.report import merge_anchors

    merged: dict = {}
    merge_anchors(merged, {"optimum": {"error": "no venv"}, "pytorch": {"error": "first"}})
    merge_anchors(merged, {"optimum": {"results": {"fp32": {"8": 2.0}}}, "pytorch": {"error": "second"}})
    assert merged["optimum"] == {"results": {"fp32": {"8": 2.0}}, "errors": ["no venv"]}
    assert merged["pytorch"] == {"error": "first"}
    assert report["traductor"] == {"fp32": {"1": 80.0, "8": 350.0}}
    assert report["ratios"] == {
        "fp32": {"1": {"rounds": [1.25, 1.0], "median": 1.125}, "8": {"rounds": [2.0, 1.0], "median": 1.5}}
    }
