"""DeepL's document translation on the translation file formats traductor fills (the formats of
/translate_file: gettext, XLIFF, Qt, Android, JSON, HTML, Markdown, subtitles, text):

    POST /v2/document                  multipart file, target_lang, source_lang, filename, output_format,
                                       formality, glossary_id (needs source_lang)
                                       -> {"document_id", "document_key"}
    POST /v2/document/{id}             document_key -> {"document_id", "status": queued | translating
                                       | done | error, "billed_characters" when done, "error_message"}
    POST /v2/document/{id}/result      document_key -> the translated file, once (503 while not done)

The upload is checked at once (key, languages, format, size: the checks of /translate_file), then
translated in the background by `files.translate_upload`, the /translate_file machinery (its texts
through the engine's queue like any call); a status request arriving while it runs waits for it a
moment (`STATUS_WAIT` seconds) before answering, so a small document is `done` at the first check
and the client's 5-second polling never starts. A result is kept in memory until its download or
`--file-ttl-seconds` after it is done; at most `CAPACITY` documents are held (beyond: 429). Nothing
is written to disk. `billed_characters` counts the characters of the uploaded file.

This module knows no file format (traductor_client.files does) and no language code form
(deepl_params reads DeepL's).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from dataclasses import dataclass, field
from urllib.parse import quote

from aiohttp import web

from traductor_client import files as file_formats

from ...errors import InvalidInput, NotFound, QueueFull
from ...glossary import Glossary
from ...options import DecodingOptions
from .. import glossary_use
from .deepl_params import check_auth, check_formality, deepl_errors, message, read, served
from .files import translate_upload, upload
from .handlers import HttpApi, json_response, request_id
from .params import SourceNotServed, check_pair, known_codes

CAPACITY = 64  # documents held (running, or waiting for their download)
STATUS_WAIT = 2.0  # seconds a status request waits for a running translation


class SourceNeeded(InvalidInput):
    """A document without source_lang where several served languages translate into its target."""


@dataclass
class Job:
    document_id: str
    key: str
    name: str
    characters: int
    status: str = "queued"
    result: bytes = b""
    error: str = ""
    finished: float = 0.0  # time.monotonic() when done or failed
    over: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task | None = None

    def as_json(self) -> dict:
        answer = {"document_id": self.document_id, "status": self.status}
        if self.status == "translating":
            answer["seconds_remaining"] = 1
        if self.status == "done":
            answer["billed_characters"] = self.characters
        if self.status == "error":
            answer["error_message"] = self.error
        return answer


class Documents:
    def __init__(self, api: HttpApi, usage):
        self.api, self.usage = api, usage  # usage: deepl.Usage, characters billed so far
        self.jobs: dict[str, Job] = {}

    def _expire(self) -> None:
        ttl, now = self.api.settings.file_ttl_seconds, time.monotonic()
        for key in [k for k, j in self.jobs.items() if j.finished and j.finished + ttl <= now]:
            del self.jobs[key]

    def _job(self, request: web.Request, values) -> Job:
        """The job of the path's id whose document_key the request gives (404 otherwise)."""
        self._expire()
        job = self.jobs.get(request.match_info["document_id"])
        given = values.one("document_key")
        if job is None or not isinstance(given, str) or not hmac.compare_digest(given.encode(), job.key.encode()):
            raise NotFound("Document not found: unknown document_id, a wrong document_key, or already downloaded")
        return job

    def _source(self, values, target: str, pairs: dict[str, list[str]]) -> str:
        known = known_codes(pairs)
        source = values.one("source_lang")
        if source:
            return served(source, "source_lang", known)
        check_pair("auto", target, pairs)  # some served language translates into the target
        sources = self.api.sources(target)
        if len(sources) > 1:  # nothing to detect in yet: the document is read later
            raise SourceNeeded(f"source_lang is needed: several served languages translate into {target}")
        return sources[0]

    @deepl_errors
    async def upload(self, request: web.Request) -> web.Response:
        s = self.api.settings
        check_auth(request, s.token)
        request = request.clone(client_max_size=max(s.max_message_bytes, s.max_file_bytes + 64 * 1024))
        values = await read(request)
        if values.one("target_lang") in (None, ""):
            raise InvalidInput("Parameter 'target_lang' not specified.")
        pairs = self.api.registry.languages()
        target = served(values.one("target_lang"), "target_lang", known_codes(pairs))
        try:
            source = self._source(values, target, pairs)
            check_pair(source, target, pairs)
        except SourceNeeded:
            raise
        except SourceNotServed as error:
            raise InvalidInput(f"Value for 'source_lang' not supported: {error}") from None
        except InvalidInput as error:
            raise InvalidInput(f"Value for 'target_lang' not supported: {error}") from None
        check_formality(values.one("formality"))
        if values.one("glossary_ids"):
            raise InvalidInput("glossary_ids is not supported by this server: give one glossary_id")
        name, data = upload({"file": values.one("file")})
        name = values.text("filename", "") or name
        wanted = values.text("output_format", "")
        if wanted and wanted.lower().lstrip(".") != file_formats.formats.extension(name).lstrip("."):
            raise InvalidInput("Value for 'output_format' not supported: a document comes back in its own format")
        self._expire()
        if len(self.jobs) >= CAPACITY:
            raise QueueFull(f"{CAPACITY} documents are being translated or waiting for download")
        characters = len(data.decode("utf-8", "replace"))
        job = Job(secrets.token_hex(16).upper(), secrets.token_hex(32).upper(), name, characters)
        model = self.api.route(source, target)
        glossary = self.glossary(values, model, target)
        options = DecodingOptions(target_language=values.text("target_lang"), source_language=source)
        job.task = asyncio.ensure_future(self._run(job, model.engine, data, options, glossary, request_id()))
        self.jobs[job.document_id] = job
        return json_response({"document_id": job.document_id, "document_key": job.key})

    def glossary(self, values, model, target: str) -> Glossary | None:
        """The stored glossary of `glossary_id` for the model (its pair must be the document's)."""
        glossary_id = values.one("glossary_id")
        if glossary_id in (None, ""):
            return None
        if not isinstance(glossary_id, str) or self.api.glossaries is None:
            raise InvalidInput("Value for 'glossary_id' not supported.")
        if not values.one("source_lang"):
            raise InvalidInput("Use of a glossary requires the source_lang parameter to be specified.")
        return glossary_use.for_model(self.api.glossaries.get(glossary_id), model, target)

    async def _run(self, job: Job, engine, data: bytes, options: DecodingOptions, glossary, rid: str) -> None:
        s = self.api.settings
        limits = file_formats.Limits(s.max_file_bytes, s.max_file_units)
        job.status = "translating"
        try:
            batch = s.max_batch_texts
            job.result, _ = await translate_upload(engine, job.name, data, limits, rid, batch, options, glossary)
            job.status = "done"
            self.usage.characters += job.characters
        except asyncio.CancelledError:
            job.status, job.error = "error", "the server stopped before the document was translated"
            raise
        except InvalidInput as error:
            job.status, job.error = "error", str(error)
        except Exception as error:  # the engine stopped, the server drains: said, not raised
            job.status, job.error = "error", f"the document could not be translated ({type(error).__name__}: {error})"
        finally:
            job.finished = time.monotonic()
            job.over.set()

    @deepl_errors
    async def status(self, request: web.Request) -> web.Response:
        check_auth(request, self.api.settings.token)
        job = self._job(request, await read(request))
        if not job.over.is_set():
            try:
                await asyncio.wait_for(job.over.wait(), STATUS_WAIT)
            except TimeoutError:
                pass
        return json_response(job.as_json())

    @deepl_errors
    async def result(self, request: web.Request) -> web.Response:
        check_auth(request, self.api.settings.token)
        job = self._job(request, await read(request))
        if job.status in ("queued", "translating"):
            return message(503, "Document not ready")
        del self.jobs[job.document_id]
        if job.status == "error":
            return message(400, f"Document translation failed: {job.error}")
        disposition = f"attachment; filename*=UTF-8''{quote(job.name)}"
        return web.Response(
            body=job.result, content_type="application/octet-stream", headers={"Content-Disposition": disposition}
        )

    async def close(self, app: web.Application = None) -> None:
        """Cancel the translations still running (the server is stopping)."""
        running = [j.task for j in self.jobs.values() if j.task is not None and not j.task.done()]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v2/document", self.upload),
            web.post("/v2/document/{document_id}", self.status),
            web.post("/v2/document/{document_id}/result", self.result),
        ]
