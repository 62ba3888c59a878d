"""Command-line flags shared by ``traductor-client`` subcommands (and the load generator):
connection flags, decoding-option flags, and building a client from them.

Connection flags may appear before or after the subcommand. To make that work with argparse,
they are declared with ``default=SUPPRESS`` on both the main parser and each subparser (so a
subparser never overwrites a value given earlier with its default) and the defaults, including
the environment variables, are applied afterwards by :func:`connection_settings`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Dict, Optional

from traductor_client._base import DEFAULT_TARGET, DEFAULT_TIMEOUT
from traductor_client.messages import FORMALITIES
from traductor_client.retry import RetryPolicy


class UsageError(Exception):
    """A problem with the command line itself (reported as exit status 2)."""


def connection_parser() -> argparse.ArgumentParser:
    """A parent parser holding the connection flags (no defaults: see the module doc)."""
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group("connection")
    sup = argparse.SUPPRESS
    group.add_argument(
        "--target",
        default=sup,
        metavar="HOST:PORT",
        help=f"server address (env TRADUCTOR_TARGET, default {DEFAULT_TARGET})",
    )
    group.add_argument(
        "--tls",
        action="store_true",
        default=sup,
        help="use TLS with the system's root certificates (implied by --ca/--cert)",
    )
    group.add_argument("--ca", default=sup, metavar="PEM", help="root certificate(s) to trust")
    group.add_argument("--cert", default=sup, metavar="PEM", help="client certificate (mutual TLS)")
    group.add_argument("--key", default=sup, metavar="PEM", help="client private key (mutual TLS)")
    group.add_argument(
        "--server-name",
        default=sup,
        metavar="NAME",
        help="expected name in the server's certificate, if not the target host",
    )
    group.add_argument(
        "--token", default=sup, help="bearer token sent as 'authorization: Bearer ...' (env TRADUCTOR_TOKEN)"
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=sup,
        metavar="SECONDS",
        help=f"deadline of each call, retries included (default {DEFAULT_TIMEOUT:g})",
    )
    group.add_argument(
        "--retries",
        type=int,
        default=sup,
        metavar="N",
        help="retries on UNAVAILABLE after the first attempt (default 3; loadtest: 0)",
    )
    return parser


def _read(path: Optional[str]) -> Optional[bytes]:
    return None if path is None else Path(path).read_bytes()


def connection_settings(args: argparse.Namespace, default_retries: int = 3) -> Dict[str, Any]:
    """Keyword arguments for ``TranslatorClient``/``AsyncTranslatorClient`` from the flags."""
    get = lambda name: getattr(args, name, None)  # noqa: E731 - flags may be absent entirely
    cert, key = get("cert"), get("key")
    if (cert is None) != (key is None):
        raise UsageError("--cert and --key must be given together")
    timeout = get("timeout")
    if timeout is not None and timeout <= 0:
        raise UsageError("--timeout must be positive")
    retries = get("retries")
    retries = default_retries if retries is None else retries
    if retries < 0:
        raise UsageError("--retries must be >= 0")
    return {
        "target": get("target") or os.environ.get("TRADUCTOR_TARGET") or DEFAULT_TARGET,
        "tls": bool(get("tls")),
        "root_certificates": _read(get("ca")),
        "certificate_chain": _read(cert),
        "private_key": _read(key),
        "server_name": get("server_name"),
        "token": get("token") or os.environ.get("TRADUCTOR_TOKEN") or None,
        "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
        "retry": RetryPolicy(max_attempts=retries + 1),
    }


# (flag, DecodingOptions field, type, help)
_DECODING_FLAGS = [
    ("--max-new-tokens", "max_new_tokens", int, "stop after this many generated tokens"),
    ("--min-new-tokens", "min_new_tokens", int, "suppress EOS until this many tokens"),
    ("--beam", "beam_size", int, "beam size (1 = greedy)"),
    ("--temperature", "temperature", float, "sampling temperature (0 = greedy/beam)"),
    ("--top-k", "top_k", int, "sample among the k most likely tokens (0 = off)"),
    ("--top-p", "top_p", float, "nucleus sampling mass (1 = off)"),
    ("--seed", "seed", int, "sampling seed"),
]


def add_route_flags(parser: argparse.ArgumentParser) -> None:
    """--model, --from, --to: which of the server's models translates (unset: its default one).
    They travel with the decoding options (`decoding_options`); the client sends them as the
    request's model, source_language and target_language."""
    group = parser.add_argument_group("model (unset = the server's default model; see `models`)")
    group.add_argument("--model", dest="opt_model", default=None, help="a served model's name")
    group.add_argument("--from", dest="opt_source_language", default=None, metavar="LANG", help="source language")
    group.add_argument("--to", dest="opt_target_language", default=None, metavar="LANG", help="target language")
    add_formality_flag(parser)
    add_glossary_flags(parser)


