"""config.json of a bundle, typed: `BundleConfig` and its sections, and the checks that read it.

    BundleConfig        a ModelConfig (dimensions, special ids), the languages, the graphs' IO
                        names, opset, quantization, sha256 of the graphs, the export's parity
                        figures, and the optional sections: memory (engine/memory.py: MemoryFile),
                        tokenizer (model/tokenizer.TokenizerConfig), generation
                        (model/generation.GenerationConfig), registers (the formality registers
                        the model delivers, the default one for a call that asks none, those
                        delivered by a rewrite: model/controls.Registers, three keys)
    Languages           a source -> target pair; `BundleConfig.pairs` are every pair a model
                        translates, `own_pair` / `shown_pairs` the codes a caller sends and is shown

`BundleConfig` is the one definition of config.json: the exporter builds one and writes
`to_dict()`, the engine reads it back with `from_dict()`, which checks every field and names
the one that is wrong.

It owns the fields and their checks, nothing else: it does not open files, read the graphs or
the tokenizer, or verify checksums (bundle.py does), and knows nothing of torch or of how the
graphs were made.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field

from ..errors import BundleError
from ..languages import CodeTable
from ..model import controls
from ..model.config import ModelConfig
from ..model.generation import GenerationConfig
from ..model.tokenizer import FILENAME as TOKENIZER
from ..model.tokenizer import TokenizerConfig
from .memory import MemoryFile

FORMAT = "traductor-bundle"
GRAPHS = ("encoder.onnx", "decoder.onnx")
IO_KEYS = ("encoder_inputs", "encoder_outputs", "decoder_inputs", "decoder_outputs")


@dataclass(frozen=True)
class Languages:
    source: str
    target: str

    def matches(self, source: str, target: str) -> bool:
        """Whether this pair translates source -> target (either empty: any)."""
        return (not source or self.source == source) and (not target or self.target == target)


@dataclass(frozen=True)
class BundleConfig:
    model: ModelConfig
    languages: Languages
    name: str  # where the weights came from (the checkpoint directory's name)
    opset: int
    quantization: str  # "none" or "int8"
    io: dict[str, list[str]]  # IO_KEYS -> the graphs' input/output names, in order
    onnxruntime: str  # the version that optimized the graphs
    sha256: dict[str, str]  # graph file -> checksum
    parity: dict | None = None  # what the export measured against PyTorch (absent for bench bundles)
    format: str = field(default=FORMAT)
    memory: MemoryFile | None = None  # the translation memory, when the bundle has one
    tokenizer: TokenizerConfig | None = None  # an imported model's tokenizer (none: tokenizer.model)
    generation: GenerationConfig | None = None  # an imported model's decoding rules
    registers: controls.Registers = field(default_factory=controls.Registers)  # three keys of config.json

    def to_dict(self) -> dict:
        out = {"format": self.format, **asdict(self)}
        for key in ("tokenizer", "generation"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key).to_dict()
        for key in ("parity", "memory", "tokenizer", "generation"):
            if out[key] is None:
                del out[key]
        del out["registers"]
        return out | self.registers.to_config()

    @functools.cached_property
    def targets(self) -> dict[str, list[str]]:
        """Each source the model translates from -> its targets, in the model's own codes; the
        bundle's `languages` (the default pair) first. A one-target model: that pair. A multilingual
        one (an imported model whose tokenizer has language codes): its source into each of its
        codes but its own, and a many-to-many one (NLLB, M2M100: source_mode "per_call") every
        code into every other. A call picks a pair with source_language and target_language."""
        tokenizer, default = self.tokenizer, self.languages
        if tokenizer is None or tokenizer.target_mode == "none" or not tokenizer.languages:
            return {default.source: [default.target]}
        codes = sorted(tokenizer.languages)
        sources = codes if tokenizer.source_mode == "per_call" else [default.source]
        sources = [default.source, *(c for c in sources if c != default.source)]
        first = [default.target] if default.target in tokenizer.languages else []

        def into(source: str) -> list[str]:
            others = [t for t in codes if t != source]
            return first + [t for t in others if t not in first] if source == default.source else others

        return {s: into(s) for s in sources}

    @functools.cached_property
    def pairs(self) -> list[Languages]:
        """Every pair the model translates (`targets`), the default first."""
        return [Languages(s, t) for s, targets in self.targets.items() for t in targets]

    @functools.cached_property
    def codes(self) -> CodeTable:
        """The model's own language codes (its pairs'), read in whatever form a caller sends them."""
        return CodeTable(dict.fromkeys(code for s, targets in self.targets.items() for code in (s, *targets)))

    @functools.cached_property
    def _target_sets(self) -> dict[str, frozenset[str]]:
        return {s: frozenset(targets) for s, targets in self.targets.items()}

    def own_pair(self, source: str = "", target: str = "") -> Languages | None:
        """A caller's pair (codes in any form: `fr`, `FRA`, `fr-CA`; either empty: any) in the model's
        own codes (NLLB's `fra_Latn`), or None when the model does not translate it."""
        own = [self.codes.own(code) if code else "" for code in (source, target)]
        if None in own:
            return None
        sources = [own[0]] if own[0] else list(self._target_sets)
        if not any(s in self._target_sets and (not own[1] or own[1] in self._target_sets[s]) for s in sources):
            return None
        return Languages(*own)

    @functools.cached_property
    def shown_pairs(self) -> list[Languages]:
        """`pairs` as callers are shown them (`en->fr`, not `eng_Latn->fra_Latn`)."""
        return [Languages(self.codes.shown(p.source), self.codes.shown(p.target)) for p in self.pairs]

    @property
    def tokenizer_files(self) -> list[str]:
        return self.tokenizer.files() if self.tokenizer is not None else [TOKENIZER]

    @classmethod
    def from_dict(cls, data) -> BundleConfig:
        """Check every field; a BundleError names the first one that is missing or wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            hint = " (it is a PyTorch checkpoint: export it, or use --engine pytorch)" if _is_checkpoint(data) else ""
            raise BundleError(f"format: does not describe a traductor bundle (format != {FORMAT!r}){hint}")
        try:
            model = ModelConfig.from_dict(_get(data, "model", dict))
        except (TypeError, ValueError) as e:
            raise BundleError(f"model: {e}") from e
        langs = _get(data, "languages", dict)
        io = _get(data, "io", dict)
        for key in IO_KEYS:
            if not (isinstance(io.get(key), list) and all(isinstance(n, str) for n in io[key])):
                raise BundleError(f"io.{key}: must be a list of names")
        checksums = _get(data, "sha256", dict)
        for g in GRAPHS:
            if not isinstance(checksums.get(g), str):
                raise BundleError(f"sha256.{g}: missing")
        parity = data.get("parity")
        if parity is not None and not isinstance(parity, dict):
            raise BundleError("parity: must be an object")
        try:
            registers = controls.Registers.read(data)
        except ValueError as e:
            raise BundleError(str(e)) from e
        return cls(
            model,
            Languages(_get(langs, "source", str, "languages."), _get(langs, "target", str, "languages.")),
            data.get("name") or "",
            _get(data, "opset", int),
            _get(data, "quantization", str),
            {k: list(io[k]) for k in IO_KEYS},
            str(data.get("onnxruntime", "")),
            dict(checksums),
            parity,
            memory=_memory_file(data.get("memory")),
            tokenizer=_section(data, "tokenizer", TokenizerConfig),
            generation=_section(data, "generation", GenerationConfig),
            registers=registers,
        )


def _section(data: dict, key: str, kind):
    """An optional section (tokenizer, generation) checked by its own from_dict."""
    if data.get(key) is None:
        return None
    try:
        return kind.from_dict(data[key])
    except (TypeError, ValueError) as e:
        raise BundleError(f"{key}: {e}") from e


def _memory_file(data) -> MemoryFile | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise BundleError("memory: must be an object")
    file, checksum = _get(data, "file", str, "memory."), _get(data, "sha256", str, "memory.")
    entries = _get(data, "entries", int, "memory.")
    if "/" in file or "\\" in file or file.startswith("."):
        raise BundleError(f"memory.file: must be a file name in the bundle, got {file!r}")
    return MemoryFile(file, checksum, entries)


def _is_checkpoint(data) -> bool:
    return isinstance(data, dict) and data.get("format") == "traductor-checkpoint"


def _get(data: dict, key: str, kind: type, prefix: str = ""):
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BundleError(f"{prefix}{key}: expected {kind.__name__}, got {value!r}")
    return value
