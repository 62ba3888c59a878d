"""The standard gRPC health check, without grpcio-health-checking.

The client depends on grpcio and protobuf only. It also must not carry its own generated copy
of ``grpc/health/v1/health.proto``: the server imports grpc_health's copy, and two definitions
of the ``grpc.health.v1.*`` messages in one process collide in protobuf's descriptor pool. The
two messages involved are tiny, so they are encoded and decoded by hand here and the method is
called through a generic ``channel.unary_unary``:

    message HealthCheckRequest  { string service = 1; }
    message HealthCheckResponse { ServingStatus status = 1; }
    enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }

Protobuf wire format used: each field is a varint key ``(field_number << 3) | wire_type``
followed by its value; wire type 0 is a varint, 2 is length-delimited (varint length, bytes),
1 is 8 fixed bytes and 5 is 4 fixed bytes. Default values (empty string, 0) are not written.
"""

from __future__ import annotations

from typing import Dict, Tuple

CHECK_METHOD = "/grpc.health.v1.Health/Check"

STATUS_NAMES: Dict[int, str] = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}

_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _decode_varint(data: bytes, pos: int) -> Tuple[int, int]:
    """Return (value, position after the varint)."""
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint in health check response")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 64:
            raise ValueError("varint too long in health check response")


def encode_check_request(service: str) -> bytes:
    """Serialise ``HealthCheckRequest{service}`` (field 1, length-delimited)."""
    data = service.encode("utf-8")
    if not data:
        return b""
    return _encode_varint((1 << 3) | _LENGTH_DELIMITED) + _encode_varint(len(data)) + data


def decode_check_response(data: bytes) -> int:
    """Parse ``HealthCheckResponse`` and return its ``status`` number (0 when absent).

    Unknown fields are skipped, as any protobuf parser would, so a newer server adding fields
    does not break this client.
    """
    status = 0
    pos = 0
    while pos < len(data):
        key, pos = _decode_varint(data, pos)
        field_number, wire_type = key >> 3, key & 0x7
        if wire_type == _VARINT:
            value, pos = _decode_varint(data, pos)
            if field_number == 1:
                status = value
        elif wire_type == _LENGTH_DELIMITED:
            length, pos = _decode_varint(data, pos)
            pos += length
        elif wire_type == _FIXED64:
            pos += 8
        elif wire_type == _FIXED32:
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire_type} in health check response")
        if pos > len(data):
            raise ValueError("truncated health check response")
    return status


def status_name(status: int) -> str:
    return STATUS_NAMES.get(status, f"UNKNOWN_STATUS_{status}")
