"""Fixtures of the HTTP API tests: one in-process server per module, serving gRPC and HTTP on
one event loop (tests/server_harness.py), and the HTTP caller of http_harness.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from server_harness import ServerThread, free_port, make_settings

# http_harness sits next to this file (pytest's default import mode already puts this directory
# on sys.path; this keeps --import-mode=importlib working too).
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="module")
def server_settings() -> dict:
    """Settings overrides of a module's server; a module redefines this fixture to change them."""
    return {}


@pytest.fixture(scope="module")
def server(tiny_bundle, server_settings):
    """One in-process server per module, serving HTTP on a free port next to gRPC."""
    s = ServerThread(make_settings(tiny_bundle, http_port=free_port(), **server_settings))
    s.url = f"http://127.0.0.1:{s.service.http.port}/"
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _engine_left_open(request):
    """A test that closed the gate cannot leave the engine held for the next test."""
    yield
    if "server" in request.fixturenames:
        request.getfixturevalue("server").gate.open()
