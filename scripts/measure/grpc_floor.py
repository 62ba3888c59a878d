"""What grpcio itself costs per call and per streamed message, with nothing of traductor behind it.

    python scripts/measure/grpc_floor.py [--seconds 6] [--rounds 3] [--concurrency 64]

A bare grpcio asyncio server (a child process: the Translator service with no engine, no
interceptor, no text layer) answers `Translate` at once and `TranslateStream` with 32 token
messages and a final one, as fast as it can. The load runs in this process on one asyncio
channel, `--concurrency` callers in a closed loop, in two ways:

  bare      the generated stub (`async for message in call`), nothing else;
  library   `AsyncTranslatorClient.translate` / `stream_events`, as `traductor-client loadtest`.

For each: calls/s, and the CPU of the server and of the client per call (user + system from
/proc, every thread); `(stream - unary) / 32` is the CPU of one more streamed message on each side.
Rounds alternate unary and streams; figures are medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time

import grpc

from traductor_client.async_client import AsyncTranslatorClient
from traductor_client.v1 import translator_pb2 as pb
from traductor_client.v1 import translator_pb2_grpc as pb_grpc

TOKENS = 32


class Instant(pb_grpc.TranslatorServicer):
    async def Translate(self, request, context):
        return pb.TranslateResponse(text="x " * TOKENS, token_ids=list(range(TOKENS)), request_id="r")

    async def TranslateStream(self, request, context):
        for i in range(TOKENS):
            yield pb.TranslateStreamResponse(text_delta=" palabra", token_id=i, index=i, request_id="r")
        yield pb.TranslateStreamResponse(token_id=-1, index=TOKENS, request_id="r")


async def serve(port: int) -> None:
    server = grpc.aio.server()
    pb_grpc.add_TranslatorServicer_to_server(Instant(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        utime, stime = f.read().split()[13:15]
    return (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")


async def load(port: int, client: str, stream: bool, concurrency: int, seconds: float) -> int:
    done, end = 0, time.monotonic() + seconds
    if client == "bare":
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        stub, request = pb_grpc.TranslatorStub(channel), pb.TranslateRequest(text="hello")

        async def call() -> None:
            if stream:
                async for _ in stub.TranslateStream(request):
                    pass
            else:
                await stub.Translate(request)

    else:
        library = AsyncTranslatorClient(f"127.0.0.1:{port}")

        async def call() -> None:
            if stream:
                async for _ in library.stream_events("hello"):
                    pass
            else:
                await library.translate("hello")

    async def caller() -> None:
        nonlocal done
        while time.monotonic() < end:
            await call()
            done += 1

    await asyncio.gather(*[caller() for _ in range(concurrency)])
    await (channel.close() if client == "bare" else library.close())
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    rows: dict[tuple[str, str], list[dict]] = {}
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        for _ in range(args.rounds):
            for client in ("bare", "library"):
                for mode in ("unary", "stream"):
                    s0, c0, t0 = cpu_seconds(server.pid), cpu_seconds(os.getpid()), time.monotonic()
                    calls = asyncio.run(load(port, client, mode == "stream", args.concurrency, args.seconds))
                    wall = time.monotonic() - t0
                    server_cpu, client_cpu = cpu_seconds(server.pid) - s0, cpu_seconds(os.getpid()) - c0
                    rows.setdefault((client, mode), []).append(
                        {
                            "calls_per_s": calls / wall,
                            "server_us": server_cpu / calls * 1e6,
                            "client_us": client_cpu / calls * 1e6,
                        }
                    )
    finally:
        server.terminate()
        server.wait(30)
    print(f"{args.concurrency} callers, {args.seconds:.0f} s per run, medians of {args.rounds} rounds")
    med = {k: {f: statistics.median(r[f] for r in v) for f in v[0]} for k, v in rows.items()}
    for (client, mode), m in med.items():
        print(
            f"{client:>7} {mode:>6}: {m['calls_per_s']:,.0f} calls/s; CPU a call: server {m['server_us']:.0f} us,"
            f" client {m['client_us']:.0f} us"
        )
    for client in ("bare", "library"):
        u, s = med[(client, "unary")], med[(client, "stream")]
        per = {side: (s[f"{side}_us"] - u[f"{side}_us"]) / TOKENS for side in ("server", "client")}
        print(
            f"{client:>7}: one more streamed message costs server {per['server']:.1f} us, client {per['client']:.1f} us"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(int(sys.argv[2])))
    else:
        main()
