"""`traductor serve`: flags and environment variables -> Settings -> server.serve().

Every Settings field is a flag (`--max-input-chars`) and an environment variable
(`TRADUCTOR_MAX_INPUT_CHARS`); `HELP` holds the line `--help` shows for each (tests check that every
field has one). docs/service.md's settings table says the same at more length.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal

from ..errors import CommandError
from .settings import Settings

DESCRIPTION = """\
Serve the models over gRPC (--port), with Prometheus metrics (--metrics-port) and, with
--http-port, the LibreTranslate-compatible HTTP API, DeepL's API v2 and the translation page.

Defaults a user should know:
  - it listens on 127.0.0.1 only: --host 0.0.0.0 serves every interface (the container image
    sets TRADUCTOR_HOST=0.0.0.0);
  - glossaries and DeepL API documents are kept in --glossary-dir, by default
    <model repository>/glossaries, else $XDG_DATA_HOME/traductor/glossaries
    (~/.local/share/traductor/glossaries): a folder of this user that every server on the
    machine started without --glossary-dir shares;
  - no --token and no --api-keys: any caller may translate (docs/keys.md).

Every flag also reads TRADUCTOR_<FLAG> from the environment (TRADUCTOR_MAX_INPUT_CHARS for
--max-input-chars); a flag wins over the variable. docs/service.md describes each setting."""

HELP = {
    "model": "one bundle directory (traductor export), served alone; default: the packaged models",
    "model_repository": "a directory of bundles, one model per subdirectory; default: the packaged models",
    "default_model": "the model of calls that name none; default: see docs/service.md (Models)",
    "host": "address gRPC, the HTTP API and metrics listen on (0.0.0.0: every interface)",
    "port": "gRPC port (0: any free port)",
    "metrics_port": "Prometheus /metrics port (0: no metrics server)",
    "http_port": "port of the LibreTranslate and DeepL HTTP APIs and the translation page (0: off)",
    "threads": "ONNX Runtime intra-op threads of each model (0: all the cores it may use)",
    "cpu_sharing": "shared: every model's engine may use every core; split: each model its own cores",
    "spin": "let idle ONNX Runtime threads busy-wait (faster steps, takes CPU from the gRPC threads)",
    "device": "run each model in PyTorch on this device (cuda, cuda:N, cpu) instead of ONNX Runtime",
    "dtype": "with --device: fp16 (CUDA's default), bf16 or fp32",
    "engine_process": "run each model on a thread of the server process, not in a process of its own",
    "max_restarts": "times in a row a model's dead engine process is restarted; its next failure stops serve",
    "restart_backoff_seconds": "wait before restarting a dead engine process; doubles per failure in a row",
    "max_active_sequences": "rows decoded together (a beam request uses beam_size rows)",
    "max_queued_requests": "waiting requests beyond which new ones are refused (RESOURCE_EXHAUSTED, HTTP 429)",
    "retry_pushback_ms": "retry hint sent with an overload refusal (trailer grpc-retry-pushback-ms)",
    "max_pending_calls": "calls gRPC core may hold before the server picks them up",
    "max_input_tokens": "source tokens of one segment; a longer sentence is cut, not refused",
    "max_input_chars": "characters of one text, refused before any work beyond it",
    "max_segments": "segments to translate in one text (pass-through ones do not count)",
    "max_new_tokens": "cap of a call's max_new_tokens",
    "max_beam_size": "cap of a call's beam_size (and at most --max-active-sequences)",
    "beam_size": "beam of every call that asks for none or for 1 (LibreTranslate, DeepL, the page and files "
    "included; not sampling); 1: greedy, the fastest",
    "max_batch_texts": "texts in one batch call (TranslateBatch, a list q)",
    "max_message_bytes": "gRPC message and HTTP body limit",
    "max_file_bytes": "an uploaded file (/translate_file, DeepL documents) over this is refused",
    "max_file_units": "units (messages, strings, cues) of one uploaded file",
    "file_ttl_seconds": "a translated file or DeepL document waits this long for its one download",
    "prestop_seconds": "on SIGTERM: NOT_SERVING at once, calls still served this long, then the port closes",
    "drain_seconds": "then: grace for the calls in flight",
    "start_report_seconds": "a start not serving after this long logs what it waits for (and goes on)",
    "token": "the administrator's key, required on translation calls unless --api-keys (health stays open); "
    "default: none, anyone may call",
    "api_keys": "every call needs a key made with `traductor keys add` (kept in keys.sqlite3 in --glossary-dir)",
    "keys_redis": "Redis URL of the keys shared by replicas (redis://host:6379/0); implies --api-keys",
    "tls_cert": "PEM server certificate chain: serve TLS (with --tls-key)",
    "tls_key": "PEM private key of --tls-cert",
    "tls_client_ca": "PEM CA: clients must present a certificate it signed (mutual TLS)",
    "reflection": "enable gRPC server reflection (for grpcurl)",
    "glossary_dir": "where glossaries and DeepL documents are kept; default: <model repository>/glossaries, "
    "else $XDG_DATA_HOME/traductor/glossaries, shared by every server of this user without the flag",
    "max_glossaries": "glossaries in the glossary directory (shared by every server using it)",
    "max_glossary_entries": "entries of one glossary",
    "max_glossary_bytes": "the entries of one glossary as sent (TSV or CSV)",
    "use_memory": "do not answer segments from the bundle's translation memory",
    "use_loop_rule": "do not end a translation that repeats itself (decode as transformers' generate() does)",
    "log_level": "Python log level (DEBUG, INFO, WARNING, ERROR)",
}


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the models over gRPC and HTTP (listens on 127.0.0.1 unless --host says otherwise)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    Settings.add_arguments(p, HELP)
    p.set_defaults(func=run)


def run(args) -> None:
    settings = Settings.from_args(args)
    if not 1 <= settings.beam_size <= min(settings.max_beam_size, settings.max_active_sequences):
        raise CommandError(
            f"--beam-size {settings.beam_size}: must be between 1 and --max-beam-size ({settings.max_beam_size}) "
            f"and at most --max-active-sequences ({settings.max_active_sequences})"
        )
    # Until serve() installs its handlers (after the imports below, about a second): SIGTERM or
    # SIGINT ends the process at once with status 0. A process that is PID 1 (a container without
    # an init) would otherwise ignore SIGTERM then (the kernel drops a signal PID 1 does not handle)
    # and be killed at the end of its grace period.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_at_once)
    from ..engine.process import exit_now
    from .server import serve

    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(settings))
    exit_now()  # stopped: no interpreter teardown (engine/process.py says why)


def _exit_at_once(signum, _frame) -> None:
    raise SystemExit(0)
