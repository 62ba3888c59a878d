"""The client's way to fill a file: every text through gRPC ``TranslateBatch``, with a progress
bar, and the shared command behind ``traductor-client po`` and ``traductor-client translate-file``.

A batch the service refuses (one text too long, say) is sent again one text at a time, so only
the refused texts are lost and their units are reported. A failure of the service itself
(unreachable, wrong token, ...) is a :class:`FileError`, so nothing gets written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from traductor_client._cliargs import (
    UsageError,
    add_decoding_flags,
    add_formality_flag,
    add_glossary_flags,
    connection_settings,
    decoding_options,
)
from traductor_client.errors import InvalidArgument, TranslatorError
from traductor_client.files import formats
from traductor_client.files.errors import FileError
from traductor_client.files.job import Document, Job, Outcome, outcome
from traductor_client.files.output import check_writable, write_atomic
from traductor_client.results import Translation
from traductor_client.sync_client import TranslatorClient

DEFAULT_BATCH = 32


# -- progress ---------------------------------------------------------------------------------------
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


def progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextBar(total)
    return tqdm(total=total, desc="translating", unit="text", file=sys.stderr)


# -- translating ------------------------------------------------------------------------------------
def _outcome(result: Translation) -> Outcome:
    markup = any(s.markup_unsure for s in result.segments)
    checks = tuple(dict.fromkeys(c for s in result.segments for c in s.failed_checks))
    return outcome(result.text, result.finish_reason, result.confidence, result.low_confidence, markup, checks)


def translate_texts(
    client: TranslatorClient, texts: Sequence[str], fmt: str, options: Dict[str, Any], batch_size: int, bar: Any
) -> Dict[Tuple[str, str], Outcome]:
    """Every text's outcome, keyed by (format, text)."""
    outcomes: Dict[Tuple[str, str], Outcome] = {}
    for begin in range(0, len(texts), batch_size):
        chunk = list(texts[begin : begin + batch_size])
        try:
            results = client.translate_batch(chunk, format=fmt, **options)
            outcomes.update(((fmt, t), _outcome(r)) for t, r in zip(chunk, results))
        except InvalidArgument as error:
            if options.get("formality") and error.details.startswith("formality"):
                raise  # the call's formality, refused for every text alike: nothing is written
            for text in chunk:
                try:
                    result = client.translate(text, format=fmt, **options)
                    outcomes[(fmt, text)] = _outcome(result)
                except InvalidArgument as error:
                    outcomes[(fmt, text)] = (None, f"the service refused it: {error.details}", "")
        bar.update(len(chunk))
    return outcomes


def _check_language(client: TranslatorClient, wanted: Optional[str], model: Optional[str]) -> None:
    """``--to LANG`` must be a language the server (the ``--model``, when given) translates into."""
    if not wanted:
        return
    served = sorted({t for m in client.list_models() if not model or m.name == model for _, t in m.languages})
    if served and wanted not in served:
        raise FileError(f"the server translates into {', '.join(served)}, not {wanted} (nothing was written)")


def run_service(args: argparse.Namespace, job: Job) -> Dict[Tuple[str, str], Outcome]:
    settings = connection_settings(args)
    try:
        with TranslatorClient(settings.pop("target"), **settings) as client:
            _check_language(client, getattr(args, "to", None), getattr(args, "opt_model", None))
            if not job.text_count:
                return {}
            limit = client.model_info().max_batch_texts or args.batch_size
            enabled = sys.stderr.isatty() if args.progress is None else args.progress
            bar = progress_bar(job.text_count, enabled)
            outcomes: Dict[Tuple[str, str], Outcome] = {}
            try:
                for fmt, texts in job.requests.items():
                    size = min(args.batch_size, limit)
                    options = decoding_options(args)  # with --model
                    if getattr(args, "to", None):  # the model that translates into it
                        options["target_language"] = args.to
                    outcomes.update(translate_texts(client, texts, fmt, options, size, bar))
            finally:
                bar.close()
            return outcomes
    except TranslatorError as error:
        raise FileError(f"{error.code_name}: {error.details} (nothing was written)") from None


# -- the commands -----------------------------------------------------------------------------------
def add_common_flags(parser: argparse.ArgumentParser) -> None:
    """The flags `po` and `translate-file` share, under the same names (the review flags also
    under gettext's and Qt's words: --include-fuzzy, --include-unfinished, --no-fuzzy)."""
    parser.add_argument(
        "--include-review",
        "--include-fuzzy",
        "--include-unfinished",
        dest="include_review",
        action="store_true",
        help="also retranslate units waiting for review (po: fuzzy; Qt: unfinished)",
    )
    parser.add_argument(
        "--no-review-mark",
        "--no-fuzzy",
        dest="no_review_mark",
        action="store_true",
        help="do not mark the new translations for review (po: fuzzy)",
    )
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
    parser.add_argument("--model", dest="opt_model", default=None, help="a served model's name (see `models`)")
    add_formality_flag(parser)
    add_glossary_flags(parser)
    add_decoding_flags(parser, scores=False)


def run_file(
    args: argparse.Namespace,
    path: str,
    output: str,
    include_review: bool,
    mark_review: bool,
    read: Callable[..., Document] = formats.read,
) -> int:
    """Fill the file at ``path`` (read by ``read``) and write it to ``output``; print the summary."""
    if args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1")
    if not args.dry_run:
        check_writable(output)  # before the work, not after it
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise FileError(f"{path}: {error.strerror or error}") from None
    document = read(path, data, language=getattr(args, "to", None) or "")  # (its plural forms)
    job = Job(document, include_review)
    outcomes = run_service(args, job) if job.text_count or getattr(args, "to", None) else {}
    filled = job.finish(outcomes, mark_review)
    write = not args.dry_run and (filled or output != path)
    if write:
        write_atomic(output, document.render(filled, getattr(args, "to", None) or ""))
    where = f"written to {output}" if write else "dry run, nothing written" if args.dry_run else "nothing to write"
    print(f"{path}: {len(job.todo)} to translate, {job.text_count} distinct texts sent ({where})")
    print("\n".join(job.report.lines(marked=mark_review)))
    return 0


def default_output(path: str, language: Optional[str]) -> str:
    """IN.EXT -> IN.LANG.EXT (or IN.translated.EXT without --to)."""
    stem, ext = path.rsplit(".", 1) if "." in path.rsplit("/", 1)[-1] else (path, "")
    return f"{stem}.{language or 'translated'}" + (f".{ext}" if ext else "")


__all__: List[str] = ["DEFAULT_BATCH", "add_common_flags", "default_output", "run_file", "translate_texts"]
