"""The verifier: every output segment checked against its source; repaired where the repair is
certain, else flagged. One stage, run on the output of every model (packaged or imported), for
every interface and file format (service/pipeline/verify.py applies it to the engine's events).

    verdict = verify(source, output, language="fr")
    verdict.text        the output with the certain repairs made
    verdict.repaired    the names of the checks whose failure was repaired
    verdict.failed      the names of the checks that still fail: the segment is flagged

The checks, in order (their names are what the answers, the metrics and the file report say):

    spans          the source's placeholders, protected spans of every kind and markup tags
                   (model/placeholders.py, read with the SOURCE's pattern) come back exactly, as many
                   times as in the source. Repaired: a span that came back changed (`127.0.0.1:500`
                   for `127.0.0.1:5000`) or whose word the model rewrote (`placeholders.repair`); a
                   program placeholder or tag the source lacks, or one more copy of a span than the
                   source has, is removed. Flagged: a span still missing; a verbatim span the source
                   lacks (an abbreviation of the target language, `p.ej.`, `EE.UU.`, is not one)
    spaces         special spaces (`special_spaces.py`): each comes back as many times as in the
                   source, glued to the same characters
    edges          the leading and trailing whitespace is the source's (repaired)
    doublespacing  no run of plain spaces the source lacks (repaired: one space)
    markup         a pair of tags that wraps the whole source wraps the whole output, and no tag has
                   whitespace inside it where the source has it outside (both repaired)
    numbers        the digits of the source come back (grouping and decimal separators may change:
                   `1,000.5` -> `1 000,5`); flagged
    urls, emails, printf, pythonbraceformat, xmltags, endpunc, brackets, escapes, newlines, tabs
                   translate-toolkit's checks (`toolkit_checks.py`); flagged

A repair only ever makes the output hold what the source holds; nothing here depends on any other
segment. With `repair=False` every failure is a flag; with a set of check names, only those are
repaired: a segment that was streamed as it decoded (`streamable` made what was sent) can still
have its runs of spaces made one, and nothing else.
This module knows nothing about models, the service or metrics.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from ..model import placeholders
from . import special_spaces, toolkit_checks

_ABBREVIATION = re.compile(r"(?:[^\W\d_]{1,3}\.)+[^\W\d_]{0,3}")  # p.ej., EE.UU., z.B.
_PROGRAM = set(placeholders.KINDS) - set(placeholders.VERBATIM)
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)[^<>]*>")
_PLAIN = " \t\r\n"  # the whitespace of a segment's edges (special spaces are special_spaces.py's)
_DIGITS = re.compile(r"\d+(?:[.,\u00a0\u202f' ]\d+)*")


@dataclass(frozen=True)
class Verdict:
    text: str
    repaired: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()


def holds_anything(source: str) -> bool:
    """Whether a repair of an output of `source` may be needed beyond its edges and spaces: the
    source has a span, a tag or a special space (a stream holds such a segment's text to its end)."""
    return bool(placeholders.find(source)) or special_spaces.present(source)


def verify(source: str, output: str, language: str = "", repair: bool | frozenset[str] = True) -> Verdict:
    """The output checked against its source (see the module docstring)."""
    repaired, failed = [], []
    text = output
    for name, check in _REPAIRING:
        fixed, ok = check(source, text)
        if fixed != text and (repair is True or (repair is not False and name in repair)):
            repaired.append(name)
            text = fixed
        elif fixed != text:
            ok = False
        if not ok:
            failed.append(name)
    if not _numbers_agree(source, text):
        failed.append("numbers")
    failed += [name for name in toolkit_checks.failures(source, text, language) if name not in failed]
    return Verdict(text, tuple(repaired), tuple(failed))


def _spans(source: str, output: str) -> tuple[str, bool]:
    text = output
    want = placeholders.find(source)

    def found(t: str) -> list[tuple[str, str, int, int]]:  # (span, kind, start, end) as the source's pattern finds them
        return [(m.group(0), m.lastgroup, m.start(), m.end()) for m in placeholders.finditer_as(source, t)]

    spans = found(text)
    if not want and not spans:
        return text, True
    missing = Counter(want) - Counter(v for v, *_ in spans)
    for value, kind, start, end in reversed(spans):  # a changed span, nearest first
        if value in want or kind not in placeholders.VERBATIM or not missing:
            continue
        best = max(missing, key=lambda m: difflib.SequenceMatcher(None, value, m, autojunk=False).ratio())
        if difflib.SequenceMatcher(None, value, best, autojunk=False).ratio() >= 0.6:
            start, end = _around(text, start, end, value, best)
            text = text[:start] + best + text[end:]
            missing[best] -= 1
            missing += Counter()
    if missing:  # a word the model rewrote (an imported model's: it has no <phK> tokens)
        text = placeholders.repair(text, want)
    spans = found(text) if text != output else spans
    surplus = Counter(v for v, *_ in spans) - Counter(want)
    unknown, cut = False, False
    for value, kind, start, end in reversed(spans):  # the last copies go first
        if not surplus[value]:
            continue
        if value in want or kind in _PROGRAM or kind == "metavar":
            surplus[value] -= 1
            text, cut = _tidy(text[:start], text[end:]), True
        elif not _ABBREVIATION.fullmatch(value):
            unknown = True
    still = Counter(want) - Counter(v for v, *_ in (found(text) if cut else spans))
    return text, not still and not unknown


def _around(text: str, start: int, end: int, value: str, span: str) -> tuple[int, int]:
    """Where `value` (at start:end of `text`) stands for `span`: with the characters of `span`
    around it that the text kept (`EXIF.EXPOSURE)` stands for `$(EXIF.EXPOSURE)` with its `)`)."""
    at = span.find(value)
    if at >= 0:
        prefix, suffix = span[:at], span[at + len(value) :]
        while prefix and not text[:start].endswith(prefix):
            prefix = prefix[1:]
        while suffix and not text[end:].startswith(suffix):
            suffix = suffix[:-1]
        start, end = start - len(prefix), end + len(suffix)
    return start, end


def _tidy(before: str, after: str) -> str:
    """Two pieces of a text joined where something was cut out, without a double space."""
    if before.endswith(" ") and (after.startswith(" ") or not after or after[0] in ".,;:!?)"):
        before = before[:-1]
    return before + after


def _edges(source: str, text: str) -> tuple[str, bool]:
    core = text.strip(_PLAIN)
    lead = source[: len(source) - len(source.lstrip(_PLAIN))]
    trail = source[len(source.rstrip(_PLAIN)) :]
    return (lead + core + trail if core else text), True


_SPACE_RUN = re.compile(r"(?<=\S) {2,}(?=\S)")
STREAM_REPAIRS = frozenset({"doublespacing"})  # what `streamable` already did to a streamed segment


def _doublespacing(source: str, text: str) -> tuple[str, bool]:
    return (text if "  " in source else _SPACE_RUN.sub(" ", text)), True


def streamable(source: str, partial: str) -> str:
    """What a stream may send of a segment's output decoded so far (`partial`), as the verifier will
    leave it: a run of spaces the source lacks made one (doublespacing), and the spaces at its end
    held back until something follows them (they may begin such a run). Each call's result begins
    with the one before it, as its partial grows; the verifier's repair of the whole output, with
    STREAM_REPAIRS, begins with every one of them."""
    return partial if "  " in source else _doublespacing(source, partial.rstrip(" "))[0]


def _markup(source: str, text: str) -> tuple[str, bool]:
    tags = [m for m in _TAG.finditer(source) if m.group(0) in placeholders.find(source)]
    if len(tags) >= 2 and tags[0].start() == 0 and tags[-1].end() == len(source):
        first, last = tags[0], tags[-1]
        if not first.group(1) and last.group(1) and first.group(2).lower() == last.group(2).lower():
            open_, close = first.group(0), last.group(0)
            if source.count(open_) == text.count(open_) == 1 and source.count(close) == text.count(close) == 1:
                inner = text.replace(open_, "", 1).replace(close, "", 1)
                inner = re.sub(r" {2,}", " ", inner).strip()
                text = open_ + inner + close
    for tag in {m.group(0) for m in tags}:
        closing = tag.startswith("</")
        inside = re.escape(tag) + r"(\s+)" if not closing else r"(\s+)" + re.escape(tag)
        if re.search(inside, source):
            continue
        if closing:  # whitespace before a close tag goes after it
            text = re.sub(inside, lambda m, t=tag: t + m.group(1), text)
        else:
            text = re.sub(inside, lambda m, t=tag: m.group(1) + t, text)
    return text, True


def _numbers_agree(source: str, text: str) -> bool:
    """The numbers of the source are in the output, whatever their separators: compared as digits."""

    def digits(t: str) -> Counter:
        return Counter(re.sub(r"\D", "", m.group(0)) for m in _DIGITS.finditer(t))

    return not digits(source) - digits(text)


# markup before edges and doublespacing: a space it moves out of a tag may double one there
_REPAIRING = (
    ("spans", _spans),
    ("spaces", special_spaces.check),
    ("markup", _markup),
    ("edges", _edges),
    ("doublespacing", _doublespacing),
)
