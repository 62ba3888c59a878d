"""Fixtures for the reliability tests: real services on the tiny bundle (tests/conftest.py)."""

from __future__ import annotations

import grpc
import pytest
from rel_harness import reliability_server
from server_harness import Gate, ServerThread


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def make_service(tiny_bundle):
    """make_service(**settings) -> a started reliability_server, drained and stopped after the test."""
    started: list[ServerThread] = []

    def make(before_step=None, **overrides) -> ServerThread:
        svc = reliability_server(tiny_bundle, before_step=before_step, **overrides)
        started.append(svc)
        return svc

    yield make
    for svc in started:
        svc.release()
        svc.stop()


@pytest.fixture
def channel_for():
    """channel_for(target) -> an insecure channel, closed after the test."""
    channels: list[grpc.Channel] = []

    def make(target: str) -> grpc.Channel:
        ch = grpc.insecure_channel(target)
        channels.append(ch)
        return ch

    yield make
    for ch in channels:
        ch.close()
