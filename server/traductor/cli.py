"""The `traductor` command. Each subcommand is a small function; heavy imports happen inside
them so that `traductor serve` never imports torch and `--help` is instant.

    corpus     Debian packages' gettext catalogs -> train/dev/test TSV (training/corpus_cli.py)
    train      corpus -> checkpoint (model + tokenizer)
    average    training states -> one checkpoint of their mean weights (training/average.py)
    evaluate   checkpoint/bundle + TSV -> BLEU, chrF, placeholder rate (JSON)
    translate  stdin -> stdout, one translation per line (each line cut into sentences and put back;
               translate_cli.py, with evaluate, and offline.py)
    export     checkpoint -> ONNX bundle (encoder, decoder step, tokenizer, config): registered by
               the traductor-export distribution (export/), as is `import` (plugins.py)
    serve      bundle -> gRPC service with Prometheus metrics
    bench      engine throughput against other engines
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .errors import MissingDependency, TraductorError, require_torch


def cmd_train(args) -> None:
    from .training.config import TrainConfig

    require_torch("train")
    from .training.train import train

    cfg = TrainConfig.from_flat({f.name: getattr(args, f.name) for f in TrainConfig.flat_fields()})
    print(json.dumps(train(Path(args.corpus), Path(args.out), cfg, resume=not args.restart), indent=2))


def build_parser() -> argparse.ArgumentParser:
    from . import translate_cli
    from .training import average, corpus_cli
    from .training.config import INIT_VOCABS, PRECISIONS, TrainConfig

    parser = argparse.ArgumentParser(
        prog="traductor", description="English->Spanish translation: train, export, serve."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    corpus_cli.register(sub)

    p = sub.add_parser("train", help="train a model on a corpus directory")
    p.add_argument("--corpus", required=True, help="directory made by `traductor corpus`")
    p.add_argument("--out", required=True, help="checkpoint directory (resumed if it holds a train_state.pt)")
    p.add_argument("--restart", action="store_true", help="ignore an existing train_state.pt")
    for f in TrainConfig.flat_fields():
        choices = {"precision": list(PRECISIONS), "init_vocab": list(INIT_VOCABS)}.get(f.name)
        p.add_argument(
            "--" + f.name.replace("_", "-"), type=type(f.default), default=f.default, dest=f.name, choices=choices
        )
    p.set_defaults(func=cmd_train)
    average.register(sub)

    translate_cli.register(sub)

    _register_later_commands(sub)
    return parser


def _register_later_commands(sub) -> None:
    """Subcommands that live next to their subsystem: those other distributions register through
    the `traductor.commands` entry points (export, import: plugins.py), each in its place, or, when
    that distribution is absent, a stand-in that says in one line what to install; then this
    distribution's serve and bench, then any other registered command."""
    from . import plugins
    from .bench import command as bench_command
    from .service import serve_cli
    from .service.keys import command as keys_command

    found = plugins.commands()
    for name, install in plugins.PROVIDED.items():
        register = found.pop(name, None)
        register(sub) if register is not None else _register_missing(sub, name, install)
    serve_cli.register(sub)
    keys_command.register(sub)
    bench_command.register(sub)
    for name in sorted(found):
        found[name](sub)


def _register_missing(sub, name: str, install: str) -> None:
    """`traductor NAME ...` without the distribution that provides NAME: any arguments, one line."""
    p = sub.add_parser(name, help=f"(not installed) {install}", add_help=False, prefix_chars="\0")
    p.add_argument("ignored", nargs="*")

    def missing(args) -> None:
        raise MissingDependency(install)

    p.set_defaults(func=missing)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for reports that record their command
    try:
        status = args.func(args) or 0  # a command returns nothing, or its status (translate: 1 when a line failed)
        sys.stdout.flush()  # here, where a closed pipe is handled, not at exit
    except (TraductorError, FileNotFoundError) as e:
        print(f"traductor {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `traductor translate | head`: the reader is gone, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141  # as a process ended by SIGPIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
