#!/usr/bin/env python3
"""Which replicas answer SERVING to the gRPC health check, for the balancer's replica list.

    python3 grpc_health.py PORT ADDRESS...

prints, one a line, the addresses whose ``grpc.health.v1.Health/Check`` (service "") answered
SERVING on PORT. The balancer image has python3 but no grpcio, so this speaks plaintext HTTP/2
(h2c) itself, with the standard library: the connection preface, one request on stream 1 with
its headers sent as HPACK literals, and it reads frames until that stream ends. A replica that
refuses, does not answer within --timeout seconds, or answers anything else (NOT_SERVING while
it is stopping or starting) is left out. It knows nothing of TLS or tokens (the replicas behind
the balancer are plaintext, and the health service needs no token).
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import threading
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, GOAWAY = 0, 1, 3, 4, 7
END_STREAM, END_HEADERS, PADDED = 0x1, 0x4, 0x8
SERVING = b"\x08\x01"  # HealthCheckResponse{status: SERVING}


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(name: str, value: str) -> bytes:
    """An HPACK header field without indexing, new name, no Huffman (names and values < 127 bytes)."""
    return b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()


def request(authority: str) -> bytes:
    headers = b"".join(
        literal(name, value)
        for name, value in [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/grpc.health.v1.Health/Check"),
            (":authority", authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
    )
    message = b"\x00" + struct.pack(">I", 0)  # not compressed, an empty HealthCheckRequest
    return (
        PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_HEADERS, 1, headers) + frame(DATA, END_STREAM, 1, message)
    )


def read_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def is_serving(address: str, port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((address, port), timeout=timeout) as sock:
            sock.sendall(request(f"{address}:{port}"))
            body = b""
            while time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                head = read_exactly(sock, 9)
                length, kind, flags = int.from_bytes(head[:3], "big"), head[3], head[4]
                stream = int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
                payload = read_exactly(sock, length)
                if kind == SETTINGS and not flags & 0x1:
                    sock.sendall(frame(SETTINGS, 0x1, 0))  # acknowledge the server's settings
                elif kind in (GOAWAY, RST_STREAM):
                    return False
                elif kind == DATA and stream == 1:
                    body += payload[1 : len(payload) - payload[0]] if flags & PADDED else payload
                if stream == 1 and flags & END_STREAM:
                    return body[5:7] == SERVING  # after the 5-byte gRPC message prefix
    except (OSError, ConnectionError):
        pass
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("addresses", nargs="*")
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args()
    answers: dict[str, bool] = {}
    threads = [
        threading.Thread(target=lambda a=a: answers.__setitem__(a, is_serving(a, args.port, args.timeout)))
        for a in args.addresses
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sys.stdout.write("".join(f"{a}\n" for a in args.addresses if answers.get(a)))


if __name__ == "__main__":
    main()
