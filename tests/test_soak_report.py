"""scripts/soak/soak_report.py and soak_mix.classify: which outcomes of a soak run count as unexpected,
which refusals fall in a flood burst, which failures belong to a restart, and the RSS growth."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "soak"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


soak_mix = _load("soak_mix")
soak_report = _load("soak_report")


@pytest.mark.parametrize(
    "kind, code, verdict",
    [
        ("unary", "OK", "expected"),
        ("cancel", "CANCELLED", "expected"),
        ("stream", "CANCELLED", "unexpected"),
        ("deadline", "DEADLINE_EXCEEDED", "expected"),
        ("long", "DEADLINE_EXCEEDED", "unexpected"),
        ("batch", "RESOURCE_EXHAUSTED", "refused"),
        ("unary", "UNAVAILABLE", "unexpected"),
        ("stream", "RuntimeError", "unexpected"),
    ],
)
def test_classify(kind, code, verdict):
    assert soak_mix.classify(kind, code) == verdict


def _call(kind: str, code: str, start: float, end: float) -> dict:
    return {"kind": kind, "code": code, "verdict": soak_mix.classify(kind, code), "start": start, "end": end}


def test_refusals_are_allowed_only_in_and_just_after_bursts_and_failures_land_on_their_restart():
    bursts = [{"began": 100.0, "ended": 110.0, "calls": 10, "codes": {"OK": 6, "RESOURCE_EXHAUSTED": 4}}]
    restarts = [
        {"began": 200.0, "serving_at": 210.0, "exit_code": 0},
        {"began": 300.0, "serving_at": 305.0, "exit_code": 0},
    ]
    odd = [
        _call("unary", "RESOURCE_EXHAUSTED", 105.0, 105.5),  # in the burst
        _call("stream", "RESOURCE_EXHAUSTED", 112.0, 114.0),  # within AFTER_BURST of its end
        _call("batch", "RESOURCE_EXHAUSTED", 150.0, 150.2),  # far from any burst
        _call("unary", "UNAVAILABLE", 209.0, 209.1),  # during the first restart
    ]
    judged = soak_report.judge_calls(odd, bursts, restarts)
    assert judged["refused_in_bursts"] == 2
    assert judged["refused_outside_bursts"] == 1
    assert judged["unexpected"] == 2
    assert judged["unexpected_by_code"] == {"batch:RESOURCE_EXHAUSTED": 1, "unary:UNAVAILABLE": 1}
    assert restarts[0]["failed_calls"] == {"UNAVAILABLE": 1}
    assert restarts[1]["failed_calls"] == {}


def test_a_burst_may_only_see_ok_and_resource_exhausted_and_every_call_must_be_answered():
    latency = {"RESOURCE_EXHAUSTED": {"p50": 3.0, "p99": 40.0, "max": 41.0}}
    bursts = [
        {"began": 1.0, "ended": 2.0, "calls": 10, "codes": {"OK": 5, "RESOURCE_EXHAUSTED": 5}, "latency_ms": latency},
        {"began": 3.0, "ended": 4.0, "calls": 10, "codes": {"OK": 7, "CANCELLED": 1}},  # 2 calls never answered
    ]
    judged = soak_report.judge_bursts(bursts)
    assert judged["codes"] == {"OK": 12, "RESOURCE_EXHAUSTED": 5, "CANCELLED": 1}
    assert judged["unexpected"] == 3
    assert judged["refusal_ms_p99_max"] == 40.0


def test_rss_growth_is_measured_from_the_first_sample_after_the_warmup():
    samples = [{"minute": m, "rss_mib": rss} for m, rss in [(1.0, 100.0), (2.0, 150.0), (3.0, 160.0), (4.0, 168.0)]]
    figures = soak_report.rss_figures(samples, warmup=2.0)
    assert figures["rss_mib_first_sample"] == 100.0
    assert figures["rss_mib_after_warmup"] == 150.0
    assert figures["rss_mib_end"] == 168.0
    assert figures["rss_growth_pct"] == 12.0
