"""DeepL's API v2, served on the HTTP port beside the LibreTranslate API (docs/deepl-api.md):
what the official `deepl` clients and Weblate's DeepL backend call.

    POST /v2/translate                  -> pipeline.translate_many: the texts of a call in one engine group
    GET|POST /v2/languages?type=        -> the served sources, or targets (supports_formality: false)
    GET|POST /v2/usage                  -> the calling key's characters and quota (service/keys); the
                                           administrator's: the server's since it started, no quota
    GET /v2/glossary-language-pairs     -> every served pair (glossaries: deepl_glossaries.py)
    /v2/glossaries...                   -> deepl_glossaries.py
    /v3/glossaries...                   -> deepl_glossaries_v3.py (DeepL's multilingual glossaries)
    /v2/document...                     -> deepl_documents.py
    any other /v2/ or /v3/ path         -> 404 {"message": ...} (405 with Allow: another method's)

A call goes to the model of its pair, as a LibreTranslate call does (`HttpApi.route`): `source_lang`
(or, when absent, the language detected in the first text among the sources translated into the
target) and `target_lang`, DeepL's codes read by deepl_params; a `source_lang` of the target's
language (`EN` into `EN-US`: DeepL's variants, which no model here tells apart) gives the texts back
as they are. `tag_handling` html or xml keeps the
markup (the HTML text layer); `glossary_id` is looked up in the server's store and applied as on
gRPC (`glossary_use.for_model`). Answers: `{"translations": [{"detected_source_language": "EN",
"text": ..., "billed_characters": N}]}` (and `model_type_used` when `model_type` is sent), one per
text in order; an empty text comes back empty. Every parameter is known and usable or refused
(deepl_options.py: what is honoured, what has no effect, what is refused).
Each translation object also carries traductor's additions (quality.py: finish_reason, cut_short,
confidence, low_confidence, segments), which DeepL's clients ignore.

This module knows neither how glossaries are stored nor how texts are cut: it reads a call and
hands it to the shared text path.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from ...errors import InvalidInput, ItemRefused
from ...glossary import Glossary
from ...languages import name as language_name
from ...options import DecodingOptions
from .. import glossary_use
from ..keys.gate import Caller
from ..models import Model
from ..pipeline import translate_many
from . import deepl_options, quality
from .api import HttpApi, json_response, request_id
from .deepl_documents import Documents
from .deepl_glossaries import Glossaries
from .deepl_glossaries_v3 import MultilingualGlossaries
from .deepl_params import (
    authorize,
    base,
    deepl_errors,
    ignore,
    message,
    read,
    register_of,
    served,
    source_code,
    tag_names,
    target_codes,
    text_format,
)
from .params import SourceNotServed, check_pair, known_codes

UNLIMITED = 1_000_000_000_000  # the character_limit DeepL reports for an account without one


@dataclass
class Usage:
    """Characters this server translated through the DeepL API since it started (texts and documents)."""

    characters: int = 0


@dataclass(frozen=True)
class Call:
    """A checked call's pair: the served codes and the model."""

    source: str  # the served source code (given, or detected)
    target: str  # the caller's target code as written (the engine reads it: `EN-GB` -> `en`)
    model: Model | None  # None: the source is the target's language, the texts come back as they are


