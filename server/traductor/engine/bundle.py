"""A bundle is what `traductor export` writes and what the engine runs (no torch needed):

    encoder.onnx      source -> encoder output + every decoder layer's cross-attention K/V
    decoder.onnx      one decode step over a padded KV cache
    *.onnx.data       a big model's weights, beside the graph that reads them (protobuf holds
                      no graph over 2 GB; ONNX Runtime reads them from the graph's directory);
                      config.json names them among the checksums
    tokenizer.model   SentencePiece, with the placeholder tokens
    config.json       a `BundleConfig` (engine/bundle_config.py): dimensions and special ids (a
                      ModelConfig), languages, IO names, opset, sha256 of the graphs, the parity
                      figures of the export
    source.spm ...    an imported model's tokenizer files instead, named by the config's "tokenizer"
                      section (model/tokenizer.TokenizerConfig), with its "generation" rules
                      (model/generation.GenerationConfig); bundles without them are the project's own
    memory.tsv        optional: a translation memory (engine/memory.py), named with its sha256
                      and entry count in config.json; bundles without one load as before

This module opens bundles: `load_bundle(path)` reads config.json (`read_config`), checks that the
files it names are present and that the graphs' (their weights' and memory's) checksums match; a `Bundle` opens
its tokenizer and translation memory. It also finds them: `default_bundle()` is the default
model's bundle in the package's model repository (models/en-es/); `scan(directory)` lists a model
repository's bundles; `choose` picks the model of a language pair among several,
`packaged_bundle(source, target)` the packaged one (`traductor translate --to`), and
`packaged_route` the two through English where none translates the pair.

It does not define config.json's fields or their checks (bundle_config.py), nor run the graphs
(runner.py); it knows nothing of torch or of how the graphs were made.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import BundleError
from ..languages import ENGLISH, through_english
from ..model.config import ModelConfig
from ..model.tokenizer import Tokenizer, open_tokenizer
from ..packaged import DEFAULT_MODEL, MODELS_DIR
from .bundle_config import GRAPHS, BundleConfig, Languages
from .memory import read_memory

DEFAULT_BUNDLE_DIR = MODELS_DIR / DEFAULT_MODEL


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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
    def graph_files(self) -> list[str]:
        """The graphs, then the files of external weights config.json names beside them."""
        return graph_files(self.config)

    @property
    def checksum(self) -> str:
        """One checksum for the whole bundle: sha256 over the graphs' (and their weights') checksums."""
        joined = "".join(self.config.sha256[f] for f in self.graph_files)
        return hashlib.sha256(joined.encode()).hexdigest()

    def file(self, name: str) -> Path:
        return self.path / name

    def tokenizer(self) -> Tokenizer:
        """The bundle's tokenizer: the project's (placeholders) or an imported model's (PieceTokenizer)."""
        try:
            config = self.config
            return open_tokenizer(
                self.path,
                config.tokenizer,
                self.vocab_size,
                config.languages.target,
                config.registers,
            )
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


def graph_files(config: BundleConfig) -> list[str]:
    """The graphs, then every other file with a checksum in config.json: their external weights."""
    return [*GRAPHS, *sorted(set(config.sha256) - set(GRAPHS))]


def load_bundle(path: Path | str, verify: bool = True, tokenizer: bool = True) -> Bundle:
    """Open a bundle: config checked, files present, graphs' checksums verified (`verify`)."""
    path = Path(path)
    if not path.is_dir():
        raise BundleError(f"{path} is not a directory")
    config = read_config(path)
    graphs = graph_files(config)
    for name in (*graphs, *config.tokenizer_files) if tokenizer else graphs:
        if not (path / name).is_file():
            raise BundleError(f"{path} is missing {name}")
    memory = config.memory
    if memory is not None and not (path / memory.file).is_file():
        raise BundleError(f"{path} is missing {memory.file} (its translation memory, named in config.json)")
    if verify:
        expected = {**config.sha256, **({memory.file: memory.sha256} if memory else {})}
        for name in (*graphs, *([memory.file] if memory else [])):
            actual = sha256(path / name)
            if actual != expected[name]:
                raise BundleError(
                    f"{path / name}: checksum mismatch (config says {expected[name]}, file is {actual}); "
                    "the bundle is corrupt or was modified: export it again"
                )
    return Bundle(path, config)


# ---- a repository of bundles: finding them, choosing one ----------------------------------


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


def packaged_route(source: str = "", target: str = "") -> list[Path]:
    """The packaged bundles that translate source -> target, in order: the one that does
    (`packaged_bundle`), else, for two languages other than English, the one into English and the
    one out of it (as the server's routing goes through English: service/routing.py); a BundleError
    lists the packaged pairs when neither way exists."""
    try:
        return [packaged_bundle(source, target)]
    except BundleError as direct:
        if not through_english(source, target):
            raise
        try:
            return [packaged_bundle(source, ENGLISH), packaged_bundle(ENGLISH, target)]
        except BundleError:
            raise direct from None
