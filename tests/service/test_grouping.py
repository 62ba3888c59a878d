"""service/grouping.grouped: events that were ready together come in one group, none waits for an
event not produced yet unless a delay says so, errors come after the events before them, and
leaving early closes the source. The source is an asyncio queue the test fills; no timing."""

from __future__ import annotations

import asyncio

import pytest

from traductor.service.grouping import grouped

END = object()


class Source:
    """An async iterator over what the test puts in; `closed` once it has been left or ended."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.closed = asyncio.Event()

    def put(self, *items) -> None:
        for item in items:
            self.queue.put_nowait(item)

    async def events(self):
        try:
            while (item := await self.queue.get()) is not END:
                if isinstance(item, Exception):
                    raise item
                yield item
        finally:
            self.closed.set()


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def test_events_ready_together_come_in_one_group():
    async def main():
        source = Source()
        groups = grouped(source.events())
        source.put(0)
        first = await anext(groups)  # the only event there was: sent at once, alone
        source.put(1, 2, 3)  # produced while the first group was being sent
        second = await anext(groups)
        source.put(4, END)
        rest = [g async for g in groups]
        return first, second, rest

    assert run(main()) == ([0], [1, 2, 3], [[4]])


def test_no_event_waits_for_one_not_produced_yet():
    async def main():
        source = Source()
        groups = grouped(source.events())
        source.put("a")
        first = await anext(groups)
        pending = asyncio.ensure_future(anext(groups))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        waited = not pending.done()  # nothing new: the consumer waits, with nothing held back
        source.put("b")
        second = await pending
        source.put(END)
        return first, waited, second, [g async for g in groups]

    assert run(main()) == (["a"], True, ["b"], [])


def test_a_delay_holds_every_group_but_the_first():
    async def main():
        source = Source()
        groups = grouped(source.events(), delay=3600)
        source.put(1)
        first = await anext(groups)  # the caller's first sight of the stream is never held
        source.put(2)
        pending = asyncio.ensure_future(anext(groups))
        for _ in range(5):
            await asyncio.sleep(0)
        held = not pending.done()  # an hour's delay: the second event waits for more
        source.put(3, 4, END)  # the end sends what was held, at once
        return first, held, await pending, [g async for g in groups]

    assert run(main()) == ([1], True, [2, 3, 4], [])


def test_a_delay_that_passes_sends_the_group():
    async def main():
        source = Source()
        groups = grouped(source.events(), delay=0.001)
        source.put(1)
        first = await anext(groups)
        source.put(2, 3)
        second = await anext(groups)  # sent when its first event is 1 ms old, the source still open
        source.put(4, END)
        return first, second, [g async for g in groups]

    assert run(main()) == ([1], [2, 3], [[4]])


def test_an_error_comes_after_the_events_before_it():
    async def main():
        source = Source()
        got = []
        source.put(1, 2, ValueError("engine down"))
        with pytest.raises(ValueError, match="engine down"):
            async for group in grouped(source.events()):
                got.extend(group)
        return got

    assert run(main()) == [1, 2]


def test_leaving_early_closes_the_source():
    async def main():
        source = Source()
        groups = grouped(source.events())
        source.put(1)
        await anext(groups)
        await groups.aclose()  # the caller left (cancelled, disconnected)
        return source.closed.is_set()

    assert run(main()) is True