class DeepL:
    def __init__(self, api: HttpApi):
        self.api, self.usage = api, Usage()

    def pairs(self) -> dict[str, list[str]]:
        return self.api.registry.languages()

    def call(self, source: object, target: object, text: str, caller: Caller | None = None) -> Call:
        """The model and served codes of a call's `source_lang` (None: detect in `text`) and `target_lang`."""
        pairs = self.pairs()
        known = known_codes(pairs)
        served_target = served(target, "target_lang", known)
        if source is not None and source != "":
            served_source = served(source, "source_lang", known)  # its own message, not inside another
            if base(served_source) == base(served_target):  # EN -> EN-US: nothing to translate
                return Call(served_source, str(target), None)
        try:
            if source is None or source == "":  # some served language must translate into the target
                check_pair("auto", served_target, pairs)
                if text.strip():
                    source = self.api.source("auto", served_target, text)
                else:  # texts that are all empty have nothing to detect in: the first source will do
                    source = self.api.sources(served_target)[0]
                served_source = served(source, "source_lang", known)
            check_pair(served_source, served_target, pairs)
        except SourceNotServed as error:
            raise InvalidInput(f"Value for 'source_lang' not supported: {error}") from None
        except InvalidInput as error:
            raise InvalidInput(f"Value for 'target_lang' not supported: {error}") from None
        return Call(served_source, str(target), self.api.route(served_source, served_target, text, caller=caller))

    def glossary(self, glossary_id: object, source_given: bool, call: Call, caller: Caller) -> Glossary | None:
        """The stored glossary of `glossary_id` for the call's model (its pair must be the call's)."""
        if glossary_id is None or glossary_id == "":
            return None
        if not isinstance(glossary_id, str):
            raise InvalidInput("Value for 'glossary_id' not supported.")
        if not source_given:
            raise InvalidInput("Use of a glossary requires the source_lang parameter to be specified.")
        if self.api.glossaries is None:
            raise InvalidInput("this server stores no glossaries")
        if call.model is None:
            raise InvalidInput("Value for 'glossary_id' not supported: source_lang is the language of target_lang")
        found = self.api.glossaries.get(glossary_id, caller.owner)
        return glossary_use.for_model(found, call.model, call.target)

    async def authorized(self, request: web.Request) -> Caller:
        return await authorize(request, self.api.gate)

    @deepl_errors
    async def translate(self, request: web.Request) -> web.Response:
        caller = await self.authorized(request)
        values = await read(request)
        texts = values.all("text")
        if not texts:
            raise InvalidInput("Parameter 'text' not specified.")
        if not all(isinstance(t, str) for t in texts):
            raise InvalidInput("Value for 'text' not supported: strings expected.")
        if "target_lang" not in values:
            raise InvalidInput("Parameter 'target_lang' not specified.")
        deepl_options.check(values)  # every parameter known, none asking what is not done
        fmt = text_format(values)
        source = values.one("source_lang")
        first = next((t for t in texts if t.strip()), "")
        call = self.call(source, values.one("target_lang"), first, caller)
        await self.api.gate.charge(caller, sum(len(t) for t in texts))
        glossary = self.glossary(deepl_options.glossary_id(values), bool(source), call, caller)
        tags = tag_names(values, "ignore_tags")  # checked whether or not a text needs them
        todo = [i for i, t in enumerate(texts) if t.strip()]  # an empty text comes back empty, as DeepL's
        out = list(texts)
        reports = [quality.deepl(quality.kept(t)) for t in texts]
        if todo and call.model is not None:
            register = register_of(values.one("formality"), call.model.registers)
            options = DecodingOptions(target_language=call.target, source_language=call.source, register=register)
            marked, unmark = ignore([texts[i] for i in todo], tags if fmt == "html" else [])
            try:
                events = await translate_many(
                    call.model.engine,
                    marked,
                    options,
                    request_id(),
                    format=fmt,
                    max_texts=self.api.settings.max_batch_texts,
                    glossary=glossary,
                    field="text",
                )
            except ItemRefused as refused:  # named by its place among the texts sent, empty ones included
                raise ItemRefused(todo[refused.index], refused.reason, refused.field) from refused.reason
            for i, event in zip(todo, events):
                out[i] = unmark(event.text)
                reports[i] = quality.deepl(event)
        detected = [source_code(call.source)] * len(texts)
        if not source:  # each text's own language, as LibreTranslate's detectedLanguage
            found = [self.api.source("auto", call.target, t) if t.strip() else call.source for t in texts]
            detected = [source_code(f) for f in found]
        self.usage.characters += sum(len(t) for t in texts)
        used, billed = deepl_options.model_type(values), values.flag("show_billed_characters") is not False
        answers = [{"detected_source_language": d, "text": t} for d, t in zip(detected, out)]
        for answer, text, report in zip(answers, texts, reports):
            answer.update({"billed_characters": len(text)} if billed else {})
            answer.update({"model_type_used": used} if used else {})
            answer.update(report)
        return json_response({"translations": answers})

    @deepl_errors
    async def languages(self, request: web.Request) -> web.Response:
        await self.authorized(request)
        kind = (await read(request)).one("type", "source")
        if kind not in ("source", "target"):
            raise InvalidInput("Value for 'type' not supported (supported: source, target).")
        pairs = self.pairs()
        if kind == "source":
            codes = {source_code(s): language_name(base(s)) for s in pairs}
            return json_response([{"language": c, "name": n} for c, n in sorted(codes.items())])
        targets = sorted({t for ts in pairs.values() for t in ts})
        formal = self.api.registry.formality_targets()
        listed = {c: (language_name(c), t in formal) for t in targets for c in target_codes(t)}
        return json_response(
            [{"language": c, "name": n, "supports_formality": f} for c, (n, f) in sorted(listed.items())]
        )

    @deepl_errors
    async def usage_report(self, request: web.Request) -> web.Response:
        """The calling key's characters of its quota's period (the month's, or the day's when only
        that is limited); the administrator and an open server: the server's since it started."""
        caller = await self.authorized(request)
        if caller.key is None:
            return json_response({"character_count": self.usage.characters, "character_limit": UNLIMITED})
        used, limits = await self.api.gate.usage(caller), caller.key.limits
        if limits.chars_per_day and not limits.chars_per_month:
            return json_response({"character_count": used.day, "character_limit": limits.chars_per_day})
        return json_response({"character_count": used.month, "character_limit": limits.chars_per_month or UNLIMITED})

    @deepl_errors
    async def glossary_pairs(self, request: web.Request) -> web.Response:
        await self.authorized(request)
        pairs = sorted({(base(s), base(t)) for s, ts in self.pairs().items() for t in ts})
        return json_response({"supported_languages": [{"source_lang": s, "target_lang": t} for s, t in pairs]})

    @deepl_errors
    async def unknown(self, request: web.Request) -> web.Response:
        """Any /v2 request no route took: 405 with `Allow` for a path served with other methods, else 404."""
        await self.authorized(request)
        allowed = await _allowed(request)
        if not allowed:
            return message(404, f"Not found: {request.method} {request.path} is no DeepL API route this server serves")
        answer = message(405, f"Method not allowed: {request.path} takes {', '.join(allowed)}, not {request.method}")
        answer.headers["Allow"] = ",".join(allowed)
        return answer

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v2/translate", self.translate),
            web.get("/v2/languages", self.languages),
            web.post("/v2/languages", self.languages),
            web.get("/v2/usage", self.usage_report),
            web.post("/v2/usage", self.usage_report),
            web.get("/v2/glossary-language-pairs", self.glossary_pairs),
        ]


def setup(app: web.Application, api: HttpApi) -> None:
    """Add the DeepL routes to the HTTP app (and the document jobs' clean-up to its shutdown)."""
    deepl = DeepL(api)
    documents = Documents(api, deepl.usage)
    app.add_routes(deepl.routes() + Glossaries(api).routes() + MultilingualGlossaries(api).routes())
    app.add_routes(documents.routes())
    # last: after every /v2 and /v3 route
    app.add_routes([web.route("*", "/v2/{tail:.*}", deepl.unknown), web.route("*", "/v3/{tail:.*}", deepl.unknown)])
    app.on_shutdown.append(documents.close)


async def _allowed(request: web.Request) -> list[str]:
    """The methods of the app's routes whose path is the request's (the catch-all's own aside)."""
    methods: set[str] = set()
    for resource in request.app.router.resources():
        if resource is not request.match_info.route.resource:
            match, allowed = await resource.resolve(request)
            methods |= set(allowed) if match is None else set()
    return sorted(methods)
