"""What other distributions add to `traductor`, found through entry points, so that this package
never imports them: the exporter (traductor-export, export/) needs torch and is not in the
serving image, and the dependencies point from it to this package, never back.

    traductor.commands   subcommand name -> register(subparsers)   (traductor-export: export, import)
    traductor.exporter   name -> a function of the exporter        (bench_bundle: what `bench` times)

Owns the discovery and the one line that names what to install when a distribution is absent;
knows nothing of what the commands and functions do.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from .errors import MissingDependency

COMMANDS = "traductor.commands"
EXPORTER = "traductor.exporter"
INSTALL_EXPORTER = (
    "needs the exporter, the traductor-export distribution of a source checkout: install it with "
    "`pip install torch==2.13.0 ./export` (or `bash scripts/setup.sh`)"
)
# the commands other distributions register, and what to install when one is not
PROVIDED = {"export": INSTALL_EXPORTER, "import": INSTALL_EXPORTER}


def _load(entry: EntryPoint):
    """The entry point's object; None when its distribution's package is gone (its own top-level
    module cannot be found: uninstalled but for stale metadata, or blocked by a test)."""
    try:
        return entry.load()
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] == entry.module.split(".")[0]:
            return None
        raise


def commands() -> dict:
    """name -> register(subparsers) of every subcommand an installed distribution registers."""
    found: dict = {}
    for entry in entry_points(group=COMMANDS):
        if entry.name not in found and (register := _load(entry)) is not None:
            found[entry.name] = register
    return found


def exporter(name: str):
    """The exporter's function `name`; MissingDependency naming what to install without it."""
    for entry in entry_points(group=EXPORTER, name=name):
        if (function := _load(entry)) is not None:
            return function
    raise MissingDependency(INSTALL_EXPORTER)
