"""The life of the served models: loaded, started, supervised, reloaded on SIGHUP, retired.

    Registry(models, default, metrics)      a `Routing` (routing.py: which model answers a call)
                                            whose models it starts, drains and stops
    Registry.supervise(loader)              a model whose engine process died is started again,
                                            with backoff (see `_watch`)
    Registry.reload()                       SIGHUP: the repository rescanned (add, remove,
                                            replace), every running model serving throughout

Each model has an engine of its own (models.py: `Model`, built by `ModelLoader`), so a flood on
one model queues behind that model only, and a fault in one engine fails that model's calls only:
its restarts here touch no other model.

It owns when models come and go (the routing table changed in one turn of the event loop), their
engines' faults and the models being retired. It does not know how a model is found or built
(models.py) nor how a call picks its model (routing.py); it names no language.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from typing import Awaitable, Callable

from ..errors import EngineDown, TraductorError
from .async_engine import AsyncEngine
from .metrics import Metrics
from .models import Model, ModelLoader, fingerprint, model_paths
from .routing import Routing

log = logging.getLogger("traductor.registry")
STABLE_SECONDS = 30.0  # a model up this long has recovered: its failure count starts again
RETIRE_SECONDS = 60.0  # a replaced or removed model's calls in flight get this long to finish


async def off_loop(fn):
    """Run a blocking `fn` on a daemon thread, so that the event loop (signals, calls to the other
    models) stays responsive and a process stopped meanwhile does not wait for it."""
    done: concurrent.futures.Future = concurrent.futures.Future()

    def run() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(fn())
        except BaseException as e:  # noqa: BLE001  (handed to the awaiting coroutine)
            done.set_exception(e)

    threading.Thread(target=run, name="traductor-load", daemon=True).start()
    return await asyncio.wrap_future(done)


class Registry(Routing):
    """The routing table (`Routing`) and the life of its models' engines (event loop only)."""

    def __init__(self, models: list[Model], default: str, metrics: Metrics):
        super().__init__(models, default)
        self.metrics = metrics
        self.draining = False
        self.fatal = asyncio.Event()  # set when a model cannot be started again: the server stops
        self.fatal_error: EngineDown | None = None
        self.on_change: Callable[[], Awaitable[None]] | None = None  # health, after a model's state changes
        self.warm_up: Callable[[AsyncEngine], Awaitable[None]] | None = None  # a new model's, before it serves
        self._retiring: set[AsyncEngine] = set()  # replaced or removed, finishing their calls
        self._watchers: dict[str, asyncio.Future] = {}
        self._reloading = asyncio.Lock()
        for m in self.models.values():
            self.metrics.for_model(m.name).set_serving(True)

    # ---- life cycle ------------------------------------------------------------------------

    @property
    def engines(self) -> list[AsyncEngine]:
        return [m.engine for m in self] + list(self._retiring)

    @property
    def in_flight(self) -> int:
        return sum(e.in_flight for e in self.engines)

    def start(self) -> None:
        for m in self:
            m.engine.start()

    def set_draining(self) -> None:
        """New calls are refused (UNAVAILABLE, HTTP 503); those in flight finish."""
        self.draining = True
        for e in self.engines:
            e.draining = True

    async def wait_idle(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        for e in self.engines:
            if not await e.wait_idle(max(0.0, end - time.monotonic())):
                return False
        return True

    def stop(self) -> None:
        for watcher in self._watchers.values():
            watcher.cancel()
        for e in self.engines:  # every engine told first: their processes end together
            e.stop(wait=False)
        for e in self.engines:
            e.stop()

    async def _changed(self) -> None:
        if self.on_change is not None:
            await self.on_change()

    # ---- faults: a model whose engine process died is started again --------------------------

    def supervise(self, loader: ModelLoader) -> None:
        """Watch every model's engine from now on (event loop); see `_watch`."""
        self._loader = loader
        self._watchers = {m.name: asyncio.ensure_future(self._watch(m)) for m in self}

    # ---- SIGHUP: the repository rescanned ---------------------------------------------------

    async def reload(self) -> dict[str, list[str]]:
        """Rescan what the settings serve (`traductor serve` does on SIGHUP), keeping every running
        model serving throughout, and return what changed:

        - a new model is loaded, warmed up, and then serves;
        - a removed one stops taking calls (NOT_FOUND), finishes the calls it holds, and unloads
          (the default model cannot be removed: refused, it keeps serving);
        - a changed one (its config.json differs: new graphs' checksums, memory, languages) is
          loaded beside the old one and takes its calls once warm; the old one finishes its own;
        - a bundle that fails to load is logged and refused; what runs keeps running.
        No call is failed: routing and submitting happen in one turn of the event loop, so a call
        goes whole to the old engine or whole to the new one."""
        async with self._reloading:
            done: dict[str, list[str]] = {"added": [], "replaced": [], "removed": [], "refused": []}
            try:
                paths = model_paths(self._loader.settings)
            except TraductorError as e:
                log.error("reload refused: %s; the models are unchanged", e)
                done["refused"].append(str(e))
                return done
            for name, path in paths.items():
                current = self.models.get(name)
                if current is not None and fingerprint(path) == current.fingerprint:
                    continue
                try:
                    index = list(paths).index(name)
                    model = await off_loop(lambda n=name, p=path, i=index: self._loader.build(n, p, i, len(paths)))
                except (TraductorError, OSError) as e:
                    log.error("reload: model %s refused: %s", name, e)
                    done["refused"].append(name)
                    continue
                model.engine.start()
                if self.warm_up is not None:
                    await self.warm_up(model.engine)
                self._serve(model)
                done["replaced" if current is not None else "added"].append(name)
                if current is not None:
                    await self._retire(current)
            for name in [n for n in self.models if n not in paths]:
                if name == self.default_name:
                    log.error("reload: the default model %s is gone from the repository: kept serving", name)
                    done["refused"].append(name)
                    continue
                model = self.remove(name)
                done["removed"].append(name)
                await self._changed()
                await self._retire(model)
                self.metrics.forget(name)
            log.info("reload: %s", ", ".join(f"{k} {v}" for k, v in done.items() if v) or "no change")
            return done

    def _serve(self, model: Model) -> None:
        """Serve `model` from now on: routed to (beside the others, or instead of its old version),
        marked serving, and watched."""
        self.add(model)
        self.metrics.for_model(model.name).set_serving(True)
        old = self._watchers.pop(model.name, None)
        if old is not None:
            old.cancel()
        self._watchers[model.name] = asyncio.ensure_future(self._watch(model))
        log.info("serving model %s (bundle %s)", model.describe(), model.bundle.checksum[:12])

    async def _retire(self, model: Model) -> None:
        """A model that takes no new calls: let it finish those it holds, then stop its engine."""
        engine = model.engine
        self._retiring.add(engine)
        try:
            if not await engine.wait_idle(RETIRE_SECONDS):
                log.warning(
                    "model %s: %d call(s) still in flight after %.0f s: stopping",
                    model.name,
                    engine.in_flight,
                    RETIRE_SECONDS,
                )
            engine.draining = True
            await off_loop(engine.stop)
        finally:
            self._retiring.discard(engine)
        log.info("model %s (bundle %s) unloaded", model.name, model.bundle.checksum[:12])

    async def _watch(self, model: Model) -> None:
        """When the model's engine process dies: its calls in flight have failed (UNAVAILABLE), the
        model is NOT_SERVING (its new calls: UNAVAILABLE), and a new engine process is launched
        after a backoff (restart_backoff_seconds, doubling, at most 16 x). A model is restarted at
        most max_restarts times in a row: its next failure (a launch that fails, or a death within
        STABLE_SECONDS of its start; a model up longer starts counting again) gives it up: `fatal`
        is set and `serve` exits 2. The other models never notice."""
        s, failures = self._loader.settings, 0
        metrics = self.metrics.for_model(model.name)
        while True:
            await model.engine.down.wait()
            if self.models.get(model.name) is not model or self.draining:
                return  # removed or replaced (SIGHUP), or stopping: nothing to restart
            error = model.engine.down_error
            model.serving = False
            metrics.set_serving(False)
            await self._changed()
            if time.monotonic() - model.started >= STABLE_SECONDS:
                failures = 0
            core = None
            while core is None:
                failures += 1
                if failures > s.max_restarts:
                    self.fatal_error = EngineDown(
                        f"model {model.name}: its engine process failed {failures} times in a row, "
                        f"given up after --max-restarts {s.max_restarts} restarts; last: {error}"
                    )
                    log.error("%s", self.fatal_error)
                    self.fatal.set()
                    return
                delay = s.restart_backoff_seconds * 2 ** min(failures - 1, 4)
                log.warning("model %s: %s; starting it again in %.2f s (try %d)", model.name, error, delay, failures)
                await asyncio.sleep(delay)
                if self.draining:
                    return
                try:
                    core = await off_loop(lambda: self._loader.core(model.name, model.bundle, model.spec))
                except (TraductorError, OSError) as e:
                    error = e
            model.engine.replace_core(core)
            model.started, model.serving = time.monotonic(), True
            metrics.restarted()
            metrics.set_serving(True)
            log.info("model %s: engine process started again", model.name)
            await self._changed()
