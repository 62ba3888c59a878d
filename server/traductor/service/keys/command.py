"""`traductor keys`: make, list, change and revoke the keys of a key store.

    traductor keys add NAME [--requests-per-minute N] [--chars-per-day N] [--chars-per-month N]
                            [--pairs en-es,en-fr] [--models NAME,...]   -> prints the secret, once
    traductor keys list                                                  -> one JSON object a key
    traductor keys set NAME [the same limits]                            -> the key, changed
    traductor keys revoke NAME                                           -> refused from now on

The store: `--redis URL` (the servers' --keys-redis), else the SQLite file `--file PATH`, else
keys.sqlite3 in the data directory a server with the same --glossary-dir / --model-repository
uses (stores.keys_path). TRADUCTOR_KEYS_REDIS and TRADUCTOR_GLOSSARY_DIR are read as by `serve`.
A secret is printed once, by `add`, and never again: the store keeps its SHA-256 only.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

from ...errors import CommandError
from ..settings import Settings
from .model import Limits, check_pairs, new_key
from .stores import keys_path, open_store

LIMIT_FLAGS = ("requests_per_minute", "chars_per_day", "chars_per_month")


def register(sub) -> None:
    p = sub.add_parser("keys", help="make, list, change and revoke API keys (docs/keys.md)", description=__doc__)
    p.add_argument("--redis", default=os.environ.get("TRADUCTOR_KEYS_REDIS", ""), help="Redis URL of the key store")
    p.add_argument("--file", default="", help="SQLite key file; default: keys.sqlite3 in the data directory")
    p.add_argument("--glossary-dir", default=os.environ.get("TRADUCTOR_GLOSSARY_DIR", ""), help="the server's")
    p.add_argument("--model-repository", default=os.environ.get("TRADUCTOR_MODEL_REPOSITORY", ""), help="the server's")
    actions = p.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="make a key and print its secret (shown once)")
    change = actions.add_parser("set", help="change a key's limits, pairs or models")
    for q in (add, change):
        q.add_argument("name")
        for flag in LIMIT_FLAGS:
            q.add_argument("--" + flag.replace("_", "-"), type=int, default=None, metavar="N", help="0: no limit")
        q.add_argument("--pairs", default=None, help="language pairs it may translate, as en-es,en-fr ('': any)")
        q.add_argument("--models", default=None, help="served models it may use, comma-separated ('': any)")
    actions.add_parser("list", help="every key with its limits (never a secret)")
    revoke = actions.add_parser("revoke", help="refuse the key from now on (every server within a second)")
    revoke.add_argument("name")
    p.set_defaults(func=run)


def _listed(text: str | None) -> tuple[str, ...] | None:
    return None if text is None else tuple(item.strip() for item in text.split(",") if item.strip())


def _store(args):
    if args.redis:
        return open_store(args.redis)
    settings = Settings(glossary_dir=args.glossary_dir, model_repository=args.model_repository)
    return open_store(path=args.file or keys_path(settings))


def run(args) -> None:
    store = _store(args)
    try:
        if args.action == "add":
            limits = Limits(*(getattr(args, f) or 0 for f in LIMIT_FLAGS))
            key, secret = new_key(args.name, limits, _listed(args.pairs) or (), _listed(args.models) or ())
            store.add(key)
            print(json.dumps({**key.shown(), "secret": secret, "store": store.where}))
        elif args.action == "list":
            for key in store.list():
                print(json.dumps(key.shown()))
        elif args.action == "set":
            key = store.get(args.name)
            given = {f: getattr(args, f) for f in LIMIT_FLAGS if getattr(args, f) is not None}
            pairs, models = _listed(args.pairs), _listed(args.models)
            if not given and pairs is None and models is None:
                raise CommandError("nothing to change: give a limit, --pairs or --models")
            key = replace(
                key,
                limits=replace(key.limits, **given),
                pairs=key.pairs if pairs is None else check_pairs(pairs),
                models=key.models if models is None else models,
            )
            store.save(key)
            print(json.dumps(key.shown()))
        elif args.action == "revoke":
            key = replace(store.get(args.name), revoked=True)
            store.save(key)
            print(json.dumps(key.shown()))
    finally:
        store.close()
