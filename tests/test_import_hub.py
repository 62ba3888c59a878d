"""`traductor import OWNER/NAME`: a model name is read through huggingface_hub from its standard cache
(here one the test builds, in the Hub's own layout, with HF_HUB_OFFLINE=1: no network), and a name
that cannot be had is one clear line, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import run_error

pytest.importorskip("transformers")
pytest.importorskip("torch")

from test_import import marian_dir  # noqa: E402, F401  (the tiny OPUS-MT checkpoint, built by that fixture)

from traductor.engine.translator import OnnxTranslator  # noqa: E402
from traductor.options import DecodingOptions  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def hub_cache(root: Path, repo_id: str, checkpoint: Path) -> Path:
    """`checkpoint`'s files as huggingface_hub caches a repository: blobs, a snapshot per commit
    (links to the blobs), refs/main naming the commit. Plus files an importer never reads, which
    must not be needed."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / COMMIT
    (repo / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for f in checkpoint.iterdir():
        blob = repo / "blobs" / f"blob-{f.name}"
        shutil.copy(f, blob)
        (snapshot / f.name).symlink_to(os.path.relpath(blob, snapshot))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    return root


def offline_env(cache: Path) -> dict:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache), "HF_HOME": str(cache.parent / "hf-home")}


def test_import_by_name_reads_the_hub_cache(marian_dir, tmp_path):  # noqa: F811
    """The same bundle as importing the folder: name from the repository, not the snapshot's commit."""
    cache = hub_cache(tmp_path / "hub", "acme/opus-mt-en-es", marian_dir)
    out = tmp_path / "bundle"
    done = subprocess.run(
        [sys.executable, "-m", "traductor.cli", "import", "acme/opus-mt-en-es", "--out", str(out)],
        env=offline_env(cache),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["name"] == "opus-mt-en-es" and config["parity"]["transformers_identical"] == 1.0
    translator = OnnxTranslator.load(out)
    event = translator.generate([translator.tokenizer.encode("cannot open file")[0]], DecodingOptions())[0]
    assert event.text.strip()


@pytest.mark.parametrize(
    "spec, flags, message",
    [
        ("acme/not-cached", [], "acme/not-cached is not in the cache ("),
        ("acme/not-cached", ["--revision", "v2"], "acme/not-cached at revision v2 is not in the cache"),
        ("not a name", [], "not a name is neither a folder nor a model name of the Hugging Face Hub"),
    ],
)
def test_a_name_that_cannot_be_had_is_one_line(spec, flags, message, tmp_path, monkeypatch, capsys):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    err = run_error(["import", spec, "--out", str(tmp_path / "b"), *flags], capsys, message)
    if "cache" in message:
        assert "(HF_HUB_OFFLINE is set)" in err


def test_revision_with_a_folder_is_refused(marian_dir, tmp_path, capsys):  # noqa: F811
    capsys.readouterr()  # what building the fixture printed
    argv = ["import", str(marian_dir), "--out", str(tmp_path / "b"), "--revision", "main"]
    run_error(argv, capsys, "--revision main: ", "is a folder, not a model name")
