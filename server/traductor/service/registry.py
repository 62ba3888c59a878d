"""The models a server holds, and which one answers a call: the one place that knows them.

    repository DIR/            every subdirectory holding a bundle (config.json) is a model,
      en-es/  en-fr/ ...       named after its directory (Triton's convention)
    --model PATH               one bundle, named after its directory
    neither                    the package's repository (traductor/models/, packaged.py)

    Registry.route(model, source, target) -> Model     the model of a call (ModelNotFound: NOT_FOUND)
    Registry.languages() -> {source: [targets]}        /languages, ListModels
    Registry.supervise()                               a model whose engine process died is started
                                                       again, with backoff (see `Supervisor`)
    Registry.reload()                                  SIGHUP: the repository rescanned (add, remove,
                                                       replace), every running model serving throughout

Each model has an engine of its own (`AsyncEngine` over an `EngineCore`: its process, scheduler,
KV cache and queue limit), so a flood on one model queues behind that model only, and a fault in
one engine fails that model's calls only. A model's languages are read from its bundle's
config.json; nothing here names a language: languages.py reads the codes a call sends (`fr`,
`FRA`, `fr-CA`, NLLB's `fra_Latn`) and the codes callers are shown (BundleConfig.own_pair,
shown_pairs).

Routing (the same for gRPC and HTTP): a named model must be served, and the languages given beside
it must be its own; without a name, the models that translate source -> target (either may be
empty: any) are candidates, the default model first if it is one, else the first by name; with
neither, the default model.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

from ..engine.bundle import Bundle, Languages, choose, describe, describe_all, load_bundle, scan, sha256
from ..engine.process import EngineSpec
from ..errors import BundleError, CommandError, EngineDown, ModelNotFound, TraductorError
from ..options import Limits
from ..packaged import DEFAULT_MODEL, MODELS_DIR
from .async_engine import AsyncEngine
from .engine_process import ProcessCore
from .engine_thread import ThreadCore
from .metrics import Metrics
from .settings import Settings

log = logging.getLogger("traductor.registry")
CPU_SHARING = ("shared", "split")  # --cpu-sharing (core_cpus)
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


# ---- where the models are ------------------------------------------------------------------


def model_paths(settings: Settings) -> dict[str, Path]:
    """name -> bundle directory of what `settings` serve (see the module docstring)."""
    if settings.cpu_sharing not in CPU_SHARING:
        raise CommandError(f"--cpu-sharing {settings.cpu_sharing}: expected one of {', '.join(CPU_SHARING)}")
    if settings.model and settings.model_repository:
        raise BundleError("--model and --model-repository are exclusive: serve one bundle or a repository")
    if settings.model:
        path = Path(settings.model)
        return {path.resolve().name: path}
    repository = Path(settings.model_repository) if settings.model_repository else MODELS_DIR
    paths = scan(repository)
    if not paths:
        raise BundleError(f"model repository {repository} holds no model (no subdirectory with a bundle's config.json)")
    return paths


def fingerprint(path: Path) -> str:
    """What tells a changed bundle: its config.json names every file's checksum."""
    try:
        return sha256(Path(path) / "config.json")
    except OSError:
        return ""


def default_name(settings: Settings, names: list[str]) -> str:
    """The model of calls that name none: --default-model, else the packaged default when it is
    served, else the only model; otherwise start-up stops, listing the choices."""
    if settings.default_model:
        if settings.default_model not in names:
            served = ", ".join(names)
            raise BundleError(f"--default-model {settings.default_model}: not served; the models are {served}")
        return settings.default_model
    if len(names) == 1:
        return names[0]
    if not settings.model_repository and DEFAULT_MODEL in names:
        return DEFAULT_MODEL
    raise BundleError(f"{len(names)} models and no --default-model: choose one of {', '.join(names)}")


# ---- one model -----------------------------------------------------------------------------


@dataclass
class Model:
    """A served model: its bundle and its engine."""

    name: str
    bundle: Bundle
    engine: AsyncEngine
    spec: EngineSpec  # what its engine core was built from (a restart launches it again)
    fingerprint: str = ""  # sha256 of its config.json when loaded (a reload compares it)
    serving: bool = True  # False while its engine process restarts
    started: float = field(default_factory=time.monotonic)

    @property
    def languages(self) -> list[Languages]:
        """Every pair the model translates (BundleConfig.pairs: a multilingual model's source into
        each of its targets), the default pair first, in the codes callers are shown (`fr`, not
        NLLB's `fra_Latn`: BundleConfig.shown_pairs)."""
        return self.bundle.config.shown_pairs

    def translates(self, source: str, target: str) -> bool:
        """Whether the model translates source -> target, codes in any form (either empty: any)."""
        return self.bundle.config.own_pair(source, target) is not None

    def describe(self) -> str:
        return describe(self.name, self.languages)


def core_threads(settings: Settings, cpus: tuple[int, ...]) -> int:
    """ONNX Runtime's intra-op threads of one model: `--threads`, or when 0, the cores it may use
    (its own with --cpu-sharing split; else all but one for an engine process, whose front then
    has a core of its own: docs/performance.md; all of them for an engine thread, ONNX Runtime's
    own count)."""
    if settings.threads:
        return settings.threads
    if not settings.engine_process:
        return 0
    if cpus:
        return len(cpus)
    return max(1, len(os.sched_getaffinity(0)) - 1)


