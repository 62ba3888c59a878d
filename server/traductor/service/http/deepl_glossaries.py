"""DeepL's v2 glossary routes over the server's glossary store (service/glossaries.py):

    POST   /v2/glossaries                 name, source_lang, target_lang, entries, entries_format
                                          (tsv or csv; JSON or form) -> 201 and the glossary
    GET    /v2/glossaries                 -> {"glossaries": [...]}, oldest first (those of one dictionary)
    GET    /v2/glossaries/{id}            -> the glossary (404: none by that id; 400: a v3 glossary
                                          of several dictionaries, or none)
    GET    /v2/glossaries/{id}/entries    -> its entries as TSV (text/tab-separated-values)
    DELETE /v2/glossaries/{id}            -> 204 (any glossary, v3 ones too)

DeepL's v3 glossaries (deepl_glossaries_v3.py) are the same glossaries, with a dictionary per pair.

A glossary's languages must be a pair some served model translates (GET
/v2/glossary-language-pairs lists them); they are kept as DeepL keeps them, the language alone
(`EN-GB` -> `en`), so one glossary serves every region. The store does the file work (in a worker
thread: none holds the event loop), checks the entries and the limits, and names the flags.

Each glossary belongs to the key that made it: another key gets 404, as for an id that does not
exist; the administrator's --token sees all (service/keys). This module knows nothing about
translating: deepl.py applies a glossary to a call.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from ...errors import InvalidInput
from ..glossary_records import FORMATS, GlossaryInfo
from .api import HttpApi, json_response
from .deepl_params import authorize, base, deepl_errors, read
from .params import check_pair, known_codes, served_code

ENVELOPE = 64 * 1024  # a glossary request's bytes beside its entries (JSON or form)


def glossary_pair(api: HttpApi, source: object, target: object) -> tuple[str, str]:
    """A glossary's languages as stored (`EN-GB` -> `en`): a pair some served model translates."""
    pairs = api.registry.languages()
    known = known_codes(pairs)
    for code, name in ((source, "source_lang"), (target, "target_lang")):
        if not isinstance(code, str) or not code:
            raise InvalidInput(f"Value for '{name}' not supported.")
    try:  # DeepL's words, then which language (one message, not one inside another)
        served_source, served_target = served_code(source, known), served_code(target, known)
        check_pair(served_source, served_target, pairs)
    except InvalidInput as error:
        raise InvalidInput(f"Unsupported glossary source and target language pair: {error}") from None
    return base(served_source), base(served_target)


class Glossaries:
    def __init__(self, api: HttpApi):
        self.api = api

    def store(self):
        if self.api is None or self.api.glossaries is None:
            raise InvalidInput("this server stores no glossaries")
        return self.api.glossaries

    @deepl_errors
    async def create(self, request: web.Request) -> web.Response:
        store, s = self.store(), self.api.settings
        # a glossary's entries may take up to --max-glossary-bytes (checked again with its own
        # message), beyond the --max-message-bytes of other requests; resized before the key is
        # read, which may be in the form (`auth_key`)
        request = request.clone(client_max_size=max(s.max_message_bytes, store.limits.bytes + ENVELOPE))
        caller = await authorize(request, self.api.gate)
        values = await read(request)
        for required in ("name", "source_lang", "target_lang", "entries"):
            if values.one(required) in (None, ""):
                raise InvalidInput(f"Parameter '{required}' not specified.")
        name, entries, fmt = values.text("name"), values.text("entries"), values.text("entries_format", "tsv")
        if fmt not in FORMATS:
            raise InvalidInput(f"Value for 'entries_format' not supported (supported: {', '.join(FORMATS)}).")
        source, target = glossary_pair(self.api, values.one("source_lang"), values.one("target_lang"))
        info = await asyncio.to_thread(store.create, name, source, target, entries, fmt, caller.owner)
        return json_response(info.as_json(), 201)

    @deepl_errors
    async def list(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        found = await asyncio.to_thread(self.store().list, caller.owner)
        return json_response({"glossaries": [g.as_json() for g in found if len(g.dictionaries) == 1]})

    async def one(self, request: web.Request, caller) -> GlossaryInfo:
        """The path's glossary, if it has one dictionary (what a v2 glossary is)."""
        info = await asyncio.to_thread(self.store().info, request.match_info["glossary_id"], caller.owner)
        if len(info.dictionaries) != 1:
            raise InvalidInput(
                f"glossary {info.glossary_id} has {len(info.dictionaries)} dictionaries, the v2 API shows glossaries"
                f" of one: use /v3/glossaries/{info.glossary_id}"
            )
        return info

    @deepl_errors
    async def get(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        return json_response((await self.one(request, caller)).as_json())

    @deepl_errors
    async def entries(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        accept = request.headers.get("Accept", "*/*")
        if not any(kind in accept for kind in ("text/tab-separated-values", "*/*", "text/*")):
            raise web.HTTPUnsupportedMediaType()
        info = await self.one(request, caller)
        return web.Response(text=info.tsv(), content_type="text/tab-separated-values", charset="utf-8")

    @deepl_errors
    async def delete(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        await asyncio.to_thread(self.store().delete, request.match_info["glossary_id"], caller.owner)
        return web.Response(status=204)

    def routes(self) -> list[web.RouteDef]:
        one = "/v2/glossaries/{glossary_id}"
        return [
            web.post("/v2/glossaries", self.create),
            web.get("/v2/glossaries", self.list),
            web.get(one, self.get),
            web.delete(one, self.delete),
            web.get(one + "/entries", self.entries),
        ]
