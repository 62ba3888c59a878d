"""A bundle is what `traductor export` writes and what the engine runs (no torch needed):

    encoder.onnx      source -> encoder output + every decoder layer's cross-attention K/V
    decoder.onnx      one decode step over a padded KV cache
    tokenizer.model   SentencePiece, with the placeholder tokens
    config.json       a `BundleConfig`: dimensions and special ids (a ModelConfig), languages,
                      IO names, opset, sha256 of the graphs, the parity figures of the export
    source.spm ...    an imported model's tokenizer files instead, named by the config's "tokenizer"
                      section (model/tokenizer.TokenizerConfig), with its "generation" rules
                      (model/generation.GenerationConfig); bundles without them are the project's own
    memory.tsv        optional: a translation memory (engine/memory.py), named with its sha256
                      and entry count in config.json; bundles without one load as before

`BundleConfig` is the one definition of config.json: the exporter builds one and writes
`to_dict()`, the engine reads it back with `from_dict()`, which checks every field and names
the one that is wrong. This module knows nothing of torch or of how the graphs were made.

`default_bundle()` is the default model's bundle in the package's model repository (models/en-es/);
`scan(directory)` lists a model repository's bundles; `packaged_bundle(source, target)` picks the
packaged model of a language pair (`traductor translate --to`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import BundleError
from ..languages import CodeTable
from ..model.config import ModelConfig
from ..model.generation import GenerationConfig
from ..model.tokenizer import FILENAME as TOKENIZER
from ..model.tokenizer import Tokenizer, TokenizerConfig, open_tokenizer
from ..packaged import DEFAULT_MODEL, MODELS_DIR
from .memory import MemoryFile, read_memory

FORMAT = "traductor-bundle"
GRAPHS = ("encoder.onnx", "decoder.onnx")
DEFAULT_BUNDLE_DIR = MODELS_DIR / DEFAULT_MODEL
IO_KEYS = ("encoder_inputs", "encoder_outputs", "decoder_inputs", "decoder_outputs")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Languages:
    source: str
    target: str

    def matches(self, source: str, target: str) -> bool:
        """Whether this pair translates source -> target (either empty: any)."""
        return (not source or self.source == source) and (not target or self.target == target)


# Error messages name at most this many pairs of a model, and this many models: an NLLB model has
# hundreds of pairs, and gRPC refuses an error text over 8 KB (the caller got RESOURCE_EXHAUSTED,
# not NOT_FOUND). ListModels and /languages list everything.
DESCRIBED_PAIRS = 8
DESCRIBED_MODELS = 16


def _and_more(items: list[str], limit: int, what: str) -> str:
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f", and {more} more {what}" if more > 0 else "")


def describe(name: str, pairs: list[Languages]) -> str:
    """A model as error messages and logs name it: "en-es (en->es)"; "nllb (eng_Latn->fra_Latn, ...,
    and 196 more pairs)" past DESCRIBED_PAIRS."""
    return f"{name} ({_and_more([f'{p.source}->{p.target}' for p in pairs], DESCRIBED_PAIRS, 'pairs')})"


def describe_all(models: dict[str, list[Languages]]) -> str:
    """Models (name -> pairs) as error messages list them, at most DESCRIBED_MODELS."""
    return _and_more([describe(n, p) for n, p in models.items()], DESCRIBED_MODELS, "models")


def choose(models: dict[str, BundleConfig], default: str, source: str = "", target: str = "") -> str:
    """The model of a call that names a pair, not a model (the server's registry and `traductor
    translate --from/--to` both pick this way): among `models` (name -> its config) those that
    translate source -> target (codes in any form, `BundleConfig.own_pair`; either empty: any),
    those whose own codes the caller used if any (`fra_Latn` is NLLB's, `fr` an OPUS-MT's), then
    the default one if it is one of them, else the first by name; "" when none does."""
    own = {name: config.own_pair(source, target) for name, config in models.items()}
    candidates = sorted(name for name, pair in own.items() if pair is not None)
    exact = [name for name in candidates if own[name] == Languages(source, target)]
    pool = exact or candidates
    return default if default in pool else next(iter(pool), "")


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

    def to_dict(self) -> dict:
        out = {"format": self.format, **asdict(self)}
        for key in ("tokenizer", "generation"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key).to_dict()
        for key in ("parity", "memory", "tokenizer", "generation"):
            if out[key] is None:
                del out[key]
        return out

    @functools.cached_property
    def pairs(self) -> list[Languages]:
        """Every pair the model translates. A one-target model: its `languages`. A multilingual one
        (an imported model whose tokenizer has target language codes: NLLB, a multi-target OPUS-MT):
        its source into each of its codes but the source's own, the default target first when it
        has one; a call picks one with target_language (the registry routes by these pairs)."""
        tokenizer = self.tokenizer
        if tokenizer is None or tokenizer.target_mode == "none" or not tokenizer.languages:
            return [self.languages]
        source, default = self.languages.source, self.languages.target
        first = [self.languages] if default in tokenizer.languages else []
        others = [code for code in sorted(tokenizer.languages) if code not in (source, default)]
        return first + [Languages(source, code) for code in others]

    @functools.cached_property
    def codes(self) -> CodeTable:
        """The model's own language codes (its pairs'), read in whatever form a caller sends them."""
        return CodeTable(code for p in self.pairs for code in (p.source, p.target))

    def own_pair(self, source: str = "", target: str = "") -> Languages | None:
        """A caller's pair (codes in any form: `fr`, `FRA`, `fr-CA`; either empty: any) in the model's
        own codes (NLLB's `fra_Latn`), or None when the model does not translate it."""
        own = [self.codes.own(code) if code else "" for code in (source, target)]
        if None in own or not any(p.matches(*own) for p in self.pairs):
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


