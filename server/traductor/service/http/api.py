"""What every endpoint of both HTTP APIs (LibreTranslate's, handlers.py; DeepL's, deepl*.py) reads:
the served models with their routing and source detection, the settings, the glossaries and the
key gate (`HttpApi`); a JSON answer as LibreTranslate writes it (`json_response`); the request's id
(`request_id`).

This module knows no endpoint, no request parameter and nothing of how a text is translated.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from aiohttp import web

from ..async_engine import request_summary
from ..glossaries import GlossaryStore
from ..keys.gate import Caller, Gate
from ..models import Model
from ..registry import Registry
from ..settings import Settings
from .detect import detect
from .params import known_codes, served_table


@dataclass(frozen=True)
class HttpApi:
    """What the endpoints need: the models, the settings (limits, token) and the glossaries."""

    registry: Registry
    settings: Settings
    glossaries: GlossaryStore | None = None  # None: this server stores none (service/glossaries.py)
    gate: Gate | None = None  # the key check (service/keys/gate.py); None: the --token alone

    def __post_init__(self):
        if self.gate is None:
            object.__setattr__(self, "gate", Gate(None, self.settings.token))

    def lookup(self, caller: Caller):
        """The glossaries `caller` may use: its own (the administrator and an open server's callers: all)."""
        return None if self.glossaries is None else self.glossaries.owned_by(caller.owner)

    def sources(self, target: str = "") -> list[str]:
        """The languages some model translates from (into `target`, a code in any form, when given)."""
        pairs = self.registry.languages()
        if not target:
            return list(pairs)
        wanted = served_table(known_codes(pairs)).own(target)  # the served code `target` means
        return [s for s, targets in pairs.items() if wanted in targets]

    def detect(self, text: str, target: str = "") -> dict:
        """The most likely of `sources(target)` for `text` (detect.detect's first)."""
        return detect(text, self.sources(target))[0]

    def source(self, source: str, target: str, text: str) -> str:
        """The call's source: as given, or for "auto" the language `detect` finds in `text` among
        those translated into `target` (a many-to-many model reads its source token from it)."""
        return self.detect(text, target)["language"] if source == "auto" else source

    def route(self, source: str, target: str, text: str = "", model: str = "", caller: Caller | None = None) -> Model:
        """The model of a checked pair (params.check_pair), named in the request's log line and
        metrics; source "auto": `self.source`'s; `model`: that served model, which must translate
        the pair (else NOT_FOUND, as on gRPC); PermissionDenied when `caller`'s key may not use it."""
        source = self.source(source, target, text)
        model = self.registry.route(model, source, target)
        if caller is not None:
            self.gate.check(caller, model, source, target)
        summary = request_summary.get()
        if summary is not None:
            summary["model"] = model.name
        return model


# JSON as LibreTranslate writes it: UTF-8 text, not \u escapes ("canción", not "canci\u00f3n")
dumps = functools.partial(json.dumps, ensure_ascii=False)


def json_response(data, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=dumps)


def request_id() -> str:
    """The id the middleware gave this request (app.py), from the request's summary."""
    return (request_summary.get() or {}).get("request_id", "")
