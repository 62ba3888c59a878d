"""Server reflection, when enabled, lists the Translator service (grpcurl relies on it)."""

from __future__ import annotations

import pytest
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from service_harness import WAIT


@pytest.fixture(scope="module")
def server_settings():
    return {"reflection": True}


def test_reflection_lists_the_services(server):
    """The reflection service lists traductor.v1.Translator, health and itself, and serves the Translator's file."""
    stub = reflection_pb2_grpc.ServerReflectionStub(server.channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="traductor.v1.Translator"),
    ]
    listed, described = list(stub.ServerReflectionInfo(iter(requests), timeout=WAIT))
    names = {s.name for s in listed.list_services_response.service}
    assert {"traductor.v1.Translator", "grpc.health.v1.Health"} <= names
    assert described.file_descriptor_response.file_descriptor_proto
