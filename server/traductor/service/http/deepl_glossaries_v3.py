"""DeepL's v3 ("multilingual") glossary routes over the server's glossary store: a glossary is a
name and one or more dictionaries, each a language pair with its entries.

    POST   /v3/glossaries                      {"name", "dictionaries": [{"source_lang", "target_lang",
                                               "entries", "entries_format"}, ...]} -> 201 and the glossary
    GET    /v3/glossaries                      -> {"glossaries": [...]}, oldest first (v2 ones too)
    GET    /v3/glossaries/{id}                 -> {"glossary_id", "name", "dictionaries": [{"source_lang",
                                               "target_lang", "entry_count"}], "creation_time"}
    PATCH  /v3/glossaries/{id}                 {"name"?, "dictionaries"?}: renamed, and each dictionary
                                               merged into the one of its pair (or added) -> the glossary
    GET    /v3/glossaries/{id}/entries         ?source_lang=&target_lang= -> {"dictionaries": [{"source_lang",
                                               "target_lang", "entries" (TSV), "entries_format": "tsv"}]}
    PUT    /v3/glossaries/{id}/dictionaries    {"source_lang", "target_lang", "entries", "entries_format"}:
                                               the pair's dictionary replaced (or added) -> the dictionary
    DELETE /v3/glossaries/{id}/dictionaries    ?source_lang=&target_lang= -> 204
    DELETE /v3/glossaries/{id}                 -> 204

These are the glossaries of /v2/glossaries (a v2 glossary is one of one dictionary, and a v3 one of
one dictionary is listed there too); `glossary_id` on /v2/translate and /v2/document uses the
dictionary of the call's pair (glossary_use.for_model). Languages are checked as v2's
(deepl_glossaries.glossary_pair) and kept as the language alone. A glossary belongs to the key that
made it, as v2's (another key: 404). The store (service/glossaries.py) does the file work in a
worker thread, under its lock for a change; this module reads requests and writes DeepL's answers.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from aiohttp import web

from ...errors import InvalidInput
from ..glossary_records import FORMATS, Dictionary, GlossaryInfo, with_dictionary, without_dictionary
from ..keys.gate import Caller
from .api import HttpApi, json_response
from .deepl_glossaries import ENVELOPE, glossary_pair
from .deepl_params import Values, authorize, deepl_errors, read

MAX_DICTIONARIES = 100  # dictionaries of one request


class MultilingualGlossaries:
    def __init__(self, api: HttpApi):
        self.api = api

    def store(self):
        if self.api.glossaries is None:
            raise InvalidInput("this server stores no glossaries")
        return self.api.glossaries

    async def _values(self, request: web.Request) -> tuple[Caller, Values]:
        """The caller and the request's parameters; a body may carry entries up to
        --max-glossary-bytes (the request is resized before anything reads it: the key may be
        in a form, `auth_key`)."""
        s, limits = self.api.settings, self.store().limits
        request = request.clone(client_max_size=max(s.max_message_bytes, limits.bytes + ENVELOPE))
        caller = await authorize(request, self.api.gate)
        return caller, await read(request)

    def _dictionary(self, item: object, where: str) -> Dictionary:
        """One dictionary as sent (a JSON object, or the parameters of a PUT), checked."""
        if not isinstance(item, dict):
            raise InvalidInput(f"Value for '{where}' not supported: an object with source_lang, target_lang, entries")
        for required in ("source_lang", "target_lang", "entries"):
            if item.get(required) in (None, ""):
                raise InvalidInput(f"Parameter '{required}' not specified in '{where}'.")
        fmt, entries = item.get("entries_format", "tsv"), item["entries"]
        if fmt not in FORMATS:
            raise InvalidInput(f"Value for 'entries_format' not supported (supported: {', '.join(FORMATS)}).")
        if not isinstance(entries, str):
            raise InvalidInput(f"Value for 'entries' not supported in '{where}': a string of {fmt.upper()} lines")
        source, target = glossary_pair(self.api, item["source_lang"], item["target_lang"])
        return self.store().dictionary(source, target, entries, fmt)

    def _dictionaries(self, values: Values, required: bool) -> list[Dictionary]:
        given = values.all("dictionaries")
        if required and not given:
            raise InvalidInput("Parameter 'dictionaries' not specified.")
        if len(given) > MAX_DICTIONARIES:
            raise InvalidInput(f"Value for 'dictionaries' not supported: at most {MAX_DICTIONARIES}")
        found = [self._dictionary(item, f"dictionaries[{i}]") for i, item in enumerate(given)]
        pairs = [d.pair() for d in found]
        if len(set(pairs)) != len(pairs):
            raise InvalidInput("Value for 'dictionaries' not supported: a language pair is given twice")
        return found

    def _pair(self, values: Values) -> tuple[str, str]:
        """The `source_lang` and `target_lang` of a query naming one dictionary."""
        for required in ("source_lang", "target_lang"):
            if values.one(required) in (None, ""):
                raise InvalidInput(f"Parameter '{required}' not specified.")
        return glossary_pair(self.api, values.one("source_lang"), values.one("target_lang"))

    async def _info(self, request: web.Request, caller) -> GlossaryInfo:
        return await asyncio.to_thread(self.store().info, request.match_info["glossary_id"], caller.owner)

    @deepl_errors
    async def create(self, request: web.Request) -> web.Response:
        caller, values = await self._values(request)
        if values.one("name") in (None, ""):
            raise InvalidInput("Parameter 'name' not specified.")
        name, dictionaries = values.text("name"), self._dictionaries(values, required=True)
        info = await asyncio.to_thread(self.store().create_many, name, dictionaries, caller.owner)
        return json_response(info.as_v3_json(), 201)

    @deepl_errors
    async def list(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        found = await asyncio.to_thread(self.store().list, caller.owner)
        return json_response({"glossaries": [g.as_v3_json() for g in found]})

    @deepl_errors
    async def get(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        return json_response((await self._info(request, caller)).as_v3_json())

    @deepl_errors
    async def entries(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        values = await read(request)
        info = await self._info(request, caller)
        if values.one("source_lang") in (None, "") and values.one("target_lang") in (None, ""):
            shown = info.dictionaries  # no pair named: every dictionary
        else:
            shown = (info.dictionary(*self._pair(values)),)
        # the entries as DeepL writes them: lines joined, no line break after the last
        listed = [{**d.as_json(), "entries": d.tsv().removesuffix("\n"), "entries_format": "tsv"} for d in shown]
        return json_response({"dictionaries": listed})

    @deepl_errors
    async def update(self, request: web.Request) -> web.Response:
        """PATCH: a new name, and dictionaries merged into those of their pairs (or added)."""
        caller, values = await self._values(request)
        name = values.text("name") if values.one("name") not in (None, "") else None
        dictionaries = self._dictionaries(values, required=False)
        if name is None and not dictionaries:
            raise InvalidInput("Parameter 'name' or 'dictionaries' not specified.")

        def change(info: GlossaryInfo) -> GlossaryInfo:
            for dictionary in dictionaries:
                info = with_dictionary(info, dictionary, merge=True)
            return info if name is None else replace(info, name=name)

        glossary_id = request.match_info["glossary_id"]
        info = await asyncio.to_thread(self.store().update, glossary_id, caller.owner, change)
        return json_response(info.as_v3_json())

    @deepl_errors
    async def replace_dictionary(self, request: web.Request) -> web.Response:
        """PUT: the pair's dictionary replaced by the one sent (added when the glossary has none of it)."""
        caller, values = await self._values(request)
        keys = ("source_lang", "target_lang", "entries", "entries_format")
        dictionary = self._dictionary({k: values.one(k) for k in keys if k in values}, "dictionary")
        glossary_id = request.match_info["glossary_id"]
        await asyncio.to_thread(
            self.store().update, glossary_id, caller.owner, lambda info: with_dictionary(info, dictionary)
        )
        return json_response(dictionary.as_json())

    @deepl_errors
    async def delete_dictionary(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        source, target = self._pair(await read(request))
        glossary_id = request.match_info["glossary_id"]
        await asyncio.to_thread(
            self.store().update, glossary_id, caller.owner, lambda info: without_dictionary(info, source, target)
        )
        return web.Response(status=204)

    @deepl_errors
    async def delete(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        await asyncio.to_thread(self.store().delete, request.match_info["glossary_id"], caller.owner)
        return web.Response(status=204)

    def routes(self) -> list[web.RouteDef]:
        one = "/v3/glossaries/{glossary_id}"
        return [
            web.post("/v3/glossaries", self.create),
            web.get("/v3/glossaries", self.list),
            web.get(one, self.get),
            web.patch(one, self.update),
            web.delete(one, self.delete),
            web.get(one + "/entries", self.entries),
            web.put(one + "/dictionaries", self.replace_dictionary),
            web.delete(one + "/dictionaries", self.delete_dictionary),
        ]
