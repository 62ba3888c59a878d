"""Fixtures for the client tests: a fake Translator server per test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The helper module sits next to this file. pytest's default import mode puts this directory
# on sys.path already; doing it here too keeps the tests working under --import-mode=importlib.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from client_fake_server import FakeServer  # noqa: E402


@pytest.fixture
def server():
    fake = FakeServer()
    try:
        yield fake
    finally:
        fake.stop()
