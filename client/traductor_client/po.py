"""``traductor-client po IN.po``: fill the untranslated entries of a gettext catalog.

One use of the file-translation package (:mod:`traductor_client.files`): read the catalog
(``files.gettext``), pick the entries to fill (not obsolete, not translated; fuzzy ones only with
``--include-review``, or its other name ``--include-fuzzy``), send every distinct msgid and
msgid_plural through ``TranslateBatch`` (a progress bar counts them), check each translation
against the entry's format flags (:mod:`po_formats`), write the ones that pass, marked fuzzy
for review, and print a summary listing every entry left untranslated and why.

Text handling: a msgid's leading and trailing whitespace and newlines ("Usage:\\n", "Name: ")
are not sent; they are copied from the msgid onto the translation, as msgfmt requires for
newlines. Everything in between, line breaks included, is sent whole. A plural entry gets the
singular's translation in the form of n=1 (``msgstr[0]`` for nplurals=2, and Russian's form of
1, 21, 31... when the msgid carries the number) and the plural's translation in every other form
of the header's ``Plural-Forms``; a catalog without one takes its ``Language``'s standard one
(``files.plurals``) and gets it in its header.

Errors (a missing or non-PO file, an unreachable service) raise :class:`PoError` (the file
package's ``FileError``): one line on stderr and exit status 2, and nothing is written. A text
the service refuses (e.g. too long) only leaves its entry untranslated.
"""

from __future__ import annotations

import argparse
from typing import Any

from traductor_client.files import FileError
from traductor_client.files.client import DEFAULT_BATCH, add_common_flags, run_file

PoError = FileError  # the name this command's callers know
__all__ = ["DEFAULT_BATCH", "PoError", "add_subparser", "run_command"]


def add_subparser(commands: Any, conn: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "po",
        parents=[conn],
        help="fill the untranslated entries of a gettext .po catalog",
        description="Translate the untranslated entries of IN.po through the service and mark "
        "them fuzzy for review. Translations whose format directives (c-format, "
        "python-format, qt-format...) do not match the msgid's are not written.",
    )
    parser.add_argument("input", metavar="IN.po", help="the catalog to fill")
    parser.add_argument(
        "-o", "--output", metavar="OUT.po", help="write the result here (default: update IN.po in place)"
    )
    add_common_flags(parser)
    parser.set_defaults(handler=run_command)


def _read_catalog(path: str, data: bytes, language: str = ""):
    """Any file given to ``po`` is read as a catalog, whatever its extension."""
    from traductor_client.files.formats import EXTENSIONS

    return EXTENSIONS[".po"](data, path, language)


def run_command(args: argparse.Namespace) -> int:
    output = args.output or args.input
    return run_file(args, args.input, output, args.include_review, not args.no_review_mark, read=_read_catalog)
