"""``traductor-client po IN.po``: fill the untranslated entries of a gettext catalog.

The run, top to bottom: read the catalog (:mod:`po_catalog`), pick the entries to fill (not
obsolete, not translated; fuzzy ones only with ``--include-fuzzy``), send every distinct msgid
and msgid_plural through ``TranslateBatch`` (a progress bar counts them), check each translation
against the entry's format flags (:mod:`po_formats`), write the ones that pass, marked fuzzy for
review, and print a summary listing every entry left untranslated and why.

Text handling: a msgid's leading and trailing whitespace and newlines ("Usage:\\n", "Name: ")
are not sent; they are copied from the msgid onto the translation, as msgfmt requires for
newlines. Everything in between, line breaks included, is sent whole. A plural entry gets the
singular's translation in the singular form (``msgstr[0]`` for nplurals=2) and the plural's
translation in every other form of the header's ``Plural-Forms``.

Errors (a missing or non-PO file, an unreachable service) raise :class:`PoError`: one line on
stderr and exit status 2, and nothing is written. A text the service refuses (e.g. too long)
only leaves its entry untranslated.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from traductor_client import __version__, po_formats
from traductor_client._cliargs import UsageError, add_decoding_flags, connection_settings, decoding_options
from traductor_client.errors import InvalidArgument, TranslatorError
from traductor_client.sync_client import TranslatorClient

DEFAULT_BATCH = 32


class PoError(Exception):
    """The catalog cannot be read or written, or the service cannot fill it (exit status 2)."""


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
    parser.add_argument("--include-fuzzy", action="store_true", help="also retranslate entries marked fuzzy")
    parser.add_argument("--no-fuzzy", action="store_true", help="do not mark the new translations fuzzy")
    parser.add_argument("--dry-run", action="store_true", help="translate and print the summary, write nothing")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"texts per TranslateBatch call (default {DEFAULT_BATCH}, at most the server's limit)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    add_decoding_flags(parser, scores=False)
    parser.set_defaults(handler=run_command)


# -- what happened to each entry ----------------------------------------------------------------
@dataclass
class Summary:
    filled: int = 0
    already_translated: int = 0
    fuzzy_kept: int = 0
    obsolete: int = 0
    rejected: List[Tuple[Any, str]] = field(default_factory=list)  # (entry, reason)
    skipped: List[Tuple[Any, str]] = field(default_factory=list)

    def lines(self, fuzzy: bool) -> List[str]:
        rows = [
            ("filled", self.filled, "marked fuzzy for review" if fuzzy and self.filled else ""),
            ("rejected", len(self.rejected), "format directives do not match: not written"),
            ("skipped", len(self.skipped), "not translated"),
            ("already translated", self.already_translated, "untouched"),
            ("fuzzy, kept", self.fuzzy_kept, "--include-fuzzy retranslates them"),
            ("obsolete", self.obsolete, "untouched"),
        ]
        out = [f"  {name:<19}{count:>6}" + (f"  ({note})" if count and note else "") for name, count, note in rows]
        for title, items in (("rejected", self.rejected), ("skipped", self.skipped)):
            if items:
                out.append(f"{title}:")
                out.extend(f"  {_label(entry)}: {reason}" for entry, reason in sorted(items, key=_line))
        return out


def _line(item: Tuple[Any, str]) -> int:
    return item[0].linenum or 0


def _label(entry: Any) -> str:
    """Where the entry is and what it says, on one line (newlines shown as \\n)."""
    text = json.dumps(entry.msgid, ensure_ascii=False)
    text = text if len(text) <= 60 else text[:56] + '..."'
    context = f"[{entry.msgctxt}] " if entry.msgctxt is not None else ""
    return f"line {entry.linenum}: {context}{text}"


def _split_edges(text: str) -> Tuple[str, str, str]:
    """(leading whitespace, the text to translate, trailing whitespace)."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


# -- choosing the entries -------------------------------------------------------------------------
def _plan(po: Any, include_fuzzy: bool, plural: Any, summary: Summary) -> List[Any]:
    """The entries to translate; counts the others in ``summary``. ``plural`` is the catalog's
    PluralForms or the PoError saying why it has none."""
    todo = []
    for entry in po:
        fuzzy = "fuzzy" in entry.flags
        if entry.obsolete:
            summary.obsolete += 1
        elif fuzzy and not include_fuzzy:
            summary.fuzzy_kept += 1
        elif not fuzzy and entry.translated():
            summary.already_translated += 1
        elif entry.msgid_plural and isinstance(plural, Exception):
            summary.skipped.append((entry, f"plural entry: {plural}"))
        elif not entry.msgid.strip() or (entry.msgid_plural and not entry.msgid_plural.strip()):
            summary.skipped.append((entry, "nothing to translate (blank msgid)"))
        else:
            try:
                po_formats.formats_of(entry.flags, _sources(entry))
            except po_formats.UnsupportedFormat as error:
                summary.skipped.append((entry, str(error)))
                continue
            todo.append(entry)
    return todo


def _sources(entry: Any) -> List[str]:
    return [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]


