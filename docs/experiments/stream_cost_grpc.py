"""What grpcio's asyncio server costs per streamed message, with no engine behind it.

    python docs/experiments/stream_cost_grpc.py

Starts a Translator server (a child process) whose TranslateStream yields 33 small messages at
once and whose Translate answers at once, drives it with 64 concurrent callers for 8 s per run
(unary, streams, unary, streams), and prints calls/s and the server's CPU time per call (user +
system, from /proc). (streams - unary) / 32 is grpcio's CPU per streamed message.
(docs/performance.md, "Where the per-token cost comes from".)
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import grpc

from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

TOKENS, CONCURRENCY, SECONDS = 32, 64, 8.0


class Instant(pb_grpc.TranslatorServicer):
    async def Translate(self, request, context):
        return pb.TranslateResponse(text="x " * TOKENS, token_ids=list(range(TOKENS)))

    async def TranslateStream(self, request, context):
        for i in range(TOKENS):
            yield pb.TranslateStreamResponse(text_delta=" palabra", token_id=i, index=i)
        yield pb.TranslateStreamResponse(token_id=-1, index=TOKENS)


async def serve(port: int) -> None:
    server = grpc.aio.server()
    pb_grpc.add_TranslatorServicer_to_server(Instant(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


async def load(port: int, stream: bool) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub, request, done = pb_grpc.TranslatorStub(channel), pb.TranslateRequest(text="hello"), 0
        end = time.monotonic() + SECONDS

        async def caller() -> None:
            nonlocal done
            while time.monotonic() < end:
                if stream:
                    async for _ in stub.TranslateStream(request):
                        pass
                else:
                    await stub.Translate(request)
                done += 1

        await asyncio.gather(*[caller() for _ in range(CONCURRENCY)])
        return done


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        utime, stime = f.read().split()[13:15]
    return (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        for stream in (False, True, False, True):
            cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
            calls = asyncio.run(load(port, stream))
            cpu, wall = cpu_seconds(server.pid) - cpu0, time.monotonic() - t0
            row = {"calls": "streams" if stream else "unary", "calls_per_s": round(calls / wall)}
            print(json.dumps(row | {"server_cpu_ms_per_call": round(cpu / calls * 1000, 3)}), flush=True)
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(int(sys.argv[2])))
    else:
        main()
