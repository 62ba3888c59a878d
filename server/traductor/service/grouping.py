"""Token events put into groups for streams whose caller asked for several tokens a message
(TranslateRequest.stream.group_tokens): one gRPC message costs the server and the client tens of
microseconds of CPU each, more than a token's own share of a large batch's decode step.

`grouped` reads a stream's events ahead, in a task of its own, while the caller's previous message
is being sent; each group is every event read since the previous group was taken, so tokens that
were ready together travel together and a token never waits for one not generated yet. With a
delay, each group but the first is also held until its first event is that old, or the events
end: the first group goes out at once, so a caller's first sight of a stream is never later.

It does not know what an event is, what a message looks like or how it is sent: the servicer
turns each group into messages (convert.tokens_to_pb)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TypeVar

T = TypeVar("T")


async def grouped(events: AsyncIterator[T], delay: float = 0.0) -> AsyncIterator[list[T]]:
    """The events of `events` in groups (lists of one or more, in order). An exception raised by
    `events` is raised here after the events before it; leaving early closes `events` (the
    engine's work on it is cancelled the way it is when a caller leaves an ungrouped stream)."""
    loop = asyncio.get_running_loop()
    buffer: list[T] = []
    ready = asyncio.Event()  # set when a group may be taken: at once, when its delay is up, at the end
    timer: asyncio.TimerHandle | None = None
    ended, first = False, True  # the first group is never held: it is the caller's first sight
    failure: list[BaseException] = []

    async def read() -> None:
        nonlocal ended, timer
        try:
            async for event in events:
                buffer.append(event)
                if not delay or first:
                    ready.set()
                elif len(buffer) == 1:
                    timer = loop.call_later(delay, ready.set)
        except BaseException as e:  # raised to the caller below, after the events read before it
            failure.append(e)  # (our own cancel too, when the caller left: nobody raises it then)
        finally:
            ended = True
            ready.set()

    reader = asyncio.create_task(read())
    try:
        while True:
            await ready.wait()
            ready.clear()
            if timer is not None:
                timer.cancel()
                timer = None
            if buffer:
                group, first = buffer[:], False
                buffer.clear()
                yield group
            if ended and not buffer:
                break
        if failure:
            raise failure[0]
    finally:
        reader.cancel()
        await reader
