"""DeepL's document translation on the translation file formats traductor fills (the formats of
/translate_file: gettext, XLIFF, Qt, Android, JSON, HTML, Markdown, subtitles, text):

    POST /v2/document                  multipart file, target_lang, source_lang, filename, output_format,
                                       formality, glossary_id (needs source_lang)
                                       -> {"document_id", "document_key"}
    POST /v2/document/{id}             document_key -> {"document_id", "status": queued | translating
                                       | done | error, "billed_characters" when done, "error_message"}
    POST /v2/document/{id}/result      document_key -> the translated file, once (503 while not done)

The upload is checked at once (key, languages, format, size: the checks of /translate_file; a
format traductor does not fill is "Invalid file: the file extension .pdf ... is not supported",
the words DeepL's clients recognise), then
translated in the background by `files.translate_upload`, the /translate_file machinery (its texts
through the engine's queue like any call); a status request arriving while it runs on this server
waits for it a moment (`STATUS_WAIT` seconds) before answering, so a small document is `done` at
the first check and the client's 5-second polling never starts. `billed_characters` counts the
characters of the uploaded file.

Documents and their status are files of the shared document store (service/documents.py:
`<glossary directory>/documents`), not this server's memory: with the replicas of a stack on one
volume, the upload, its status requests and its download may each reach a different replica, and
a done document survives the restart of the replica that translated it. A document belongs to the
key that uploaded it: with another key its status and result are 404 (service/keys). A result waits for its one
download until `--file-ttl-seconds` after it is done; at most `CAPACITY` documents are held
(beyond: 429). The uploaded file itself stays in the memory of the replica translating it: if that
replica stops first, the status says so (an error) and the document is uploaded again.

This module knows no file format (traductor_client.files does) and no language code form
(deepl_params reads DeepL's).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from urllib.parse import quote

from aiohttp import web

from traductor_client import files as file_formats

from ...errors import InvalidInput, PermissionDenied
from ...glossary import Glossary
from ...languages import name as language_name
from ...options import DecodingOptions
from .. import glossary_use
from ..documents import HEARTBEAT, DocumentStore, Record, document_dir
from .api import HttpApi, json_response, request_id
from .deepl_params import authorize, base, check_formality, deepl_errors, message, read, register_of, served
from .detect import detect
from .files import translate_upload, upload
from .params import SourceNotServed, check_pair, known_codes

log = logging.getLogger("traductor.http")

CAPACITY = 64  # documents held (running, or waiting for their download)
_MARKUP = re.compile(r"<[^<>]*>")
STATUS_WAIT = 2.0  # seconds a status request waits for a translation running on this server


def check_extension(name: str) -> None:
    """A file name's extension one traductor fills, refused in the words DeepL's clients know
    ("Invalid file", "file extension")."""
    extension = file_formats.formats.extension(name.replace("\\", "/").rsplit("/", 1)[-1])
    if name and extension not in file_formats.EXTENSIONS:
        known = " ".join(sorted(file_formats.EXTENSIONS))
        raise InvalidInput(
            f"Invalid file: the file extension {extension or '(none)'} of {name} is not supported (supported: {known})"
        )


class Documents:
    def __init__(self, api: HttpApi, usage, store: DocumentStore | None = None):
        self.api, self.usage = api, usage  # usage: deepl.Usage, characters billed so far
        s = api.settings
        self.store = store or DocumentStore(document_dir(s), s.file_ttl_seconds, CAPACITY)
        self.running: dict[str, asyncio.Task] = {}  # document_id -> its translation, on this server

    async def _record(self, request: web.Request, values, caller) -> Record:
        """The record of the path's id whose document_key the request gives, uploaded with the
        caller's key (404 otherwise; the administrator sees every document)."""
        document_id, key = request.match_info["document_id"], values.one("document_key")
        return await asyncio.to_thread(self.store.status, document_id, key, caller.owner)

    def _source(self, values, target: str, pairs: dict[str, list[str]]) -> str | None:
        """The document's served source: `source_lang`, else the one served language translated
        into the target, else None (several: it is detected in the document's text, `_detected`)."""
        known = known_codes(pairs)
        source = values.one("source_lang")
        if source:
            source = served(source, "source_lang", known)  # its own message, not inside another
            if base(source) == base(target):
                raise InvalidInput(same_language(source))
        try:
            if source:
                check_pair(source, target, pairs)
                return source
            check_pair("auto", target, pairs)  # some served language translates into the target
        except SourceNotServed as error:
            raise InvalidInput(f"Value for 'source_lang' not supported: {error}") from None
        except InvalidInput as error:
            raise InvalidInput(f"Value for 'target_lang' not supported: {error}") from None
        sources = self.api.sources(target)
        return sources[0] if len(sources) == 1 else None

    async def _detected(self, name: str, data: bytes, target: str, caller, formality, written: str):
        """(engine, options) of a document sent without source_lang, its language detected in its
        text among the sources translated into the target and the target itself (a document
        already in the target's language is an error, as on DeepL)."""
        s = self.api.settings
        text = await asyncio.to_thread(_sample, name, data, file_formats.Limits(s.max_file_bytes, s.max_file_units))
        found = detect(text, [*self.api.sources(target), target])[0]["language"]
        if base(found) == base(target):
            raise InvalidInput(same_language(found))
        model = self.api.route(found, target, caller=caller)
        register = register_of(formality, model.registers)
        return model.engine, DecodingOptions(target_language=written, source_language=found, register=register)

    @deepl_errors
    async def upload(self, request: web.Request) -> web.Response:
        s = self.api.settings
        request = request.clone(client_max_size=max(s.max_message_bytes, s.max_file_bytes + 64 * 1024))
        caller = await authorize(request, self.api.gate)  # after the resize: the key may be in the form
        values = await read(request)
        for given in (values.text("filename", ""), getattr(values.one("file"), "filename", None) or ""):
            check_extension(given)  # first: a file no format here reads is refused whatever else is sent
        if values.one("target_lang") in (None, ""):
            raise InvalidInput("Parameter 'target_lang' not specified.")
        pairs = self.api.registry.languages()
        target = served(values.one("target_lang"), "target_lang", known_codes(pairs))
        source = self._source(values, target, pairs)
        check_formality(values.one("formality"))
        if values.one("glossary_ids"):
            raise InvalidInput("glossary_ids is not supported by this server: give one glossary_id")
        name, data = upload({"file": values.one("file")})
        name = values.text("filename", "") or name
        wanted = values.text("output_format", "")
        if wanted and wanted.lower().lstrip(".") != file_formats.formats.extension(name).lstrip("."):
            raise InvalidInput("Value for 'output_format' not supported: a document comes back in its own format")
        characters = len(data.decode("utf-8", "replace"))
        written, formality = values.text("target_lang"), values.one("formality")
        if source is None:  # detected once the document is read, in the background
            self.glossary(values, None, target, caller.owner)  # a glossary_id needs source_lang: refused now
            await self.api.gate.charge(caller, characters)
            prepared = functools.partial(self._detected, name, data, target, caller, formality, written)
            glossary = None
        else:
            model = self.api.route(source, target, caller=caller)
            await self.api.gate.charge(caller, characters)
            glossary = self.glossary(values, model, target, caller.owner)
            register = register_of(formality, model.registers)
            options = DecodingOptions(target_language=written, source_language=source, register=register)
            prepared = functools.partial(_ready, model.engine, options)
        record, key = await asyncio.to_thread(self.store.add, name, characters, caller.owner)
        task = asyncio.ensure_future(self._run(record, prepared, data, glossary, request_id()))
        self.running[record.document_id] = task
        task.add_done_callback(lambda _: self.running.pop(record.document_id, None))
        return json_response({"document_id": record.document_id, "document_key": key})

    def glossary(self, values, model, target: str, owner: str | None = None) -> Glossary | None:
        """The stored glossary of `glossary_id` for the model (its pair must be the document's)."""
        glossary_id = values.one("glossary_id")
        if glossary_id in (None, ""):
            return None
        if not isinstance(glossary_id, str) or self.api.glossaries is None:
            raise InvalidInput("Value for 'glossary_id' not supported.")
        if not values.one("source_lang"):
            raise InvalidInput("Use of a glossary requires the source_lang parameter to be specified.")
        return glossary_use.for_model(self.api.glossaries.get(glossary_id, owner), model, target)

    async def _run(self, record: Record, prepared, data: bytes, glossary, rid: str) -> None:
        """Translate the document (`prepared()`: its (engine, options)) and record the outcome."""
        s = self.api.settings
        limits = file_formats.Limits(s.max_file_bytes, s.max_file_units)
        beat = asyncio.ensure_future(self._heartbeat(record.document_id))
        result, error = None, ""
        try:
            engine, options = await prepared()
            batch = s.max_batch_texts
            result, _ = await translate_upload(engine, record.name, data, limits, rid, batch, options, glossary)
        except asyncio.CancelledError:
            error = "the server stopped before the document was translated"
            raise
        except (InvalidInput, PermissionDenied) as refused:
            error = str(refused)
        except Exception as failure:  # the engine stopped, the server drains: said, not raised
            error = f"the document could not be translated ({type(failure).__name__}: {failure})"
        finally:
            beat.cancel()
            try:
                await asyncio.shield(asyncio.to_thread(self.store.finish, record, result, error))
            except Exception:  # the store's directory failed: the status will say the server stopped
                log.exception("document %s: its outcome could not be stored", record.document_id)
        if result is not None:
            self.usage.characters += record.characters

    async def _heartbeat(self, document_id: str) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            await asyncio.to_thread(self.store.touch, document_id)

    @deepl_errors
    async def status(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        values = await read(request)
        record = await self._record(request, values, caller)
        running = self.running.get(record.document_id)
        if running is not None:  # translated here: wait a moment for it, then read it again
            await asyncio.wait([running], timeout=STATUS_WAIT)
            record = await self._record(request, values, caller)
        return json_response(record.as_json())

    @deepl_errors
    async def result(self, request: web.Request) -> web.Response:
        caller = await authorize(request, self.api.gate)
        record = await self._record(request, await read(request), caller)
        if record.status == "translating":
            return message(503, "Document not ready")
        body = await asyncio.to_thread(self.store.take, record)
        if body is None:
            return message(400, f"Document translation failed: {record.error}")
        disposition = f"attachment; filename*=UTF-8''{quote(record.name)}"
        return web.Response(
            body=body, content_type="application/octet-stream", headers={"Content-Disposition": disposition}
        )

    async def close(self, app: web.Application = None) -> None:
        """Cancel the translations still running on this server (it is stopping); each records its error."""
        running = list(self.running.values())
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/v2/document", self.upload),
            web.post("/v2/document/{document_id}", self.status),
            web.post("/v2/document/{document_id}/result", self.result),
        ]


def same_language(source: str) -> str:
    """DeepL's refusal of a document already in its target's language."""
    return f"Source and target language are the same: the document is in {language_name(base(source))} ({source})"


async def _ready(engine, options: DecodingOptions):
    return engine, options


def _sample(name: str, data: bytes, limits, size: int = 4000) -> str:
    """Up to `size` characters of a document's texts (markup taken out) to detect its language in;
    a file that cannot be read gives "" here and is refused by the translation's own reading."""
    try:
        job = file_formats.Job(file_formats.read(name, data, limits))
    except file_formats.FileError:
        return ""
    texts = [_MARKUP.sub(" ", t) if fmt == "html" else t for fmt, ts in job.requests.items() for t in ts]
    return "\n".join(texts)[:size]