@dataclass(frozen=True)
class Bundle:
    path: Path
    config: BundleConfig

    @property
    def model(self) -> ModelConfig:
        return self.config.model

    @property
    def n_layers(self) -> int:
        return self.model.n_decoder_layers

    @property
    def n_heads(self) -> int:
        return self.model.n_heads

    @property
    def d_k(self) -> int:
        return self.model.d_k

    @property
    def vocab_size(self) -> int:
        return self.model.vocab_size

    @property
    def max_len(self) -> int:
        return self.model.max_len

    @property
    def checksum(self) -> str:
        """One checksum for the whole bundle: sha256 over the graphs' own checksums."""
        joined = "".join(self.config.sha256[g] for g in GRAPHS)
        return hashlib.sha256(joined.encode()).hexdigest()

    def file(self, name: str) -> Path:
        return self.path / name

    def tokenizer(self) -> Tokenizer:
        """The bundle's tokenizer: the project's (placeholders) or an imported model's (PieceTokenizer)."""
        try:
            return open_tokenizer(self.path, self.config.tokenizer, self.vocab_size)
        except (OSError, RuntimeError, ValueError) as e:
            raise BundleError(f"{self.path}: cannot open the tokenizer ({e})") from e

    def memory(self) -> dict[str, str]:
        """The translation memory, source -> translation (empty without one); read on each call."""
        if self.config.memory is None:
            return {}
        entries = read_memory(self.file(self.config.memory.file))
        if len(entries) != self.config.memory.entries:
            raise BundleError(
                f"{self.file(self.config.memory.file)}: {len(entries)} entries, config.json says "
                f"{self.config.memory.entries}: export the bundle again"
            )
        return entries


def read_config(path: Path) -> BundleConfig:
    """config.json of a bundle directory, checked (the graphs are not looked at)."""
    config_file = Path(path) / "config.json"
    if not config_file.is_file():
        raise BundleError(f"{path} is not a traductor bundle: it has no config.json (make one with `traductor export`)")
    try:
        data = json.loads(config_file.read_text())
    except json.JSONDecodeError as e:
        raise BundleError(f"{config_file} is not valid JSON: {e}") from e
    try:
        return BundleConfig.from_dict(data)
    except BundleError as e:
        raise BundleError(f"{config_file}: {e}") from e


def load_bundle(path: Path | str, verify: bool = True, tokenizer: bool = True) -> Bundle:
    """Open a bundle: config checked, files present, graphs' checksums verified (`verify`)."""
    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"{path} is not a directory")
    config = read_config(path)
    for name in (*GRAPHS, *config.tokenizer_files) if tokenizer else GRAPHS:
        if not (path / name).is_file():
            raise BundleError(f"{path} is missing {name}")
    memory = config.memory
    if memory is not None and not (path / memory.file).is_file():
        raise BundleError(f"{path} is missing {memory.file} (its translation memory, named in config.json)")
    if verify:
        expected = {**config.sha256, **({memory.file: memory.sha256} if memory else {})}
        for name in (*GRAPHS, *([memory.file] if memory else [])):
            actual = sha256(path / name)
            if actual != expected[name]:
                raise BundleError(
                    f"{path / name}: checksum mismatch (config says {expected[name]}, file is {actual}); "
                    "the bundle is corrupt or was modified: export it again"
                )
    return Bundle(path, config)


def default_bundle() -> Path:
    """The default model's bundle, shipped in the package; TRADUCTOR_BUNDLE names another one.

    Never exports: a package without the bundle is broken, and says so."""
    if os.environ.get("TRADUCTOR_BUNDLE"):
        return Path(os.environ["TRADUCTOR_BUNDLE"])
    if not (DEFAULT_BUNDLE_DIR / "config.json").is_file():
        raise BundleError(
            f"the default model's bundle is missing from the package ({DEFAULT_BUNDLE_DIR}); pass --model BUNDLE, "
            "set TRADUCTOR_BUNDLE, or export one there with `traductor export --out " + str(DEFAULT_BUNDLE_DIR) + "`"
        )
    return DEFAULT_BUNDLE_DIR


def scan(directory: Path | str) -> dict[str, Path]:
    """The models of a repository: name -> bundle directory, by name (a subdirectory without a
    config.json is not a model and is skipped)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise BundleError(f"model repository {directory} is not a directory")
    return {d.name: d for d in sorted(directory.iterdir()) if d.is_dir() and (d / "config.json").is_file()}


def packaged_bundle(source: str = "", target: str = "") -> Path:
    """The packaged model that translates source -> target (either empty: any): the default model
    if it does, else the first by name; a BundleError lists the packaged pairs."""
    if not source and not target:
        return default_bundle()
    paths = scan(MODELS_DIR)
    configs = {name: read_config(path) for name, path in paths.items()}
    name = choose(configs, DEFAULT_MODEL, source, target)
    if not name:
        served = describe_all({name: config.shown_pairs for name, config in configs.items()})
        pair = f"{source or 'any'}->{target or 'any'}"
        raise BundleError(f"no packaged model translates {pair}; the models are: {served}")
    return paths[name]