# -- translating -----------------------------------------------------------------------------------
class _TextBar:
    """The progress bar used when tqdm is not installed: one line rewritten with ``\\r``."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        self.update(0)

    def update(self, count: int) -> None:
        self.done += count
        sys.stderr.write(f"\rtranslating: {self.done}/{self.total} texts")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


class _NoBar:
    def update(self, count: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(total)
    return tqdm(total=total, desc="translating", unit="text", file=sys.stderr)


Outcome = Tuple[Optional[str], str]  # (translation, "") or (None, why there is none)


def _outcome(result: Any) -> Outcome:
    if result.finish_reason != "eos":
        return None, f"the service stopped before the end of the sentence ({result.finish_reason})"
    if not result.text.strip():
        return None, "the service returned an empty translation"
    return result.text.strip(), ""


def _translate(
    client: TranslatorClient, texts: Sequence[str], options: Dict[str, Any], batch_size: int, bar: Any
) -> Dict[str, Outcome]:
    """Every text's outcome. A batch the service refuses (one text too long, say) is sent
    again one text at a time, so only the refused texts are lost."""
    outcomes: Dict[str, Outcome] = {}
    for begin in range(0, len(texts), batch_size):
        chunk = list(texts[begin : begin + batch_size])
        try:
            results = client.translate_batch(chunk, **options)
            outcomes.update((text, _outcome(result)) for text, result in zip(chunk, results))
        except InvalidArgument:
            for text in chunk:
                try:
                    outcomes[text] = _outcome(client.translate(text, **options))
                except InvalidArgument as error:
                    outcomes[text] = (None, f"the service refused it: {error.details}")
        bar.update(len(chunk))
    return outcomes


# -- writing the translations into the entries ----------------------------------------------------
def _format_problem(entry: Any, forms: Dict[int, str], singular: Sequence[bool], plural: Any) -> Tuple[str, int]:
    """Why the new msgstr(s) would break the program (msgfmt --check-format's rules) and which
    form, or ("", 0) when they would not."""
    for kind in po_formats.formats_of(entry.flags, _sources(entry)):
        check = po_formats.CHECKS[kind]
        if not entry.msgid_plural:
            reason = check(entry.msgid, forms[0], True)
            if reason:
                return reason, 0
            continue
        for index, text in forms.items():
            reason = check(entry.msgid_plural, text, plural.often[index])
            if reason is None and singular[index]:
                reason = check(entry.msgid, text, True)
            if reason:
                return f"msgstr[{index}]: {reason}", index
    return "", 0


def _fill(entry: Any, outcomes: Dict[str, Outcome], plural: Any, fuzzy: bool, encoding: str) -> Tuple[str, str]:
    """Fill ``entry`` in place: ("filled", "") or ("rejected"/"skipped", reason)."""
    translated = []
    for source in _sources(entry):
        lead, core, trail = _split_edges(source)
        text, reason = outcomes[core]
        if text is None:
            return "skipped", reason
        translated.append(lead + text + trail)
    if entry.msgid_plural:
        singular = [plural.singular_form(index) for index in range(plural.nplurals)]
        forms = {index: translated[0 if singular[index] else 1] for index in range(plural.nplurals)}
    else:
        singular, forms = [True], {0: translated[0]}
    reason, index = _format_problem(entry, forms, singular, plural)
    if reason:
        shown = json.dumps(forms[index], ensure_ascii=False)
        return "rejected", f"{reason} (translation: {shown})"
    try:
        "".join(forms.values()).encode(encoding)
    except UnicodeEncodeError:
        return "skipped", f"the translation has characters the catalog's charset {encoding} lacks"
    if entry.msgid_plural:
        entry.msgstr_plural = forms
    else:
        entry.msgstr = forms[0]
    entry.flags = (["fuzzy"] if fuzzy else []) + [flag for flag in entry.flags if flag != "fuzzy"]
    entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
    return "filled", ""


# -- the command -----------------------------------------------------------------------------------
def run_command(args: argparse.Namespace) -> int:
    try:
        from traductor_client import po_catalog  # needs polib, which only this command uses
    except ImportError as error:
        raise PoError(f"the po command needs polib ({error}); pip install polib") from None
    if args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    catalog = po_catalog.load(args.input)
    try:
        plural: Any = po_catalog.plural_forms(catalog.po)
    except PoError as error:
        plural = error  # only matters if the catalog has plural entries
    summary = Summary()
    todo = _plan(catalog.po, args.include_fuzzy, plural, summary)
    texts = list(dict.fromkeys(_split_edges(s)[1] for entry in todo for s in _sources(entry)))
    outcomes = _run_service(args, texts) if texts else {}
    changed = []
    for entry in todo:
        result, reason = _fill(entry, outcomes, plural, not args.no_fuzzy, catalog.encoding)
        if result == "filled":
            summary.filled += 1
            changed.append(entry)
        else:
            getattr(summary, result).append((entry, reason))
    output = args.output or args.input
    write = not args.dry_run and (changed or output != args.input)
    if write:
        fields = {"PO-Revision-Date": _now(), "X-Generator": f"traductor-client {__version__}"}
        po_catalog.write(output, po_catalog.render(catalog, changed, fields if changed else {}), catalog.encoding)
    where = f"written to {output}" if write else "dry run, nothing written" if args.dry_run else "nothing to write"
    print(f"{args.input}: {len(todo)} to translate, {len(texts)} distinct texts sent ({where})")
    print("\n".join(summary.lines(fuzzy=not args.no_fuzzy)))
    return 0


def _run_service(args: argparse.Namespace, texts: List[str]) -> Dict[str, Outcome]:
    """Translate ``texts``; a failure of the service itself (unreachable, wrong token, ...) is
    a PoError, so nothing gets written."""
    settings = connection_settings(args)
    try:
        with TranslatorClient(settings.pop("target"), **settings) as client:
            limit = client.model_info().max_batch_texts or args.batch_size
            bar = _progress_bar(len(texts), sys.stderr.isatty() if args.progress is None else args.progress)
            try:
                return _translate(client, texts, decoding_options(args), min(args.batch_size, limit), bar)
            finally:
                bar.close()
    except TranslatorError as error:
        raise PoError(f"{error.code_name}: {error.details} (nothing was written)") from None


def _now() -> str:
    """PO-Revision-Date's form: local time with its UTC offset, e.g. 2026-11-22 06:10+0100."""
    return datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M%z")
