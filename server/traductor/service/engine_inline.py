"""An engine core that decodes a group before `submit` returns: the offline commands' core.

    AsyncEngine.generate_many ── submit(jobs) ──▶ decode(work): the whole group, to its end
    queue.get() ◀──────────────── deliver ──────  every job's FinishEvent, in the group's order

`traductor translate` and `traductor evaluate` (offline.py) run the service's text pipeline
(service/pipeline) over an `AsyncEngine` with this core, in one event loop of their own: the same
cut, protect, decode, restore, verify and join as a served call, with no engine thread or process.
`decode` takes (source ids, placeholder values, resolved options) per job and returns their finish
events in order: the serving scheduler stepped until the group is done (`scheduled`), or the
PyTorch reference (model/translator.py, imported only for `--engine pytorch`). Nothing streams:
the commands ask for finish events only. Implements `engine_core.EngineCore`; knows nothing of
gRPC, HTTP or the text."""

from __future__ import annotations

import sys
from typing import Callable

from ..engine.process import Job, failed
from ..engine.request import FinishEvent
from ..engine.scheduler import Scheduler
from ..engine.translator import drive
from .engine_core import CoreStats, Deliver

Work = list[tuple[list[int], list[str], object]]  # (source ids, placeholder values, resolved options)


class InlineCore:
    def __init__(self, decode: Callable[[Work], list[FinishEvent]]):
        self.decode = decode
        self.max_queue = sys.maxsize  # a corpus is one group
        self._deliver: Deliver | None = None
        self._alive = True

    def start(self, deliver: Deliver, on_exit: Callable[[BaseException], None]) -> None:
        self._deliver = deliver  # this core never exits on its own

    def stop(self, wait: bool = True) -> None:
        self._alive = False

    def submit(self, jobs: list[Job]) -> None:
        """Decode the group now; its events reach the caller's queue before this returns. An error of
        the decoder ends every job of the group with it (`check_finish` raises it to the caller)."""
        try:
            events = self.decode([(job.source_ids, job.values, job.options) for job in jobs])
        except Exception as error:  # noqa: BLE001 - handed to the caller as each job's failure
            events = [failed(error)] * len(jobs)
        self._deliver([(job.key, event) for job, event in zip(jobs, events, strict=True)])

    def cancel(self, keys: list[int]) -> None:
        """Nothing to cancel: a group is done when `submit` returns."""

    def queue_depth(self) -> int:
        return 0

    def stats(self) -> CoreStats:
        return CoreStats(0, 0, 0, self._alive)


def scheduled(runner, tokenizer, rows: int, calibration: float = 0.0) -> Callable[[Work], list[FinishEvent]]:
    """A decoder that runs a group on the serving scheduler over `runner` with at most `rows` rows (at
    least the group's widest beam), stepped until every request is done (`engine/translator.drive`);
    `calibration`: the model's confidence calibration, as served (confidence.bundle_calibration)."""

    def decode(work: Work) -> list[FinishEvent]:
        width = max([rows] + [options.beam_size for _, _, options in work])
        return drive(Scheduler(runner, tokenizer, width, len(work) + 1, calibration=calibration), work)

    return decode
