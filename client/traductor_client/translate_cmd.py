"""``traductor-client translate``: each TEXT argument, or each line of stdin, translated and
printed on its own line, in order (one ``Translate`` call a text, ``--stream`` piece by piece, or
all in one ``TranslateBatch`` with ``--batch``).

A text the server refuses for what it holds (a control character, over its input limits, not
valid UTF-8 here already) is printed as it was, so that output line N stays input line N, and
named on stderr with its line (or argument) number and the problem; the other texts are
translated, and the exit status is 1. A refusal that is not the text's own (a bad option, a
wrong token, no server) ends the command at once, as any failed call does.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from typing import Any, Dict, List, Optional

from traductor_client._cliargs import add_decoding_flags, add_route_flags, connection_settings, decoding_options
from traductor_client.errors import InvalidArgument, ResourceExhausted, TranslatorError
from traductor_client.lines import Line, argument_lines, read_lines, write_line
from traductor_client.results import StreamFinal, Translation
from traductor_client.sync_client import TranslatorClient

PROG = "traductor-client"

DESCRIPTION = """\
Translate each TEXT argument, or each line of stdin when there is none; one line out per text,
in order. A text the server refuses for what it holds (a control character, over its input
limits) or that is not valid UTF-8 is printed as it was and named on stderr with its line
number and the problem; the other texts are translated, and the exit status is 1."""

# The server's refusals of a text itself start with "text " (traductor.text.limits, "text is
# empty"), those of one text of a TranslateBatch with "texts[i]: "; a text over the gRPC message
# limit is RESOURCE_EXHAUSTED "Received message larger than max".
_BATCH_ITEM = re.compile(r"texts\[(\d+)\]: ")


def refused_text(error: TranslatorError) -> bool:
    """Whether ``error`` refuses the text sent (the line's problem), not the call."""
    if isinstance(error, ResourceExhausted):
        return "larger than max" in error.details
    return isinstance(error, InvalidArgument) and error.details.startswith("text ")


def refused_item(error: TranslatorError) -> "Optional[tuple[int, str]]":
    """The index of the text a TranslateBatch refusal names and the refusal itself, if it names one."""
    found = _BATCH_ITEM.match(error.details) if isinstance(error, InvalidArgument) else None
    return (int(found.group(1)), error.details[found.end() :]) if found else None


_NOTES = {
    "untranslated": "a sentence came back with nothing in it; its source was kept",
    "length": "cut short at the token limit (--max-new-tokens)",
    "loop": "cut short: the translation kept repeating itself and was stopped",
}


def _note(finish_reason: str, low_confidence: bool = False, confidence: Optional[float] = None) -> None:
    """A translation that did not end normally, or of low confidence, says so on stderr (never silently)."""
    if finish_reason in _NOTES:
        print(f"{PROG}: note: {_NOTES[finish_reason]} (finish_reason {finish_reason})", file=sys.stderr)
    if low_confidence:
        print(f"{PROG}: note: low confidence ({confidence:.2f}): review this translation", file=sys.stderr)


def _print_translation(result: Translation, args: argparse.Namespace) -> None:
    if not args.json:
        _note(result.finish_reason, result.low_confidence, result.confidence)
    if args.json:
        print(json.dumps(dataclasses.asdict(result), ensure_ascii=False), flush=True)
    elif result.score is not None:
        print(f"{result.text}\t{result.score:.4f}", flush=True)
    else:
        print(result.text, flush=True)


def _print_refused(line: Line, problem: str, args: argparse.Namespace) -> None:
    """A text not translated: as it was on stdout (a JSON record with --json), named on stderr."""
    print(f"{PROG}: {line.where}: {problem}; printed as it was", file=sys.stderr)
    if args.json:
        record = {line.kind: line.number, "error": problem, "source": line.text}
        print(json.dumps(record), flush=True)  # ASCII: a source that is not UTF-8 shows its bytes as escapes
    else:
        write_line(line.text, flush=True)


def _input_lines(args: argparse.Namespace) -> Any:
    """The texts given as arguments, else stdin one line at a time (read lazily, so output
    follows input line by line in a pipe)."""
    if args.text:
        return argument_lines(args.text)
    return (dataclasses.replace(line, text=line.text.rstrip("\r")) for line in read_lines(sys.stdin))


def run_command(args: argparse.Namespace) -> int:
    options = decoding_options(args)
    settings = connection_settings(args)
    with TranslatorClient(settings.pop("target"), **settings) as client:
        try:
            if args.batch:
                return _translate_batch(client, list(_input_lines(args)), args, options)
            return _translate_each(client, _input_lines(args), args, options)
        except InvalidArgument as error:
            if options.get("formality") and error.details.startswith("formality"):
                raise InvalidArgument(error.details + _formality_models(client)) from None
            raise


def _registers(model) -> str:
    """A model's name, with the one register it delivers where it delivers only one."""
    only = "" if model.formality or len(model.registers) != 1 else f" ({model.registers[0]} only)"
    return model.name + only


def _formality_models(client: TranslatorClient) -> str:
    """Which of the server's models take --formality more/less, for the message of a refusal."""
    try:
        names = [_registers(m) for m in client.list_models() if m.registers]
    except TranslatorError:
        return ""
    return f" (models with a formality: {', '.join(names)})" if names else " (no model here has a formality)"


def _translate_each(client: TranslatorClient, lines: Any, args: argparse.Namespace, options: dict) -> int:
    """One call a text; the exit status (1 when a text was refused)."""
    failed = 0
    for line in lines:
        if line.problem:
            _print_refused(line, line.problem, args)
            failed += 1
            continue
        if not args.text and not line.text.strip():
            print(flush=True)  # keep blank stdin lines aligned instead of sending them
            continue
        try:
            if args.stream:
                _stream_one(client, line.text, args, options)
            else:
                _print_translation(client.translate(line.text, request_id=args.request_id, **options), args)
        except TranslatorError as error:
            if not refused_text(error):
                raise
            _print_refused(line, f"{error.code_name}: {error.details}", args)
            failed += 1
    return _status(failed)


def _translate_batch(client: TranslatorClient, lines: List[Line], args: argparse.Namespace, options: dict) -> int:
    """All texts in one TranslateBatch; a text it refuses is left out of the call, which is sent
    again without it. The exit status (1 when a text was refused)."""
    refused: Dict[int, str] = {line.number: line.problem for line in lines if line.problem}
    todo = [line for line in lines if not line.problem]
    results: List[Translation] = []
    while todo:
        try:
            results = client.translate_batch([line.text for line in todo], request_id=args.request_id, **options)
            break
        except TranslatorError as error:
            item = refused_item(error)
            if item is None or item[0] >= len(todo):
                raise
            refused[todo.pop(item[0]).number] = f"{error.code_name}: {item[1]}"
    translated = dict(zip((line.number for line in todo), results))
    for line in lines:
        if line.number in refused:
            _print_refused(line, refused[line.number], args)
        else:
            _print_translation(translated[line.number], args)
    return _status(len(refused))


def _status(failed: int) -> int:
    if failed:
        print(f"{PROG}: {failed} text{'s' if failed > 1 else ''} not translated", file=sys.stderr)
    return 1 if failed else 0


def _stream_one(client: TranslatorClient, text: str, args: argparse.Namespace, options: dict) -> None:
    """Print pieces as they arrive (flushed); with --json, one JSON object per event."""
    for event in client.stream_events(text, request_id=args.request_id, **options):
        if args.json:
            record = {"type": "final" if isinstance(event, StreamFinal) else "token"}
            record.update(dataclasses.asdict(event))
            print(json.dumps(record, ensure_ascii=False), flush=True)
        elif isinstance(event, StreamFinal):
            print(event.text, flush=True)
            _note(event.finish_reason, event.low_confidence, event.confidence)
        else:
            sys.stdout.write(event.text)
            sys.stdout.flush()


def add_subparser(commands: Any, conn: argparse.ArgumentParser) -> None:
    translate = commands.add_parser(
        "translate",
        parents=[conn],
        help="translate texts (arguments, or stdin line by line)",
        description=DESCRIPTION,
    )
    translate.add_argument("text", nargs="*", help="text(s) to translate")
    translate.add_argument(
        "--stream", action="store_true", help="print the translation piece by piece as it is generated"
    )
    translate.add_argument("--batch", action="store_true", help="send all texts in one TranslateBatch call")
    translate.add_argument("--json", action="store_true", help="print full results as JSON lines")
    translate.add_argument("--request-id", default=None, help="request id to send (and log)")
    add_route_flags(translate)
    add_decoding_flags(translate)
    translate.set_defaults(handler=run_command)
