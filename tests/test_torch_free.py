"""The serving path imports neither torch nor the exporter, and a torch-free install asked for a
torch command answers with one line naming what to install (exit status 2).

Each check runs in a fresh interpreter where a meta-path finder refuses `torch`, `safetensors`,
`onnx`, `transformers` and `traductor_export`, as on an install without the training extras.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import textwrap

import traductor.engine
import traductor.service

BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = set(__BLOCKED__)

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"No module named {name!r} (blocked by the test)")
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


def test_engine_and_service_import_without_torch_or_exporter():
    modules = _modules(traductor.engine) + _modules(traductor.service)
    assert "traductor.engine.scheduler" in modules and "traductor.service.server" in modules
    code = "import importlib\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\nprint('ok', len(sys.argv) - 1)"
    proc = _run(code, "traductor.errors", "traductor.options", *modules, blocked=(*TRAINING_EXTRAS, "traductor_export"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", str(len(modules) + 2)]


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
