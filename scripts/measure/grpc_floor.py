"""What grpcio itself costs per call and per streamed message, with nothing of traductor behind it.

    python scripts/measure/grpc_floor.py [--seconds 6] [--rounds 3] [--concurrency 64]
    python scripts/measure/grpc_floor.py --handler-ms 7.4 [--calls 400] [--rounds 3]

A bare grpcio asyncio server (a child process: the Translator service with no engine, no
interceptor, no text layer) answers `Translate` at once and `TranslateStream` with 32 token
messages and a final one, as fast as it can. The load runs in this process on one asyncio
channel, `--concurrency` callers in a closed loop, in two ways:

  bare      the generated stub (`async for message in call`), nothing else;
  library   `AsyncTranslatorClient.translate` / `stream_events`, as `traductor-client loadtest`.

For each: calls/s, and the CPU of the server and of the client per call (user + system from
/proc, every thread); `(stream - unary) / 32` is the CPU of one more streamed message on each side.
Rounds alternate unary and streams; figures are medians over the rounds.

`--handler-ms MS`: what grpcio alone adds to one short call, for per_call.py's ratio. The bare
server's `Translate` awaits MS milliseconds (an engine's time for the text, during which its
process sleeps as the front does while the engine decodes) before it answers a short message;
one caller, the generated synchronous stub as per_call.py uses it, calls one after the other. The
median of (call time - the handler's own time, sent back in `timings`) per round, and its ratio to MS.
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
    def __init__(self, handler_seconds: float = 0.0):
        self.handler_seconds = handler_seconds

    async def Translate(self, request, context):
        if self.handler_seconds:  # --handler-ms: a short call's answer after an engine's time
            begin = time.perf_counter()
            await asyncio.sleep(self.handler_seconds)  # (it oversleeps: the time taken is sent back)
            timings = pb.Timings(total_seconds=time.perf_counter() - begin)
            text = "No se encontró el archivo."
            return pb.TranslateResponse(text=text, token_ids=list(range(7)), request_id="r", timings=timings)
        return pb.TranslateResponse(text="x " * TOKENS, token_ids=list(range(TOKENS)), request_id="r")

    async def TranslateStream(self, request, context):
        for i in range(TOKENS):
            yield pb.TranslateStreamResponse(text_delta=" palabra", token_id=i, index=i, request_id="r")
        yield pb.TranslateStreamResponse(token_id=-1, index=TOKENS, request_id="r")


async def serve(port: int, handler_seconds: float = 0.0) -> None:
    server = grpc.aio.server()
    pb_grpc.add_TranslatorServicer_to_server(Instant(handler_seconds), server)
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
    ap.add_argument("--handler-ms", type=float, help="one caller; Translate answers after this long (see above)")
    ap.add_argument("--calls", type=int, default=400, help="with --handler-ms: calls a round")
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if args.handler_ms:
        return around_handler(port, args)
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


def around_handler(port: int, args) -> None:
    """`--handler-ms`: grpcio's own time around a handler that takes an engine's time."""
    handler = args.handler_ms / 1000
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(handler)])
    extra = []
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            stub, request = pb_grpc.TranslatorStub(channel), pb.TranslateRequest(text="File not found.")
            for _ in range(20):
                stub.Translate(request)
            for r in range(args.rounds):
                times = []
                for _ in range(args.calls):
                    t0 = time.perf_counter()
                    reply = stub.Translate(request)
                    times.append(time.perf_counter() - t0 - reply.timings.total_seconds)
                extra.append(statistics.median(times))
                print(f"round {r + 1}: {extra[-1] * 1e6:.0f} us beyond the handler's {args.handler_ms} ms")
    finally:
        server.terminate()
        server.wait(30)
    median = statistics.median(extra)
    print(
        f"one caller, {args.calls} calls a round, medians: grpcio adds {median * 1e6:.0f} us to a handler of "
        f"{args.handler_ms} ms (x{1 + median / handler:.2f}); load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0.0))
    else:
        main()
