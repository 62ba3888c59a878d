"""`traductor serve` as a subprocess on free ports (drain, metrics and soak use it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from server_harness import free_port


class ServeProcess:
    def __init__(self, bundle: Path, log_path: Path, *flags: str):
        self.port, self.metrics_port = free_port(), free_port()
        self.target = f"127.0.0.1:{self.port}"
        cmd = [
            sys.executable,
            "-m",
            "traductor.cli",
            "serve",
            "--model" if (Path(bundle) / "config.json").is_file() else "--model-repository",  # a bundle or a repository
            str(bundle),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--metrics-port",
            str(self.metrics_port),
            "--threads",
            "1",
            "--prestop-seconds",  # no pre-stop window unless a test asks for one (a later flag wins)
            "0",
            *flags,
        ]
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            cmd, stdout=self.log, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1"}
        )
        self.channel = grpc.insecure_channel(self.target)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def health_status(self) -> str:
        try:
            response = self.health.Check(health_pb2.HealthCheckRequest(), timeout=2)
            return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
        except grpc.RpcError as e:
            return e.code().name

    def wait_status(self, status: str, timeout: float = 60) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end and self.proc.poll() is None:
            if self.health_status() == status:
                return True
            time.sleep(0.05)
        return False

    def engine_processes(self) -> list[int]:
        """The live engine processes `traductor serve` spawned, one per model (not multiprocessing's
        resource tracker, its other child, nor a dead one not yet reaped: no command line)."""
        children, engines = [], []
        for task in Path(f"/proc/{self.proc.pid}/task").iterdir():
            try:
                children += (task / "children").read_text().split()
            except OSError:  # a thread that ended meanwhile
                continue
        for child in children:
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:  # gone meanwhile
                continue
            if command and b"resource_tracker" not in command:
                engines.append(int(child))
        return engines

    def metrics_text(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as r:
            return r.read().decode()

    def metric(self, name: str) -> float | None:
        for line in self.metrics_text().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        return None

    def close(self) -> None:
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()
