"""``traductor-client translate-file IN [-o OUT] --to LANG``: fill a translation file of any
supported format (gettext, XLIFF, Qt .ts, Android, JSON, SubRip, text, HTML, Markdown) through
gRPC ``TranslateBatch``; see :mod:`traductor_client.files` and docs/files.md.

Bilingual files (po, XLIFF, .ts) keep their translated units and get the new ones marked for
review in their own way; monolingual ones (Android, JSON, .srt, text, HTML, Markdown: a
program's source-language file) are translated whole, keys and structure kept. Without ``-o``
the result goes next to the input as ``IN.LANG.EXT``: the input is never overwritten unless
``-o`` names it.
"""

from __future__ import annotations

import argparse
from typing import Any

from traductor_client.files.client import add_common_flags, default_output, run_file
from traductor_client.files.formats import EXTENSIONS


def add_subparser(commands: Any, conn: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "translate-file",
        parents=[conn],
        help="fill a translation file (po, XLIFF, Qt .ts, Android, JSON, srt, txt, HTML, Markdown)",
        description="Translate the untranslated units of IN through the service, keeping its "
        "format, keys and structure; new translations are marked for review where the format can "
        f"say so. Supported: {' '.join(sorted(EXTENSIONS))}.",
    )
    parser.add_argument("input", metavar="IN", help="the file to translate (its extension says its format)")
    parser.add_argument("-o", "--output", metavar="OUT", help="where to write (default: IN.LANG.EXT beside IN)")
    parser.add_argument("--to", metavar="LANG", help="the target language (checked against the server's)")
    add_common_flags(parser)
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    output = args.output or default_output(args.input, args.to)
    return run_file(args, args.input, output, args.include_review, not args.no_review_mark)
