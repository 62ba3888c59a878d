"""The LibreTranslate endpoints: each reads its parameters, calls the service layer, answers JSON.

    POST /translate          -> pipeline.translate / translate_many (the gRPC Translate path); beside
                                translatedText, traductor's additions of quality.py (finish,
                                cutShort, confidence, lowConfidence, segments)
    POST /detect             -> detect.detect among the models' source languages (see there)
    GET  /languages          -> every language of the models, each with all its targets
    GET  /frontend/settings  -> what LibreTranslate's web page asks a server (the default model's
                                pair), and every model with its pairs and whether it has a
                                formality (traductor's addition)
    POST /translate_stream   -> pipeline.stream (the gRPC TranslateStream path), as server-sent events
    POST /translate_file     -> files.translate_upload (a translation file, any supported format)
    GET  /download_file/{n}  -> the translated file, once

`source` and `target` pick the model (registry.route; source "auto": the language detected among
the sources that some model translates into the target), or `model` names it, as gRPC's `model`
does; a pair no model translates is 400 with LibreTranslate's wording (params.check_pair), a
parameter no endpoint reads is 400 naming those it reads (params.check_names). `target` is also the decoding options'
target_language: a multilingual model (NLLB, a multi-target OPUS-MT) translates into it.

Handlers raise the error hierarchy (`errors.py`); `app.py` turns exceptions into statuses,
counts and logs every request. No other decoding option of the gRPC API is exposed: a
LibreTranslate request translates with the defaults (greedy, automatic length), exactly like a
gRPC `Translate` without options and with the same target_language.

The shared context of both APIs (`HttpApi`: routing, detection, the key gate; `json_response`,
`request_id`) is api.py's, where DeepL's endpoints (deepl*.py) read it too.
"""

from __future__ import annotations

import mimetypes
from urllib.parse import quote

from aiohttp import web

from traductor_client import files as file_formats

from ... import __version__
from ...engine.request import FinishEvent
from ...errors import InvalidInput, TraductorError
from ...languages import name as language_name
from ..pipeline import prepare, stream, translate, translate_many
from . import quality
from .api import HttpApi, dumps, json_response, request_id
from .cors import CORS_HEADERS
from .detect import detect
from .files import Results, translate_upload, upload
from .glossary_params import call_glossary
from .params import (
    api_key,
    check_names,
    decoding_options,
    detect_text,
    languages,
    model_name,
    read_values,
    translate_params,
)
from .statuses import http_error_for

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}


