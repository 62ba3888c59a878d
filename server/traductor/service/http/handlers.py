"""The LibreTranslate endpoints: each reads its parameters, calls the service layer, answers JSON.

    POST /translate          -> service.translate / translate_many (the gRPC Translate path)
    POST /detect             -> detect.detect (always "en", see there)
    GET  /languages          -> the model's language pair
    GET  /frontend/settings  -> what LibreTranslate's web page asks a server

Handlers raise the error hierarchy (`errors.py`); `app.py` turns exceptions into statuses,
counts and logs every request. No decoding option of the gRPC API is exposed: a
LibreTranslate request translates with the defaults (greedy, automatic length), exactly like a
gRPC `Translate` without options.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from aiohttp import web

from ...options import DecodingOptions
from ..async_engine import AsyncEngine, request_summary
from ..settings import Settings
from ..translate import translate, translate_many
from .detect import detect
from .params import Languages, check_key, detect_text, read_values, translate_params


@dataclass(frozen=True)
class HttpApi:
    """What the endpoints need: the shared engine, the settings (limits, token) and the languages."""

    engine: AsyncEngine
    settings: Settings
    languages: Languages


# JSON as LibreTranslate writes it: UTF-8 text, not \u escapes ("canción", not "canci\u00f3n")
_dumps = functools.partial(json.dumps, ensure_ascii=False)


def json_response(data, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=_dumps)


def request_id() -> str:
    """The id the middleware gave this request (app.py), from the request's summary."""
    return (request_summary.get() or {}).get("request_id", "")


class Handlers:
    def __init__(self, api: HttpApi):
        self.api = api

    async def translate(self, request: web.Request) -> web.Response:
        values = await read_values(request)
        check_key(values, request, self.api.settings.token)
        p = translate_params(values, self.api.languages)
        rid, engine, options = request_id(), self.api.engine, DecodingOptions()
        if p.batch:
            events = await translate_many(
                engine, p.texts, options, rid, format=p.format, max_texts=self.api.settings.max_batch_texts
            )
            answer: dict = {"translatedText": [e.text for e in events]}
        else:
            answer = {"translatedText": (await translate(engine, p.texts[0], options, rid, format=p.format)).text}
        if p.auto:
            found = [detect(t) for t in p.texts]
            answer["detectedLanguage"] = found if p.batch else found[0]
        if p.alternatives > 0:  # asked for: this service gives none (greedy decoding keeps one)
            answer["alternatives"] = [[] for _ in p.texts] if p.batch else []
        return json_response(answer)

    async def detect(self, request: web.Request) -> web.Response:
        values = await read_values(request)
        check_key(values, request, self.api.settings.token)
        return json_response([detect(detect_text(values))])

    async def languages(self, request: web.Request) -> web.Response:
        langs = self.api.languages
        return json_response(
            [
                {"code": langs.source, "name": langs.name(langs.source), "targets": [langs.target]},
                {"code": langs.target, "name": langs.name(langs.target), "targets": []},
            ]
        )

    async def frontend_settings(self, request: web.Request) -> web.Response:
        s, langs = self.api.settings, self.api.languages
        return json_response(
            {
                "charLimit": s.max_input_chars,
                "frontendTimeout": 500,
                "apiKeys": bool(s.token),
                "keyRequired": bool(s.token),
                "suggestions": False,
                "filesTranslation": False,
                "supportedFilesFormat": [],
                "language": {
                    "source": {"code": langs.source, "name": langs.name(langs.source)},
                    "target": {"code": langs.target, "name": langs.name(langs.target)},
                },
            }
        )

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/translate", self.translate),
            web.post("/detect", self.detect),
            web.get("/languages", self.languages),
            web.get("/frontend/settings", self.frontend_settings),
        ]
