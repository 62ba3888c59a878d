"""Fixtures for the client tests: a fake Translator server per test."""

from __future__ import annotations

import pytest
from client_fake_server import FakeServer  # next to this file: pytest puts this folder on sys.path


@pytest.fixture
def server():
    fake = FakeServer()
    try:
        yield fake
    finally:
        fake.stop()
