"""The serving path imports neither torch nor the exporter, and a torch-free install asked for a
torch command answers with one line naming what to install (exit status 2). The exporter's
commands reach `traductor` through entry points (traductor/plugins.py): with it, `export` and
`import` are its own; without it, one line naming what to install.

Each check runs in a fresh interpreter where a meta-path finder refuses `torch`, `safetensors`,
`onnx`, `transformers` and `traductor_export`, as on an install without the training extras
(a refused module cannot be found, as an uninstalled one).
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import textwrap

import pytest

import traductor.bench
import traductor.engine
import traductor.model
import traductor.service
from traductor.cli import main

BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = set(__BLOCKED__)

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
            return None

    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    sys.meta_path.insert(0, Blocker())
    """
)


def _modules(package) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]


TRAINING_EXTRAS = ("torch", "safetensors", "onnx", "onnxscript", "transformers")


def _blocker(blocked: tuple[str, ...]) -> str:
    return BLOCKER.replace("__BLOCKED__", repr(blocked))


def _run(code: str, *args: str, blocked=TRAINING_EXTRAS, stdin: str = "") -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-c", _blocker(blocked) + code, *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)


IMPORT_ALL = "import importlib\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\nprint('ok', len(sys.argv) - 1)"
# the PyTorch side of traductor.model: the model itself and what runs it in PyTorch
TORCH_MODEL = {f"traductor.model.{m}" for m in ("transformer", "generate", "checkpoint", "translator")}
# the engine's PyTorch runner (`--device`), imported only when a command names a device
TORCH_ENGINE = {f"traductor.engine.{m}" for m in ("torch_runner", "torch_cache", "torch_choice")}


def _imports(modules: list[str], blocked: tuple[str, ...]) -> None:
    proc = _run(IMPORT_ALL, *modules, blocked=blocked)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", str(len(modules))]


def test_engine_and_service_import_without_torch_or_exporter():
    modules = _modules(traductor.engine) + _modules(traductor.service) + _modules(traductor.bench)
    assert "traductor.engine.scheduler" in modules and "traductor.service.server" in modules
    assert TORCH_ENGINE < set(modules)
    command_line = ["traductor.cli", "traductor.plugins", "traductor.errors", "traductor.options"]
    _imports(
        command_line + [m for m in modules if m not in TORCH_ENGINE], blocked=(*TRAINING_EXTRAS, "traductor_export")
    )
    _imports(sorted(TORCH_ENGINE), blocked=("traductor_export",))


def test_device_without_torch_is_one_line():
    """`--device` on a torch-free install: one line naming what to install, exit status 2."""
    proc = _cli("translate", "--device", "cpu")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "traductor translate: error: --device cpu runs the model in PyTorch" in lines[0]
    assert "pip install torch==2.13.0 'traductor[gpu]'" in lines[0]


def test_model_imports_torch_only_in_its_pytorch_side():
    """Every module of traductor.model imports without the exporter; all but the PyTorch model
    and what runs it (TORCH_MODEL) without torch too."""
    modules = ["traductor.model", *_modules(traductor.model)]
    assert TORCH_MODEL < set(modules) and "traductor.model.tokenizer" in modules
    _imports(modules, blocked=("traductor_export",))
    _imports([m for m in modules if m not in TORCH_MODEL], blocked=(*TRAINING_EXTRAS, "traductor_export"))


def test_the_blocker_blocks():
    """The check above could pass vacuously if the blocker did nothing."""
    for name in ("torch", "traductor_export"):
        proc = _run(f"import {name}", blocked=(*TRAINING_EXTRAS, "traductor_export"))
        assert proc.returncode == 1 and "blocked by the test" in proc.stderr


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return _run("from traductor.cli import main\nsys.exit(main(sys.argv[1:]))", *argv)


def test_torch_commands_without_torch_say_what_to_install(tmp_path):
    for argv in (
        ["train", "--corpus", str(tmp_path), "--out", str(tmp_path / "m")],
        ["export", "--out", str(tmp_path / "b")],
        ["evaluate", "--engine", "pytorch", "--corpus", str(tmp_path / "t.tsv")],
    ):
        proc = _cli(*argv)
        assert proc.returncode == 2, (argv, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "pip install torch==2.13.0" in lines[0] and f"traductor {argv[0]}: error:" in lines[0]


def test_translate_without_a_bundle_is_one_line(tmp_path):
    """--model pointing at no bundle: a one-line BundleError, no traceback, even without torch."""
    proc = _run(
        "from traductor.cli import main\nsys.exit(main(sys.argv[1:]))",
        "translate",
        "--model",
        str(tmp_path),
        stdin="hello\n",
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no config.json" in proc.stderr


@pytest.mark.parametrize(("command", "flag"), [("export", "--checkpoint"), ("import", "--revision")])
def test_the_exporters_commands_come_through_its_entry_points(command, flag, capsys):
    with pytest.raises(SystemExit) as exit:
        main([command, "--help"])
    assert exit.value.code == 0 and flag in capsys.readouterr().out


def test_bench_reaches_the_exporter_through_its_entry_point():
    """`traductor bench` (random weights, --anchors) has its bundles made by the exporter."""
    from traductor.plugins import exporter
    from traductor_export.bench_bundle import make_bundle

    assert exporter("bench_bundle") is make_bundle


def test_without_the_exporter_its_commands_say_what_to_install(tmp_path):
    blocked = (*TRAINING_EXTRAS, "traductor_export")
    cli = "from traductor.cli import main\nsys.exit(main(sys.argv[1:]))"
    listed = _run(cli, "--help", blocked=blocked)
    assert listed.returncode == 0 and "export" in listed.stdout and "import" in listed.stdout, listed.stderr
    for argv in (
        ["export", "--out", str(tmp_path / "b")],
        ["export", "--help"],
        ["import", "Helsinki-NLP/opus-mt-en-fr", "--out", str(tmp_path / "i")],
        ["bench", "--shape", "16,1,2,32,64", "--batches", "1", "--runs", "1"],  # random weights: exported
    ):
        proc = _run(cli, *argv, blocked=blocked)
        lines = proc.stderr.strip().splitlines()  # bench: its progress, then the error
        errors = [line for line in lines if "error:" in line]
        assert proc.returncode == 2 and errors == lines[-1:] and "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert f"traductor {argv[0]}: error: needs the exporter" in lines[-1]
        assert "pip install torch==2.13.0 ./export" in lines[-1]
    assert not (tmp_path / "b").exists() and not (tmp_path / "i").exists()
