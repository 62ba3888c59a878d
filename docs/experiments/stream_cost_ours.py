"""CPU cost of traductor's own per-token streaming path, without gRPC and without a model.

    python docs/experiments/stream_cost_ours.py

A fake engine hands each step's events to 64 streams of 32 tokens (as AsyncEngine does, one
queue per request); each stream goes through texts.stream (DeltaStream), token_to_pb and the error
interceptor's stream wrapper, and every message is serialized. Prints the CPU time per message
(docs/performance.md, "Where the per-token cost comes from").
"""

import asyncio
import time

from traductor.engine.request import FinishEvent, FinishReason, Timings, TokenEvent
from traductor.service import texts
from traductor.service.convert import final_to_pb, token_to_pb
from traductor.service.interceptors import ErrorInterceptor
from traductor.service.metrics import Metrics
from traductor.text import plan

N, T = 64, 32


class FakeEngine:
    """generate_many: T tokens per request; every step's events delivered in one callback."""

    memory = {}

    def __init__(self):
        self.queues = []

    async def generate_many(self, inputs, ids, timeout=None, stream=True):
        q = asyncio.Queue()
        self.queues.append(q)
        for _ in inputs:
            while True:
                ev = await q.get()
                yield 0, ev
                if isinstance(ev, FinishEvent):
                    return

    def step(self, t):
        for q in self.queues:
            if t < T:
                q.put_nowait(TokenEvent(t, 5, " palabra", 0.0))
            else:
                q.put_nowait(FinishEvent(FinishReason.LENGTH, " palabra" * T, [5] * T, [], 10, Timings()))


class Ctx:
    def time_remaining(self):
        return 30.0


async def main():
    eng = FakeEngine()
    p = plan("The file could not be opened because it is locked by another program.")
    prepared = texts.Prepared(p, [([1, 2, 3], [], None)], [0], {})

    async def behaviour(request, context):
        async for ev in texts.stream(eng, prepared, "rid"):
            yield final_to_pb(ev, "rid") if isinstance(ev, FinishEvent) else token_to_pb(ev, "rid")

    wrap = ErrorInterceptor(Metrics())._stream("TranslateStream", behaviour)
    count = 0

    async def consume():
        nonlocal count
        async for m in wrap(None, Ctx()):
            m.SerializeToString()
            count += 1

    rounds = 30
    t0 = time.process_time()
    for _ in range(rounds):
        eng.queues = []
        tasks = [asyncio.create_task(consume()) for _ in range(N)]
        await asyncio.sleep(0)
        for t in range(T + 1):
            eng.step(t)
            for _ in range(4):
                await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    dt = time.process_time() - t0
    print(f"{count} messages, {dt / count * 1e6:.1f} us CPU per message (our stack, no gRPC)")


if __name__ == "__main__":
    asyncio.run(main())
