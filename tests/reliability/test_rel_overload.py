"""Overload: a flood from several client processes against a tiny queue gets OK or
RESOURCE_EXHAUSTED only (never CANCELLED, UNKNOWN or UNAVAILABLE), every refusal with the retry
hint, every refusal counted, no engine step spent on any of them, health still answered."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from traductor_client.v1 import translator_pb2 as pb

PROCESSES, CALLS = 4, 600  # calls per process, all sent at once
ROWS, QUEUE = 2, 4
CLIENT = Path(__file__).with_name("rel_flood_client.py")
RPCS = ("Translate", "TranslateBatch")


def _launch(target: str) -> list[subprocess.Popen]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(CLIENT), target, str(CALLS)]
    procs = [
        subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(PROCESSES)
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:  # all together
        p.stdin.write("go\n")
        p.stdin.flush()
    return procs


def test_flood_gets_only_ok_and_resource_exhausted(make_service, gate, caplog):
    """PROCESSES x CALLS calls at once while the engine is held: exactly QUEUE are accepted (and served
    once the engine runs), every other one is RESOURCE_EXHAUSTED with `grpc-retry-pushback-ms: 250`,
    counted in traductor_shed_requests_total and traductor_requests_total; no step ran meanwhile."""
    caplog.set_level(logging.WARNING)
    svc = make_service(before_step=gate, max_active_sequences=ROWS, max_queued_requests=QUEUE)
    gate.close()
    steps = gate.steps
    total = PROCESSES * CALLS

    def refused() -> float:
        return sum(svc.requests(rpc, "RESOURCE_EXHAUSTED") for rpc in RPCS)

    procs = _launch(svc.target)
    try:
        assert svc.wait_for(lambda: refused() == total - QUEUE, timeout=300), refused()
        assert gate.steps == steps  # refused without any engine work
        assert svc.service.engine.core.stats().queued == QUEUE
        assert svc.health_status() == health_pb2.HealthCheckResponse.SERVING  # health is never shed
        assert svc.stub.GetModelInfo(pb.GetModelInfoRequest(), timeout=30).max_input_tokens  # nor model info
        with pytest.raises(grpc.RpcError) as e:  # a stream is refused the same way, before it starts
            list(svc.stub.TranslateStream(pb.TranslateRequest(text="uno dos"), timeout=30))
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert dict(e.value.trailing_metadata())["grpc-retry-pushback-ms"] == "250"
        stream = {"protocol": "grpc", "rpc": "TranslateStream", "stage": "accept"}
        assert svc.wait_for(lambda: svc.metric("traductor_shed_requests_total", stream) == 1)
        gate.open()
        results = [json.loads(p.communicate(timeout=300)[0].splitlines()[-1]) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    codes = sum((Counter(r["codes"]) for r in results), Counter())
    hints = sum((Counter(r["hints"]) for r in results), Counter())
    print(f"flood: {PROCESSES} processes x {CALLS} calls: {dict(codes)}; retry hints {dict(hints)}")
    assert codes == Counter({"OK": QUEUE, "RESOURCE_EXHAUSTED": total - QUEUE})
    assert hints == Counter({"250": total - QUEUE})
    shed = sum(
        svc.metric("traductor_shed_requests_total", {"protocol": "grpc", "rpc": rpc, "stage": stage})
        for rpc in RPCS
        for stage in ("accept", "handler", "queue")
    )
    assert shed == total - QUEUE
    assert sum(svc.requests(rpc, "OK") for rpc in RPCS) == QUEUE
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.records[:3]
