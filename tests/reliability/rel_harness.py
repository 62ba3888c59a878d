"""The reliability tests' server (tests/server_harness.py with their defaults), plus the two
helpers only they use."""

from __future__ import annotations

from pathlib import Path

import grpc
from server_harness import ServerThread, make_settings

from traductor_client.v1 import translator_pb2_grpc


def reliability_server(bundle: Path, before_step=None, **overrides) -> ServerThread:
    """A started server with the reliability tests' defaults (8 rows, 64 queued, 2 s drain)."""
    values = dict(max_active_sequences=8, max_queued_requests=64, drain_seconds=2.0)
    values.update(overrides)
    return ServerThread(make_settings(bundle, **values), before_step=before_step)


def vm_rss_kib(pid: int | str = "self") -> int:
    """Resident set size from /proc (psutil is not installed)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS line")


def stub_of(channel: grpc.Channel) -> translator_pb2_grpc.TranslatorStub:
    return translator_pb2_grpc.TranslatorStub(channel)
