"""The compose side of scripts/soak/soak.py: the translator replicas of a running compose project
under Podman, their RSS, rolling restarts under load, and their logs.

The stack is started by the caller (docs/compose.md); this module only finds its containers by
their compose labels, so ``CONTAINERS_CONF`` must be set as for the stack itself. A restart is
what tests/compose/churn.sh does: ``podman stop -t GRACE`` (SIGTERM, then SIGKILL after the
grace period), the exit code, ``podman start``, then wait until the replica answers SERVING to
its own gRPC health service (asked inside it). Replica 1 is never restarted: its RSS is the one
measured, from its main process's /proc/PID/status on the host.
"""

from __future__ import annotations

import os
import re
import subprocess
import time


def podman(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)


def replicas(project: str) -> list[str]:
    """The translator containers of ``project``, replica 1 first."""
    out = podman(
        "ps",
        "-a",
        "--format",
        "{{.Names}}",
        "--filter",
        f"label=com.docker.compose.project={project}",
        "--filter",
        "label=com.docker.compose.service=translator",
    ).stdout.split()

    def number(name: str) -> int:
        found = re.search(r"(\d+)$", name)
        return int(found.group(1)) if found else 0

    return sorted(out, key=number)


def rss_mib(container: str) -> float:
    """VmRSS of the container's main process (the server), read on the host."""
    pid = podman("inspect", "-f", "{{.State.Pid}}", container).stdout.strip()
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for {container} (pid {pid})")


def is_serving(container: str) -> bool:
    try:
        result = podman("exec", container, "traductor-client", "health", "--target", "127.0.0.1:50051", timeout=30)
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == 0


def restart(container: str, grace: int, wait: float = 300) -> dict:
    """Stop with SIGTERM, start, wait for SERVING; times in seconds since the SIGTERM."""
    began = time.time()
    podman("stop", "-t", str(grace), container, timeout=grace + 60)
    stopped = time.time()
    exit_code = podman("inspect", "-f", "{{.State.ExitCode}}", container).stdout.strip()
    started = podman("start", container, timeout=120).returncode == 0
    serving = None
    while started and time.time() - began < wait:
        if is_serving(container):
            serving = time.time()
            break
        time.sleep(0.5)
    return {
        "replica": container,
        "began": round(began, 3),
        "stopped_s": round(stopped - began, 2),
        "exit_code": int(exit_code) if exit_code.lstrip("-").isdigit() else exit_code,
        "started": started,
        "serving_s": round(serving - began, 2) if serving else None,
        "serving_at": round(serving, 3) if serving else None,
    }


def save_logs(project: str, folder: str) -> dict:
    """`podman logs` of every container of the project into FOLDER; per translator replica, the
    number of tracebacks and of ERROR lines."""
    os.makedirs(folder, exist_ok=True)
    names = podman("ps", "-a", "--format", "{{.Names}}", "--filter", f"label=com.docker.compose.project={project}")
    found = {}
    for name in names.stdout.split():
        text = podman("logs", name, timeout=120)
        log = text.stdout + text.stderr
        with open(os.path.join(folder, f"{name}.log"), "w") as f:
            f.write(log)
        if "translator" in name:
            found[name] = {
                "tracebacks": log.count("Traceback"),
                "error_lines": sum(1 for line in log.splitlines() if " ERROR " in line or line.startswith("ERROR")),
            }
    return found
