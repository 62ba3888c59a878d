"""``traductor-client``: translate, stream, check health, show model info, run load tests, fill
gettext catalogs (``po``).

Every failure ends in one line on stderr, ``traductor-client: CODE: details``, and a non-zero
exit status (1 for a failed call, 2 for a bad command line or a ``po`` catalog that cannot be
filled, 130 when interrupted; 141, silently, when the reader of its output went away, as in
``| head``), never in a traceback, so the command is usable in scripts and as
a container health check. Set ``TRADUCTOR_DEBUG=1`` to get the traceback of an unexpected error.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Optional, Sequence

from traductor_client import __version__, po, translate_cmd, translate_file
from traductor_client._cliargs import (
    UsageError,
    connection_parser,
    connection_settings,
)
from traductor_client.errors import TranslatorError
from traductor_client.files import FileError
from traductor_client.sync_client import TranslatorClient

PROG = "traductor-client"


def _client(args: argparse.Namespace) -> TranslatorClient:
    settings = connection_settings(args)
    return TranslatorClient(settings.pop("target"), **settings)


def _cmd_health(args: argparse.Namespace) -> int:
    with _client(args) as client:
        status = client.health(args.service)
    print(status)
    return 0 if status == "SERVING" else 1


def _cmd_info(args: argparse.Namespace) -> int:
    with _client(args) as client:
        info = client.model_info(args.model)
    fields = dataclasses.asdict(info)
    if args.json:
        print(json.dumps(fields, indent=2))
    else:
        width = max(len(name) for name in fields)
        for name, value in fields.items():
            print(f"{name:<{width}}  {_shown(name, value)}")
    return 0


def _shown(name: str, value: object) -> str:
    """A model_info field as a person reads it: pairs as "en->es", lists with commas, booleans as yes/no."""
    if name == "languages":
        return ", ".join(f"{source}->{target}" for source, target in value) or "-"  # type: ignore[union-attr]
    if isinstance(value, tuple):
        return ", ".join(value) or "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _cmd_models(args: argparse.Namespace) -> int:
    with _client(args) as client:
        models = client.list_models()
    if args.json:
        print(json.dumps([dataclasses.asdict(m) for m in models], indent=2))
        return 0
    width = max([len(m.name) for m in models] + [5])
    print(f"{'model':<{width}}  languages  default  serving")
    for m in models:
        pairs = ",".join(f"{s}->{t}" for s, t in m.languages)
        print(f"{m.name:<{width}}  {pairs:<9}  {'yes' if m.is_default else '':<7}  {'yes' if m.serving else 'no'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from traductor_client.loadtest import command as loadtest_command  # keeps --help fast

    conn = connection_parser()
    parser = argparse.ArgumentParser(
        prog=PROG, parents=[conn], description="Client for the traductor translation service."
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    translate_cmd.add_subparser(commands, conn)

    health = commands.add_parser("health", parents=[conn], help="print the serving status; exit 0 only when SERVING")
    health.add_argument("--service", default="", help="service name to check (default: the whole server)")
    health.set_defaults(handler=_cmd_health)

    info = commands.add_parser("info", parents=[conn], help="show the model and server limits")
    info.add_argument("--model", default="", help="a served model's name (default: the server's default model)")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(handler=_cmd_info)

    models = commands.add_parser("models", parents=[conn], help="list the served models and their languages")
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(handler=_cmd_models)

    loadtest_command.add_subparser(commands, conn)
    po.add_subparser(commands, conn)
    translate_file.add_subparser(commands, conn)
    return parser


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)  # always a single line
    return status


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns the exit status (the console script passes it to sys.exit)."""
    args = build_parser().parse_args(argv)
    if getattr(args, "stream", False) and getattr(args, "batch", False):
        return _fail("--stream and --batch cannot be combined", 2)
    try:
        status = args.handler(args)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at exit
        return status
    except TranslatorError as error:
        return _fail(f"{error.code_name}: {error.details}", 1)
    except UsageError as error:
        return _fail(str(error), 2)
    except FileError as error:  # po, translate-file: unreadable file or unusable service, nothing written
        return _fail(str(error), 2)
    except (TypeError, ValueError) as error:  # e.g. an option value protobuf cannot hold
        if os.environ.get("TRADUCTOR_DEBUG"):
            raise
        return _fail(f"invalid request: {error}", 2)
    except BrokenPipeError:  # `traductor-client translate | head`: the reader is gone, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141  # as a process ended by SIGPIPE
    except OSError as error:  # unreadable --ca/--cert/--key/--input, unwritable outputs
        return _fail(f"{error.strerror or error}: {error.filename or ''}", 1)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - last resort: one line, traceback on request
        if os.environ.get("TRADUCTOR_DEBUG"):
            raise
        return _fail(f"unexpected error: {type(error).__name__}: {error} (set TRADUCTOR_DEBUG=1 for the traceback)", 1)


if __name__ == "__main__":
    sys.exit(main())
