"""Every knob of `traductor serve`, with its default, its flag and its environment variable.

A flag wins over the environment variable (TRADUCTOR_<NAME>), which wins over the default. A
setting that is on by default is turned off by its `--no-` flag (use_memory: --no-memory).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Settings:
    model: str = ""  # one bundle directory, served alone (exclusive with model_repository)
    model_repository: str = ""  # a directory of bundles, one model per subdirectory; empty: the packaged models
    default_model: str = ""  # the model of calls that name none (docs/service.md: how it is chosen when empty)
    host: str = "127.0.0.1"  # this machine only; the container image sets 0.0.0.0 (TRADUCTOR_HOST)
    port: int = 50051
    metrics_port: int = 9090  # 0: no metrics server
    http_port: int = 0  # LibreTranslate-compatible HTTP API, same engine and TLS as gRPC (0: off)
    threads: int = 0  # ONNX Runtime intra-op threads of each model (0: its cores; with engine processes, all but one)
    cpu_sharing: str = "shared"  # "shared": every model's engine may use every core; "split": each its own cores
    spin: bool = False  # let idle ONNX Runtime threads busy-wait (takes CPU from the gRPC threads)
    device: str = ""  # run each model in PyTorch on this device (cuda, cuda:N, cpu), not ONNX Runtime (docs/gpu.md)
    dtype: str = ""  # with device: fp16 (CUDA's default), bf16 or fp32
    engine_process: bool = True  # the model in a process of its own, beside the gRPC front (docs/service.md)
    max_restarts: int = 5  # a model's engine process is restarted this many times in a row; its next failure: exit 2
    restart_backoff_seconds: float = 0.5  # before restarting a dead engine process; doubles per failure in a row
    max_active_sequences: int = 64  # rows decoded together (a beam request uses beam_size rows)
    max_queued_requests: int = 256  # beyond this, RESOURCE_EXHAUSTED at once
    retry_pushback_ms: int = 250  # retry hint sent with RESOURCE_EXHAUSTED (trailer grpc-retry-pushback-ms)
    max_pending_calls: int = 10_000  # calls gRPC core may hold before the server picks them up (docs/reliability.md)
    max_input_tokens: int = 200  # of one segment (a sentence); a longer one is cut, not refused
    max_input_chars: int = 20_000  # of one text, refused before any work, so megabytes cost nothing
    max_segments: int = 500  # segments to translate in one text (pass-through ones do not count)
    max_new_tokens: int = 200
    max_beam_size: int = 8
    beam_size: int = 1  # the beam of a call that asks for none (1: greedy); at most max_beam_size
    max_batch_texts: int = 64  # texts in one TranslateBatch
    max_message_bytes: int = 1 << 20  # gRPC receive/send limit
    max_file_bytes: int = 2 << 20  # HTTP /translate_file: an upload over this is refused (docs/files.md)
    max_file_units: int = 5_000  # /translate_file: units (messages, strings, cues) in one file
    file_ttl_seconds: float = 600.0  # a translated file waits this long for its one download
    prestop_seconds: float = 2.0  # on SIGTERM: NOT_SERVING at once, calls still served this long, then the port closes
    drain_seconds: float = 8.0  # then: grace for the calls in flight (compose stops at 10 s)
    start_report_seconds: float = 60.0  # a start not SERVING after this long logs where it waits (it goes on)
    token: str = ""  # the administrator's key: every call, every glossary and document (health stays open)
    api_keys: bool = False  # every call needs a key of the key store (keys.sqlite3 in the data dir; docs/keys.md)
    keys_redis: str = ""  # the key store of replicas: a Redis URL (implies api_keys; docs/keys.md)
    tls_cert: str = ""  # PEM server certificate chain: enables TLS
    tls_key: str = ""
    tls_client_ca: str = ""  # PEM CA: clients must present a certificate it signed (mutual TLS)
    reflection: bool = False  # gRPC server reflection (for grpcurl)
    glossary_dir: str = ""  # where glossaries are stored; "": <model-repository>/glossaries, else the user's data dir
    max_glossaries: int = 1000  # glossaries stored in glossary_dir (shared by the servers that use it)
    max_glossary_entries: int = 10_000  # entries of one glossary
    max_glossary_bytes: int = 1 << 20  # the entries of one glossary as sent (TSV or CSV)
    use_loop_rule: bool = True  # end an output that repeats itself (model/constraints.py; docs/confidence.md)
    use_memory: bool = True  # answer segments found in the bundle's translation memory from it (docs/service.md)
    log_level: str = "INFO"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser, helps: Mapping[str, str] = {}) -> None:
        """A flag per field; `helps` gives each its line of --help (serve_cli.HELP)."""
        for f in fields(cls):
            flag = "--" + f.name.replace("_", "-")
            env = "TRADUCTOR_" + f.name.upper()
            said = helps.get(f.name, "")
            if f.type in ("bool", bool) and f.default:
                off = "--no-" + f.name.removeprefix("use_").replace("_", "-")
                help = f"{said} (env {env}=0)".strip()
                parser.add_argument(off, dest=f.name, action="store_false", default=None, help=help)
            elif f.type in ("bool", bool):
                parser.add_argument(flag, action="store_true", default=None, help=f"{said} (env {env})".strip())
            else:
                kind = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str) else f.type.__name__]
                shown = "" if "default" in said else f"; default {f.default!r}" if f.default != "" else "; default none"
                help = f"{said}{shown} (env {env})".removeprefix("; ")
                parser.add_argument(flag, type=kind, default=None, metavar=f.name.upper(), help=help)

    @classmethod
    def from_args(cls, args: argparse.Namespace, environ=os.environ) -> "Settings":
        values = {}
        for f in fields(cls):
            value = getattr(args, f.name, None)
            env = environ.get("TRADUCTOR_" + f.name.upper())
            if value is None and env is not None:
                kind = f.type if isinstance(f.type, str) else f.type.__name__
                value = (
                    env.lower() in ("1", "true", "yes")
                    if kind == "bool"
                    else {"int": int, "float": float, "str": str}[kind](env)
                )
            if value is not None:
                values[f.name] = value
        return cls(**values)