#: The words `--formality` took before DeepL's values (`traductor translate` before issue 57), kept
#: as aliases of the DeepL value they mean; both CLIs read them.
FORMALITY_ALIASES = {"formal": "more", "informal": "less"}


def formality_value(value: str) -> str:
    """A --formality value as DeepL names it (an alias replaced); argparse then checks the choices."""
    return FORMALITY_ALIASES.get(value, value)


FORMALITY_HELP = (
    "register of the translation, DeepL's values: more (Sie, vous, usted), less (du, tu, tú), "
    "prefer_more/prefer_less (the same where the model has a formality, its default elsewhere), or default "
    "(the model's choice); formal and informal are accepted as aliases of more and less"
)


def add_formality_flag(parser: argparse.ArgumentParser) -> None:
    """--formality, DeepL's values; it travels with the decoding options as `formality` (the
    request's field). "more"/"less" need a model trained with register tags (`info`: formality),
    the server refuses them otherwise; "prefer_more"/"prefer_less" fall back to the default."""
    parser.add_argument(
        "--formality",
        dest="opt_formality",
        type=formality_value,
        choices=FORMALITIES,
        default=None,
        help=FORMALITY_HELP + "; more/less need a model with formality (see `info`)",
    )


def _glossary_file(path: str) -> list:
    from traductor_client import glossary

    try:
        with open(path, "rb") as f:
            return glossary.read(path, f.read())
    except (OSError, glossary.GlossaryFileError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_glossary_flags(parser: argparse.ArgumentParser) -> None:
    """--glossary FILE (entries sent with each call: .tsv, .csv, .po, .tbx) or --glossary-id ID (a
    glossary stored on the server); they travel with the decoding options as `glossary` and
    `glossary_id` (docs/glossary.md)."""
    group = parser.add_argument_group("glossary (terms translated as it says)")
    group.add_argument(
        "--glossary",
        dest="opt_glossary",
        type=_glossary_file,
        default=None,
        metavar="FILE",
        help="a glossary file: source TAB target lines (.tsv), CSV (.csv), a gettext catalog (.po) or TBX (.tbx)",
    )
    group.add_argument("--glossary-id", dest="opt_glossary_id", default=None, metavar="ID", help="a stored glossary")


def add_decoding_flags(parser: argparse.ArgumentParser, scores: bool = True) -> None:
    """Flags for the decoding options; unset flags leave the server's default in place."""
    group = parser.add_argument_group("decoding options (unset = server default)")
    for flag, dest, kind, help_text in _DECODING_FLAGS:
        group.add_argument(flag, dest=f"opt_{dest}", type=kind, default=None, help=help_text)
    if scores:
        group.add_argument(
            "--scores",
            dest="opt_return_scores",
            action="store_true",
            default=None,
            help="ask for token log-probabilities and the score",
        )


def decoding_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The decoding options given on the command line, keyed by DecodingOptions field."""
    return {
        name[len("opt_") :]: value
        for name, value in vars(args).items()
        if name.startswith("opt_") and value is not None
    }
