"""The served models: where they are, what one is, and how one is built.

    repository DIR/            every subdirectory holding a bundle (config.json) is a model,
      en-es/  en-fr/ ...       named after its directory (Triton's convention)
    --model PATH               one bundle, named after its directory
    neither                    the package's repository (traductor/models/, packaged.py)

    model_paths(settings) -> {name: path}      what the settings serve
    default_name(settings, names)              the model of calls that name none
    ModelLoader.build(name, path) -> Model     a bundle opened (checksums verified), its engine
                                               core started, its AsyncEngine over it

Each model has an engine of its own (`AsyncEngine` over an `EngineCore`: its process, scheduler,
KV cache and queue limit), on the cores `core_cpus` gives it. A model's languages are read from
its bundle's config.json; nothing here names a language.

It does not know which model answers a call (routing.py) nor when models are loaded, restarted
or retired (registry.py): it builds one model when asked, blocking, off the event loop.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.bundle import Bundle, describe, load_bundle, scan, sha256
from ..engine.bundle_config import Languages
from ..engine.process import EngineSpec
from ..errors import BundleError, CommandError
from ..model import controls
from ..options import Limits
from ..packaged import DEFAULT_MODEL, MODELS_DIR
from .async_engine import AsyncEngine
from .engine_process import ProcessCore
from .engine_thread import ThreadCore
from .metrics import Metrics
from .settings import Settings

CPU_SHARING = ("shared", "split")  # --cpu-sharing (core_cpus)

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

    @property
    def registers(self) -> tuple[str, ...]:
        """The registers a call may ask (model/controls.py): none for a model trained without
        register tags, those its config.json says it delivers."""
        return tuple(self.engine.tokenizer.registers)

    @property
    def formality(self) -> bool:
        """Whether a call may ask for both a formal and an informal translation (DeepL's
        supports_formality, ModelInfo.formality)."""
        return set(self.registers) == set(controls.REGISTERS)

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
            device=s.device,
            dtype=s.dtype,
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
            stop_loops=s.use_loop_rule,
            beam_size=s.beam_size,
        )
        memory = bundle.memory() if s.use_memory else {}
        tokenizer = bundle.tokenizer()
        metrics, language = self.metrics.for_model(name), bundle.config.languages.source
        target = bundle.config.languages.target
        engine = AsyncEngine(
            core, tokenizer, limits, s.max_input_chars, metrics, s.max_segments, memory, language, target
        )
        return Model(name, bundle, engine, spec, fingerprint(path))