def _sse(data: dict, event: str = "") -> bytes:
    """One server-sent event (its JSON on one line: a text's newlines are escaped)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {dumps(data)}\n\n".encode()


def _origin(request: web.Request) -> str:
    """scheme://host[:port] as the client reached us: the Host header, and the scheme a proxy that
    ended TLS says it received (X-Forwarded-Proto; the compose balancer sets both)."""
    proto = request.headers.get("X-Forwarded-Proto", "").lower()
    origin = request.url.origin()
    return str(origin.with_scheme(proto)) if proto in ("http", "https") and proto != origin.scheme else str(origin)


class Handlers:
    def __init__(self, api: HttpApi):
        self.api = api
        # translated files waiting for download (routes() alone, as the OpenAPI test asks, needs no api)
        self.results = Results(api.settings.file_ttl_seconds) if api is not None else None

    async def translate(self, request: web.Request) -> web.Response:
        values = await read_values(request)
        caller = await self.api.gate.caller(api_key(values, request))
        p = translate_params(values, self.api.registry.languages())
        source = self.api.source(p.source, p.target, p.texts[0])
        model = self.api.route(source, p.target, model=p.model, caller=caller)
        await self.api.gate.charge(caller, sum(len(t) for t in p.texts))
        engine, glossary = model.engine, call_glossary(values, self.api.lookup(caller), model, p.target)
        options = decoding_options(values, model, source, p.target, p.alternatives)
        rid = request_id()
        if p.batch:
            limit = self.api.settings.max_batch_texts
            events = await translate_many(engine, p.texts, options, rid, None, p.format, limit, glossary, "q")
            answer: dict = {"translatedText": [e.text for e in events]}
            reports = [quality.libre(e) for e in events]  # traductor's additions, one list per key
            answer.update({key: [r[key] for r in reports] for key in reports[0]})
        else:
            event = await translate(engine, p.texts[0], options, rid, format=p.format, glossary=glossary)
            answer = {"translatedText": event.text, **quality.libre(event)}
        if p.auto:
            found = [self.api.detect(t, p.target) for t in p.texts]
            answer["detectedLanguage"] = found if p.batch else found[0]
        if p.alternatives > 0:  # the beam's other hypotheses, best first (pipeline/join.py)
            answer["alternatives"] = [e.alternatives for e in events] if p.batch else event.alternatives
        return json_response(answer)

    async def translate_stream(self, request: web.Request) -> web.StreamResponse:
        """/translate's parameters (one text), answered as server-sent events while it decodes:
        `data: {"delta": "..."}` for each piece of text that became final, in order, then
        `event: done` with `{"translatedText": ..., "finish": ...}` and /translate's other
        additions (quality.py: cutShort, confidence, lowConfidence, segments). The deltas join to exactly
        /translate's text. A refusal before the first event is an ordinary JSON error with its
        status; an error after it is an `event: error` with `{"error": ...}`."""
        values = await read_values(request)
        caller = await self.api.gate.caller(api_key(values, request))
        p = translate_params(values, self.api.registry.languages())
        if p.batch or p.alternatives:
            raise InvalidInput("Invalid request: a stream translates one text (q), without alternatives")
        source = self.api.source(p.source, p.target, p.texts[0])
        rid, model = request_id(), self.api.route(source, p.target, model=p.model, caller=caller)
        await self.api.gate.charge(caller, len(p.texts[0]))
        engine, glossary = model.engine, call_glossary(values, self.api.lookup(caller), model, p.target)
        options = decoding_options(values, model, source, p.target)
        prepared = prepare(engine, p.texts[0], options, p.format, glossary)
        events = stream(engine, prepared, rid)
        response = web.StreamResponse(headers={**SSE_HEADERS, **CORS_HEADERS, "X-Request-Id": rid})
        await response.prepare(request)
        try:
            async for event in events:
                if isinstance(event, FinishEvent):
                    if event.final_delta:
                        await response.write(_sse({"delta": event.final_delta}))
                    await response.write(_sse({"translatedText": event.text, **quality.libre(event)}, "done"))
                elif event.text_delta:
                    await response.write(_sse({"delta": event.text_delta}))
        except TraductorError as error:  # after the headers: the status cannot change any more
            await response.write(_sse({"error": http_error_for(error)[2]}, "error"))
        finally:
            await events.aclose()
        await response.write_eof()
        return response

    async def detect(self, request: web.Request) -> web.Response:
        values = await read_values(request)
        caller = await self.api.gate.caller(api_key(values, request))
        text = detect_text(values)
        await self.api.gate.charge(caller, 0)  # a call, no characters translated
        return json_response(detect(text, self.api.sources()))

    async def languages(self, request: web.Request) -> web.Response:
        """Every language of the models, each with the targets it translates to (LibreTranslate's shape),
        in the codes callers send (`fr`, `zh-Hant`) with English names."""
        pairs = self.api.registry.languages()
        codes = sorted(set(pairs) | {t for targets in pairs.values() for t in targets})
        aliases = self.api.registry.aliases()  # traductor's addition: the models' own codes (NLLB's fra_Latn)
        return json_response(
            [
                {"code": c, "name": language_name(c), "targets": pairs.get(c, []), "aliases": aliases.get(c, [])}
                for c in codes
            ]
        )

    async def frontend_settings(self, request: web.Request) -> web.Response:
        s, registry = self.api.settings, self.api.registry
        default = registry.default
        langs = default.languages[0]
        return json_response(
            {
                "charLimit": s.max_input_chars,
                "frontendTimeout": 500,
                "apiKeys": self.api.gate.required,
                "keyRequired": self.api.gate.required,
                "suggestions": False,
                "filesTranslation": True,
                "supportedFilesFormat": sorted(file_formats.EXTENSIONS),
                "language": {
                    "source": {"code": langs.source, "name": language_name(langs.source)},
                    "target": {"code": langs.target, "name": language_name(langs.target)},
                },
                # traductor's additions, for its web page
                "version": __version__,
                "model": default.name,
                "models": [
                    {
                        "name": m.name,
                        "languages": [{"source": p.source, "target": p.target} for p in m.languages],
                        "default": m.name == default.name,
                        "serving": m.serving,
                        "formality": m.formality,  # `formality` more and less work
                        "registers": list(m.registers),  # those that work (the page's selector)
                    }
                    for m in registry
                ],
                "fileLimits": {"bytes": s.max_file_bytes, "units": s.max_file_units, "keptSeconds": s.file_ttl_seconds},
            }
        )

    async def translate_file(self, request: web.Request) -> web.Response:
        s = self.api.settings
        # the body may hold a file up to --max-file-bytes (checked again with its own message)
        # plus the multipart envelope, instead of the --max-message-bytes of other requests
        request = request.clone(client_max_size=max(s.max_message_bytes, s.max_file_bytes + 64 * 1024))
        values = await read_values(request)
        caller = await self.api.gate.caller(api_key(values, request))
        check_names(values, "translate_file")
        name, data = upload(values)
        source, target = languages(values, self.api.registry.languages())
        if source == "auto":  # a file is read later: nothing to detect in yet
            sources = self.api.sources(target)
            if len(sources) > 1:
                raise InvalidInput(f"source is needed for a file: several served languages translate into {target}")
            source = sources[0]
        model = self.api.route(source, target, model=model_name(values), caller=caller)
        await self.api.gate.charge(caller, len(data.decode("utf-8", "replace")))  # as a DeepL document's
        glossary = call_glossary(values, self.api.lookup(caller), model, target)
        limits = file_formats.Limits(s.max_file_bytes, s.max_file_units)
        options = decoding_options(values, model, source, target)
        rid, batch = request_id(), s.max_batch_texts
        data, report = await translate_upload(model.engine, name, data, limits, rid, batch, options, glossary)
        key = self.results.put(name, data)
        url = f"{_origin(request)}/download_file/{key}.{quote(name)}"
        return json_response({"translatedFileUrl": url, "report": report.as_json()})

    async def download_file(self, request: web.Request) -> web.Response:
        key = request.match_info["name"].split(".", 1)[0]
        result = self.results.take(key)
        disposition = f"attachment; filename*=UTF-8''{quote(result.name)}"
        kind = mimetypes.guess_type(result.name)[0] or "application/octet-stream"
        return web.Response(body=result.data, content_type=kind, headers={"Content-Disposition": disposition})

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/translate", self.translate),
            web.post("/translate_stream", self.translate_stream),
            web.post("/detect", self.detect),
            web.get("/languages", self.languages),
            web.get("/frontend/settings", self.frontend_settings),
            web.post("/translate_file", self.translate_file),
            web.get("/download_file/{name}", self.download_file),
        ]
