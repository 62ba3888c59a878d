"""Drive load at one level and record one :class:`Sample` per request.

Both modes run on one asyncio event loop and one HTTP/2 channel, which a single Python process
can keep busy with hundreds of requests in flight.

* Closed loop (:func:`run_closed`): ``concurrency`` workers, each sending its next request as
  soon as the previous one finished. Throughput is what the server sustains at that
  concurrency; latency excludes time a request would have waited on the client side.
* Open loop (:func:`run_open`): requests arrive at Poisson times at a fixed rate whether or not
  earlier ones finished, like independent users. Latency is measured from each request's
  scheduled arrival, so a slow server cannot hide its backlog (no coordinated omission).

A level stops by itself after ``requests`` measured requests or ``duration`` seconds of
measurement; the warm-up before it (requests or seconds, in the same unit) is run but flagged.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from traductor_client.async_client import AsyncTranslatorClient
from traductor_client.errors import TranslatorError
from traductor_client.loadtest.stats import poisson_arrivals, stream_slot
from traductor_client.results import StreamFinal

#: Error name recorded for an open-loop arrival not sent because ``max_inflight`` was reached.
CLIENT_OVERLOADED = "CLIENT_MAX_INFLIGHT"


@dataclass(frozen=True)
class Sample:
    stream: bool
    start: float  # perf_counter seconds (scheduled arrival in open loop)
    end: float
    ttft: Optional[float]  # seconds to the first token message (streams only)
    output_tokens: int  # usage.output_tokens of the response (0 on error)
    error: Optional[str]  # status code name, None on success
    warmup: bool

    @property
    def latency(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class StopRule:
    """Exactly one of ``requests``/``duration``; ``warmup`` is in the same unit."""

    requests: Optional[int] = None
    duration: Optional[float] = None
    warmup: float = 0.0

    def __post_init__(self) -> None:
        if (self.requests is None) == (self.duration is None):
            raise ValueError("give exactly one of requests and duration")
        if (
            (self.requests is not None and self.requests < 1)
            or (self.duration is not None and self.duration <= 0)
            or self.warmup < 0
        ):
            raise ValueError("requests/duration must be positive and warmup >= 0")


@functools.lru_cache(maxsize=16)
def _cycle_order(size: int, seed: int, cycle: int) -> Tuple[int, ...]:
    order = list(range(size))
    random.Random(f"{seed}/{cycle}").shuffle(order)
    return tuple(order)


@dataclass
class Workload:
    """What each request sends, as a pure function of its number (reproducible runs).

    Requests go through the texts in cycles: every cycle of ``len(texts)`` requests sends each
    text once, in an order shuffled per cycle from ``seed``. Whether a request streams follows
    :func:`stream_slot` (an exact mix). Reshuffling every cycle keeps the two independent:
    with a fixed order, a 50% mix over an even number of texts would stream the same half of
    the texts every time.
    """

    texts: List[str]
    options: Dict[str, Any] = field(default_factory=dict)
    stream_fraction: float = 0.0
    timeout: Optional[float] = None
    seed: int = 0
    stream_options: Dict[str, Any] = field(default_factory=dict)  # stream_events' group_tokens, max_delay_ms

    def plan(self, index: int) -> Tuple[str, bool]:
        """(text, stream?) of request number ``index``."""
        cycle, position = divmod(index, len(self.texts))
        text = self.texts[_cycle_order(len(self.texts), self.seed, cycle)[position]]
        return text, stream_slot(index, self.stream_fraction)

    async def send(self, client: AsyncTranslatorClient, index: int, start: float, warmup: bool) -> Sample:
        text, stream = self.plan(index)
        ttft: Optional[float] = None
        tokens = 0
        try:
            if stream:
                events = client.stream_events(text, timeout=self.timeout, **self.stream_options, **self.options)
                async for event in events:
                    if isinstance(event, StreamFinal):
                        tokens = event.usage.output_tokens
                    elif ttft is None:
                        ttft = time.perf_counter() - start
            else:
                tokens = (await client.translate(text, timeout=self.timeout, **self.options)).usage.output_tokens
        except TranslatorError as error:  # recorded by code, not raised: errors are data here
            return Sample(stream, start, time.perf_counter(), ttft, 0, error.code_name, warmup)
        return Sample(stream, start, time.perf_counter(), ttft, tokens, None, warmup)


OnSample = Callable[[Sample], None]


async def run_closed(
    client: AsyncTranslatorClient, workload: Workload, concurrency: int, stop: StopRule, on_sample: OnSample
) -> List[Sample]:
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    samples: List[Sample] = []
    tickets = itertools.count()  # shared: request numbers are handed out in order
    begin = time.perf_counter()
    measure_from = begin + (stop.warmup if stop.duration is not None else 0.0)

    async def worker() -> None:
        while True:
            index = next(tickets)
            now = time.perf_counter()
            if stop.requests is not None:
                if index >= stop.warmup + stop.requests:
                    return
                warmup = index < stop.warmup
            else:
                if now >= measure_from + stop.duration:
                    return
                warmup = now < measure_from
            sample = await workload.send(client, index, now, warmup)
            samples.append(sample)
            on_sample(sample)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return samples


async def run_open(
    client: AsyncTranslatorClient,
    workload: Workload,
    rate: float,
    stop: StopRule,
    on_sample: OnSample,
    rng: random.Random,
    max_inflight: int = 1024,
) -> List[Sample]:
    samples: List[Sample] = []
    inflight: Set[asyncio.Task] = set()
    begin = time.perf_counter()

    async def one(index: int, start: float, warmup: bool) -> None:
        sample = await workload.send(client, index, start, warmup)
        samples.append(sample)
        on_sample(sample)

    for index, offset in enumerate(poisson_arrivals(rate, rng)):
        if stop.requests is not None:
            if index >= stop.warmup + stop.requests:
                break
            warmup = index < stop.warmup
        else:
            if offset >= stop.warmup + stop.duration:
                break
            warmup = offset < stop.warmup
        start = begin + offset
        delay = start - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if len(inflight) >= max_inflight:
            sample = Sample(
                stream_slot(index, workload.stream_fraction), start, start, None, 0, CLIENT_OVERLOADED, warmup
            )
            samples.append(sample)
            on_sample(sample)
            continue
        task = asyncio.ensure_future(one(index, start, warmup))
        inflight.add(task)
        task.add_done_callback(inflight.discard)
    if inflight:
        await asyncio.gather(*inflight)
    return samples
