"""``traductor-client loadtest``: the subcommand's flags and its run loop."""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import random
import sys
from typing import Any, Dict, List

from traductor_client import __version__
from traductor_client._cliargs import (
    UsageError,
    add_decoding_flags,
    add_route_flags,
    connection_settings,
    decoding_options,
)
from traductor_client.async_client import AsyncTranslatorClient
from traductor_client.loadtest import inputs, plot
from traductor_client.loadtest.progress import Progress
from traductor_client.loadtest.report import format_table
from traductor_client.loadtest.runner import StopRule, Workload, run_closed, run_open
from traductor_client.loadtest.summary import summarize
from traductor_client.messages import MAX_STREAM_DELAY_MS, STREAM_DELAY_MS

DEFAULT_DURATION = 10.0


def _numbers(kind: type, flag: str):
    """argparse type for a comma-separated list of positive numbers, e.g. ``1,8,32``."""

    def parse(text: str) -> List[Any]:
        try:
            values = [kind(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} takes comma-separated numbers") from None
        if not values or any(v <= 0 for v in values):
            raise argparse.ArgumentTypeError(f"{flag} values must be positive")
        return values

    return parse


def add_subparser(commands: Any, conn: argparse.ArgumentParser) -> None:
    parser = commands.add_parser(
        "loadtest",
        parents=[conn],
        help="measure throughput and latency under load",
        description="Closed loop (fixed concurrency, --concurrency) or open loop (Poisson "
        "arrivals, --rate); several comma-separated levels make a sweep.",
    )
    levels = parser.add_mutually_exclusive_group()
    levels.add_argument(
        "--concurrency",
        type=_numbers(int, "--concurrency"),
        metavar="N[,N...]",
        help="closed loop: requests in flight (default 1)",
    )
    levels.add_argument(
        "--rate", type=_numbers(float, "--rate"), metavar="R[,R...]", help="open loop: Poisson arrivals per second"
    )
    stop = parser.add_mutually_exclusive_group()
    stop.add_argument(
        "--duration", type=float, metavar="SECONDS", help=f"measure each level this long (default {DEFAULT_DURATION:g})"
    )
    stop.add_argument("--requests", type=int, metavar="N", help="measure N requests per level")
    parser.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        metavar="X",
        help="unmeasured warm-up before each level, in the unit of the stop "
        "rule: requests with --requests, seconds with --duration",
    )
    parser.add_argument(
        "--stream-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="fraction of requests sent as TranslateStream (0..1)",
    )
    parser.add_argument(
        "--stream-groups",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="streams ask for the tokens ready together in one message, as the client library does "
        "by default (--no-stream-groups: one message a token)",
    )
    parser.add_argument(
        "--stream-delay-ms",
        type=int,
        default=STREAM_DELAY_MS,
        metavar="MS",
        help="streams let the server hold each message but the first this long for more tokens "
        f"(0..{MAX_STREAM_DELAY_MS}; default: the client library's, %(default)s)",
    )
    parser.add_argument(
        "--input",
        metavar="FILE",
        help="one sentence per line, or TSV with the source first (default: the sentences shipped with the client)",
    )
    parser.add_argument(
        "--shuffle-seed", type=int, default=0, help="seed for the order of the sentences and the Poisson arrivals"
    )
    parser.add_argument(
        "--max-inflight",
        type=int,
        default=1024,
        help="open loop: arrivals beyond this many in flight are not sent and "
        "are counted as CLIENT_MAX_INFLIGHT errors",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON report, not the table")
    parser.add_argument("--json-out", metavar="FILE", help="also write the JSON report to FILE")
    parser.add_argument(
        "--plot", metavar="FILE.png", help="draw latency and throughput against the level (needs matplotlib)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="live progress line on stderr (default: when stderr is a terminal)",
    )
    add_route_flags(parser)
    add_decoding_flags(parser)
    parser.set_defaults(handler=run_command)


def _validate(args: argparse.Namespace) -> None:
    if args.requests is not None and args.requests < 1:
        raise UsageError("--requests must be at least 1")
    if args.duration is not None and args.duration <= 0:
        raise UsageError("--duration must be positive")
    if args.warmup < 0:
        raise UsageError("--warmup must be >= 0")
    if args.requests is not None and args.warmup != int(args.warmup):
        raise UsageError("with --requests, --warmup counts requests (a whole number)")
    if not 0.0 <= args.stream_fraction <= 1.0:
        raise UsageError("--stream-fraction must be within [0, 1]")
    if not 0 <= args.stream_delay_ms <= MAX_STREAM_DELAY_MS:
        raise UsageError(f"--stream-delay-ms must be within [0, {MAX_STREAM_DELAY_MS}]")
    if args.max_inflight < 1:
        raise UsageError("--max-inflight must be at least 1")
    if args.plot:
        levels = args.rate or args.concurrency or [1]
        if len(levels) < 2:
            raise UsageError("--plot needs a sweep of at least two levels")
        try:
            plot.require_matplotlib()
        except plot.PlotUnavailable as error:
            raise UsageError(str(error)) from error


def run_command(args: argparse.Namespace) -> int:
    _validate(args)
    settings = connection_settings(args, default_retries=0)  # measure the server as it is
    texts = inputs.load_texts(args.input)
    open_loop = args.rate is not None
    if args.requests is not None:
        stop = StopRule(requests=args.requests, warmup=int(args.warmup))
    else:
        stop = StopRule(duration=args.duration or DEFAULT_DURATION, warmup=args.warmup)
    workload = Workload(
        texts,
        decoding_options(args),
        args.stream_fraction,
        settings["timeout"],
        seed=args.shuffle_seed,
        stream_options={"group_tokens": args.stream_groups, "max_delay_ms": args.stream_delay_ms},
    )
    progress = Progress(sys.stderr.isatty() if args.progress is None else args.progress)
    report = {
        "mode": "open" if open_loop else "closed",
        "level_name": "rate" if open_loop else "concurrency",
        "config": {
            "target": settings["target"],
            "tls": bool(settings["tls"] or settings["root_certificates"] or settings["certificate_chain"]),
            "requests": stop.requests,
            "duration_seconds": stop.duration,
            "warmup": stop.warmup,
            "stream_fraction": args.stream_fraction,
            "stream_options": workload.stream_options,
            "options": workload.options,
            "input": args.input or "(built-in)",
            "input_texts": len(texts),
            "timeout_seconds": settings["timeout"],
            "shuffle_seed": args.shuffle_seed,
            "client_version": __version__,
            "started_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        },
        "levels": asyncio.run(_run_levels(args, settings, workload, stop, progress, open_loop)),
    }
    _emit(report, args)
    return 0


async def _run_levels(
    args: argparse.Namespace,
    settings: Dict[str, Any],
    workload: Workload,
    stop: StopRule,
    progress: Progress,
    open_loop: bool,
) -> List[Dict[str, Any]]:
    settings = dict(settings)
    levels = args.rate if open_loop else (args.concurrency or [1])
    results = []
    async with AsyncTranslatorClient(settings.pop("target"), **settings) as client:
        for level in levels:
            progress.start(f"{'rate' if open_loop else 'concurrency'} {level:g}")
            if open_loop:
                rng = random.Random(args.shuffle_seed)
                samples = await run_open(client, workload, level, stop, progress, rng, args.max_inflight)
            else:
                samples = await run_closed(client, workload, level, stop, progress)
            progress.finish()
            results.append({"level": level, **summarize(samples)})
    return results


def _emit(report: Dict[str, Any], args: argparse.Namespace) -> None:
    text = json.dumps(report, indent=2)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    print(text if args.json else format_table(report), flush=True)
    if args.plot:
        plot.plot_report(report, args.plot)
        print(f"plot written to {args.plot}", file=sys.stderr)
