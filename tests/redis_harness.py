"""A private redis-server for the tests that need a real Redis: started on a free port in a
temporary directory (no disk persistence), ready once it says so on its output, stopped after.
Where the `redis-server` Debian package is missing, those tests skip and name it."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from server_harness import WAIT, free_port

PACKAGE = "redis-server"


class RedisServer:
    def __init__(self, directory: Path):
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip(f"no redis-server: install the Debian package {PACKAGE} (scripts/setup.sh does, as root)")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(directory)]
        args += ["--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "notice"]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ready = threading.Event()
        self.output: list[str] = []

        def read() -> None:
            for line in self.process.stdout:
                self.output.append(line)
                if "Ready to accept connections" in line:
                    ready.set()
            ready.set()  # it exited: the wait below ends and the check says so

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(WAIT) or self.process.poll() is not None:
            self.stop()
            raise AssertionError("redis-server did not start: " + "".join(self.output[-5:]))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(WAIT)


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()
