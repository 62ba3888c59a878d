"""Where `traductor import` finds a checkpoint: a folder, or a model name on the Hugging Face Hub.

    locate("work/opus-mt-en-fr")               a folder as save_pretrained wrote it: used as it is
    locate("Helsinki-NLP/opus-mt-en-fr")       a name: the files the importers read, through
                                               huggingface_hub into its standard cache

A name is fetched with `huggingface_hub` (the library transformers itself uses), so everything a
user already has for it holds: the cache (`HF_HOME`, `HF_HUB_CACHE`; a model fetched once is
never fetched again), `HF_HUB_OFFLINE=1` (only the cache is read), `HF_TOKEN` for gated models,
progress bars, `--revision` (a branch, tag or commit). Only what an importer reads is fetched:
the JSON and tokenizer files, and one set of weights (safetensors when the repository has them,
else `pytorch_model.bin`), not the TensorFlow, Flax or Rust copies beside them.

This module does not know the model families: `importers.py` checks what it gets.
"""

from __future__ import annotations

import re
from pathlib import Path

from traductor.errors import ExportError

# owner/name, as the Hub spells repository ids
REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
# everything but the weights: configs, vocabularies, SentencePiece and BPE models
SMALL_FILES = ["*.json", "*.model", "*.spm", "*.txt"]
WEIGHTS = ("model.safetensors", "pytorch_model.bin")  # the first the repository has


def locate(spec: str, revision: str | None = None) -> Path:
    """The checkpoint folder `spec` names: itself when it is a folder, else the Hub's snapshot of the
    repository `spec` (fetched when the cache lacks it). ExportError says what went wrong in a line."""
    path = Path(spec)
    if path.is_dir():
        if revision:
            raise ExportError(f"--revision {revision}: {spec} is a folder, not a model name")
        return path
    if not REPO_ID.fullmatch(spec):
        raise ExportError(f"{spec} is neither a folder nor a model name of the Hugging Face Hub (owner/name)")
    return _fetch(spec, revision)


def _fetch(repo_id: str, revision: str | None) -> Path:
    from huggingface_hub import constants, hf_hub_download, snapshot_download
    from huggingface_hub.errors import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    where = f"{repo_id}" + (f" at revision {revision}" if revision else "")
    try:
        folder = Path(snapshot_download(repo_id, revision=revision, allow_patterns=SMALL_FILES))
        not_cached = None
        for weights in WEIGHTS:
            try:
                hf_hub_download(repo_id, weights, revision=revision)
                return folder
            except LocalEntryNotFoundError as e:  # (a kind of EntryNotFoundError: first)
                not_cached = not_cached or e
            except EntryNotFoundError:
                continue
        if not_cached is not None:
            raise not_cached
        raise ExportError(f"{where} has none of the weights an importer reads ({' or '.join(WEIGHTS)})")
    except LocalEntryNotFoundError as e:
        offline = " (HF_HUB_OFFLINE is set)" if constants.HF_HUB_OFFLINE else " and the Hub cannot be reached"
        raise ExportError(f"{where} is not in the cache ({constants.HF_HUB_CACHE}){offline}") from e
    except GatedRepoError as e:
        raise ExportError(f"{where} is gated: accept its terms on the Hub and set HF_TOKEN") from e
    except RevisionNotFoundError as e:
        raise ExportError(f"{repo_id} has no revision {revision!r}") from e
    except RepositoryNotFoundError as e:
        raise ExportError(f"{repo_id} is not a model on the Hub (or it is private: set HF_TOKEN)") from e
    except (HfHubHTTPError, OSError) as e:
        raise ExportError(f"{where}: the download failed ({str(e).splitlines()[0]})") from e
