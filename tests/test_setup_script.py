"""The set-up a newcomer runs: the README's commands, CI's command and scripts/setup.sh agree, and
the set-up installs into its own virtual environment, never into the Python it starts from."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "scripts" / "setup.sh"


def _readme_command(after: str) -> str:
    """The indented command line that follows the paragraph `after` in the README's set-up section."""
    text = (ROOT / "README.md").read_text()
    found = re.search(re.escape(after) + r"\n\n    (.+)\n", text)
    assert found, f"README: no command after {after!r}"
    return found.group(1).strip()


def test_ci_runs_exactly_the_readme_test_command():
    command = _readme_command("Run the tests:")
    last = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip()][-1]
    assert last == command
    assert command.startswith("bash scripts/setup.sh && ")
    for tool in re.split(r"\s*&&\s*", command)[1:]:
        assert tool.startswith(".venv/bin/"), f"{tool!r} would run whatever is first on the PATH"


def test_readme_serve_command_runs_the_venv_traductor():
    assert _readme_command("Run the service on the bundled default model (port 50051, metrics on 9090):") == (
        "bash scripts/setup.sh && .venv/bin/traductor serve"
    )


def test_setup_installs_only_into_the_venv():
    script = SETUP.read_text()
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("#")]
    code = "\n".join(lines)
    assert re.search(r'"\$python" -m venv "\$VENV"', code) and "VENV=.venv" in code
    installs = [line for line in lines if re.search(r"pip\S*\s+install", line)]
    assert installs == ['pip=("$VENV/bin/python" -m pip install --quiet)'], "every pip install is the venv's"
    assert all("pip" not in line or "${pip[@]}" in line or line in installs for line in lines if "install" in line)
    assert '"${pip[@]}" "torch==2.13.0"' in code, "torch stays pinned (the local CPU wheel)"
    subprocess.run(["bash", "-n", str(SETUP)], check=True)


def test_the_venv_is_git_ignored():
    assert ".venv/" in (ROOT / ".gitignore").read_text().split()
    if (ROOT / ".git").exists():  # a checkout (not an exported tree): git itself says so
        ignored = subprocess.run(["git", "check-ignore", "-q", ".venv/bin/python"], cwd=ROOT, capture_output=True)
        assert ignored.returncode == 0, ".venv is not git-ignored"
