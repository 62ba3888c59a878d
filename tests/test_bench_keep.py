"""`traductor bench --keep DIR`: the random weights' bundles are exported into DIR once and the
next run with the same shape times those same files instead of exporting again (an
NLLB-600M-sized export takes minutes and gigabytes)."""

from __future__ import annotations

from cli_harness import run_error

from traductor.cli import main

SHAPE = "16,1,2,32,64"


def bench(keep, capsys) -> str:
    args = ["bench", "--shape", SHAPE, "--precisions", "fp32", "--batches", "1", "--runs", "1", "--json"]
    assert main([*args, "--keep", str(keep)]) in (0, None)
    return capsys.readouterr().err


def test_keep_exports_once_and_reuses(tmp_path, capsys):
    first = bench(tmp_path, capsys)
    (bundle,) = (tmp_path / "random-16-1-2-32-64").iterdir()
    assert "traductor fp32: export" in first and bundle.name == "fp32" and (bundle / "config.json").is_file()
    written = {p.name: p.stat().st_mtime_ns for p in bundle.iterdir()}
    second = bench(tmp_path, capsys)
    assert f"reuse {bundle}" in second and "traductor fp32: export" not in second
    assert {p.name: p.stat().st_mtime_ns for p in bundle.iterdir()} == written


def test_keep_is_for_random_weights(tmp_path, capsys):
    run_error(["bench", "--bundle", "default", "--keep", str(tmp_path)], capsys, "--keep", "--bundle")