def core_cpus(settings: Settings, index: int, count: int) -> tuple[int, ...]:
    """The cores of the `index`-th of `count` models: all (--cpu-sharing shared), or a share of
    its own (split: the cores dealt out in turn, so models never run on each other's cores while
    there are at least as many cores as models). The engine thread cannot be pinned: all."""
    if settings.cpu_sharing != "split" or not settings.engine_process:
        return ()
    cpus = sorted(os.sched_getaffinity(0))
    mine = tuple(c for i, c in enumerate(cpus) if i % max(1, count) == index % len(cpus))
    return mine or (cpus[index % len(cpus)],)


class ModelLoader:
    """Builds a model's engine from its bundle (blocking: call off the event loop). `before_step`
    is a test hook (tests/server_harness.py): one for every model, or a dict, model -> hook."""

    def __init__(self, settings: Settings, metrics: Metrics, before_step=None):
        self.settings, self.metrics, self.before_step = settings, metrics, before_step

    def spec(self, name: str, bundle: Bundle, cpus: tuple[int, ...]) -> EngineSpec:
        s = self.settings
        hook = self.before_step.get(name) if isinstance(self.before_step, dict) else self.before_step
        return EngineSpec(
            str(bundle.path),
            core_threads(s, cpus),
            s.spin,
            s.max_active_sequences,
            s.max_queued_requests,
            s.log_level,
            hook,
            cpus,
        )

    def core(self, name: str, bundle: Bundle, spec: EngineSpec):
        """A new engine core for the model, its model loaded (raises what stopped it)."""
        metrics = self.metrics.for_model(name)
        if self.settings.engine_process:
            core = ProcessCore(spec, metrics)
            core.launch()
            return core
        return ThreadCore(spec.scheduler(bundle), metrics)

    def build(self, name: str, path: Path, index: int = 0, count: int = 1) -> Model:
        """Open the bundle (checksums verified), start its engine core; BundleError names the bundle."""
        s = self.settings
        try:
            bundle = load_bundle(path)
        except BundleError as e:
            raise BundleError(f"model {name}: {e}") from e
        spec = self.spec(name, bundle, core_cpus(s, index, count))
        core = self.core(name, bundle, spec)
        limits = Limits(
            max_input_tokens=min(s.max_input_tokens, bundle.max_len),
            max_new_tokens=min(s.max_new_tokens, bundle.max_len - 1),
            max_beam_size=min(s.max_beam_size, s.max_active_sequences),
        )
        memory = bundle.memory() if s.use_memory else {}
        tokenizer = bundle.tokenizer()
        metrics, language = self.metrics.for_model(name), bundle.config.languages.source
        engine = AsyncEngine(core, tokenizer, limits, s.max_input_chars, metrics, s.max_segments, memory, language)
        return Model(name, bundle, engine, spec, fingerprint(path))


# ---- the registry --------------------------------------------------------------------------


class Registry:
    """name -> Model, the default model, routing, and the life of the engines (event loop only)."""

    def __init__(self, models: list[Model], default: str, metrics: Metrics):
        self.models: dict[str, Model] = {m.name: m for m in sorted(models, key=lambda m: m.name)}
        self.default_name, self.metrics = default, metrics
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

    # ---- lookup and routing (every call) ---------------------------------------------------

    def __iter__(self):
        return iter(list(self.models.values()))

    def __len__(self) -> int:
        return len(self.models)

    @property
    def default(self) -> Model:
        return self.models[self.default_name]

    def served(self) -> str:
        return describe_all({m.name: m.languages for m in self})

    def get(self, name: str = "") -> Model:
        """The model named (empty: the default one); ModelNotFound names the models served."""
        if not name:
            return self.default
        model = self.models.get(name)
        if model is None:
            raise ModelNotFound(f"model {name!r} is not served; the models are: {self.served()}")
        return model

    def route(self, model: str = "", source: str = "", target: str = "") -> Model:
        """The model of a call (see the module docstring); ModelNotFound names what is served."""
        if model:
            found = self.get(model)
            if not found.translates(source, target):
                raise ModelNotFound(
                    f"model {found.describe()} does not translate {source or 'any'}->{target or 'any'}; "
                    f"the models are: {self.served()}"
                )
            return found
        if not source and not target:
            return self.default
        name = choose({m.name: m.bundle.config for m in self}, self.default_name, source, target)
        if not name:
            pair = f"{source or 'any'}->{target or 'any'}"
            raise ModelNotFound(f"no model translates {pair}; the models are: {self.served()}")
        return self.models[name]

    def languages(self) -> dict[str, list[str]]:
        """Every source language with all its targets, sorted (targets of every model together)."""
        pairs: dict[str, set[str]] = {}
        for m in self:
            for p in m.languages:
                pairs.setdefault(p.source, set()).add(p.target)
        return {source: sorted(targets) for source, targets in sorted(pairs.items())}

    def aliases(self) -> dict[str, list[str]]:
        """The models' own codes of each shown code, where they differ (`fr`: [`fra_Latn`])."""
        found: dict[str, set[str]] = {}
        for m in self:
            codes = m.bundle.config.codes
            for own in codes.codes:
                if codes.shown(own) != own:
                    found.setdefault(codes.shown(own), set()).add(own)
        return {code: sorted(owns) for code, owns in sorted(found.items())}

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
                model = self.models.pop(name)
                done["removed"].append(name)
                await self._changed()
                await self._retire(model)
                self.metrics.forget(name)
            log.info("reload: %s", ", ".join(f"{k} {v}" for k, v in done.items() if v) or "no change")
            return done

    def _serve(self, model: Model) -> None:
        """Route to `model` from now on (beside the others, or instead of its old version)."""
        models = {**self.models, model.name: model}
        self.models = {name: models[name] for name in sorted(models)}
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
