"""translate-toolkit's quality checks (the ones `pofilter` runs on human translations) on a
machine's output: `failures(source, output, language)` names the checks it fails.

Run: urls, emails, printf, pythonbraceformat, xmltags, endpunc, brackets, escapes, newlines, tabs:
what must be copied or kept (addresses, format strings, tags, escapes, line structure) and the
sentence's end. Not run, and why: `acronyms` and the toolkit's `numbers` flag what a translation
rightly localizes (`OK` -> `Aceptar`, `GB` -> `Go`, `3.5` -> `3,5`; verify.py compares the digits
instead, and the acronyms they caught, `%APDATA%`, are protected spans now); `doublespacing` and
the whitespace checks are repaired by verify.py before; the spelling, capitalisation and wording
checks judge style, not what the source holds. translate-toolkit is already a dependency of the server's
distribution (through `traductor-client[files]` in pyproject.toml: it reads the file formats) and
imports neither torch nor transformers.

One checker per target language, made on first use and kept (`functools.cache`: its configuration
never changes). This module knows nothing about models or the service.
"""

from __future__ import annotations

import functools

from translate.filters.checks import CheckerConfig, FilterFailure, StandardChecker

CHECKS = (
    "urls",
    "emails",
    "printf",
    "pythonbraceformat",
    "xmltags",
    "endpunc",
    "brackets",
    "escapes",
    "newlines",
    "tabs",
)


@functools.cache
def _checker(language: str) -> StandardChecker:
    return StandardChecker(checkerconfig=CheckerConfig(targetlanguage=language or None))


def failures(source: str, output: str, language: str = "") -> list[str]:
    """The names of the checks in CHECKS that `output` fails as a translation of `source`."""
    checker, failed = _checker(language), []
    for name in CHECKS:
        try:
            getattr(checker, name)(source, output)
        except FilterFailure:
            failed.append(name)
    return failed
