"""`POST /translate_file` and `GET /download_file/{name}`, as LibreTranslate answers them.

    multipart file, source, target, api_key
      -> the upload's checks: key, parameters, language pair, extension, size (--max-file-bytes)
      -> traductor_client.files.read (in a worker thread, as every step that reads, checks or
         writes the file: none holds the event loop that serves the other requests)
         refuses what it cannot parse, XML entities, more units than --max-file-units: 400
      -> Job: the distinct texts, sent through pipeline.translate_many in batches of
         --max-batch-texts (the engine, queue and limits of /translate and gRPC TranslateBatch)
      -> the rendered file waits in `Results` for one download (--file-ttl-seconds at most)
      <- {"translatedFileUrl": ".../download_file/ID.NAME", "report": {...}}

The answer's `report` (an addition: LibreTranslate clients ignore it) says how many units were
filled and which were left untranslated and why; the web page shows it.

Nothing is written to disk: uploads and results live in memory, a result is deleted at its
first download or when it expires, whichever comes first, and the number of results waiting is
bounded (`Results.capacity`; beyond it a new upload gets 429 like a full queue).

What this module does not know: any file format (traductor_client.files does).
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from aiohttp import web

from traductor_client import files

from ...engine.confidence import low
from ...engine.request import FinishEvent
from ...errors import InvalidInput, NotFound, QueueFull
from ...glossary import Glossary
from ...options import DecodingOptions
from ..async_engine import AsyncEngine, request_summary
from ..pipeline import translate, translate_many

_KEY = re.compile(r"[\w-]{22}")  # secrets.token_urlsafe(16)


@dataclass
class Result:
    name: str
    data: bytes
    expires: float


class Results:
    """Translated files waiting for their one download, in memory."""

    def __init__(self, ttl: float, capacity: int = 64, clock=time.monotonic):
        self.ttl, self.capacity, self.clock = ttl, capacity, clock
        self._items: OrderedDict[str, Result] = OrderedDict()

    def _expire(self) -> None:
        now = self.clock()
        for key in [k for k, r in self._items.items() if r.expires <= now]:
            del self._items[key]

    def put(self, name: str, data: bytes) -> str:
        self._expire()
        if len(self._items) >= self.capacity:
            raise QueueFull(f"{self.capacity} translated files are waiting for download")
        key = secrets.token_urlsafe(16)
        self._items[key] = Result(name, data, self.clock() + self.ttl)
        return key

    def take(self, key: str) -> Result:
        if not _KEY.fullmatch(key):  # not a name this server gives (LibreTranslate's answer)
            raise InvalidInput("Invalid filename")
        self._expire()
        result = self._items.pop(key, None)
        if result is None:
            raise NotFound(
                f"no such translated file: it was downloaded already or has expired "
                f"(a translated file is kept {self.ttl:g} s, until its first download)"
            )
        return result

    def __len__(self) -> int:
        self._expire()
        return len(self._items)


def upload(values, field: str = "file") -> tuple[str, bytes]:
    """The uploaded file's name and bytes (a multipart file field)."""
    item = values.get(field)
    if item is None or item == "":
        raise InvalidInput(f"Invalid request: missing {field} parameter")
    if not isinstance(item, web.FileField):
        raise InvalidInput(f"Invalid request: {field} must be a file (multipart/form-data)")
    name = (item.filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    data = item.file.read()
    if not name:
        raise InvalidInput("Invalid request: the file has no name (its extension says its format)")
    if files.formats.extension(name) not in files.EXTENSIONS:  # LibreTranslate's words, then which
        known = " ".join(sorted(files.EXTENSIONS))
        raise InvalidInput(f"Invalid request: file format not supported ({name}; supported: {known})")
    if not data:
        raise InvalidInput("Invalid request: empty file")
    return name, data


def _outcome(event: FinishEvent) -> files.Outcome:
    """A text's event as the files' Outcome: cut short, failing a check or of low confidence, for review."""
    checks = tuple(dict.fromkeys(c for s in event.segments for c in s.failed_checks))
    markup = event.markup_unsure
    return files.outcome(event.text, event.reason.value, event.confidence, low(event.confidence), markup, checks)


async def _translate_texts(
    engine: AsyncEngine,
    texts: list[str],
    fmt: str,
    rid: str,
    batch: int,
    options: DecodingOptions,
    glossary: Glossary | None = None,
) -> dict:
    """Every text's outcome; a batch the service refuses (a text too long) is retried one text at
    a time, so only the refused texts are lost (reported on their units)."""
    outcomes = {}
    for begin in range(0, len(texts), batch):
        chunk = texts[begin : begin + batch]
        try:
            events = await translate_many(
                engine, chunk, options, f"{rid}-{begin}", format=fmt, max_texts=batch, glossary=glossary
            )
            outcomes.update(((fmt, t), _outcome(e)) for t, e in zip(chunk, events))
        except InvalidInput:
            for i, text in enumerate(chunk):
                try:
                    event = await translate(engine, text, options, f"{rid}-{begin + i}", format=fmt, glossary=glossary)
                    outcomes[(fmt, text)] = _outcome(event)
                except InvalidInput as error:
                    outcomes[(fmt, text)] = (None, f"the service refused it: {error}", "")
    return outcomes


async def translate_upload(
    engine: AsyncEngine,
    name: str,
    data: bytes,
    limits: files.Limits,
    rid: str,
    batch: int,
    options: DecodingOptions,
    glossary: Glossary | None = None,
):
    """(translated bytes, report) of an uploaded file, its texts decoded with `options` (their
    target_language: a multilingual model's target) and `glossary` (the pipeline applies it)."""
    try:
        # the target says how many plural forms a plural message gets (Russian three)
        document = await asyncio.to_thread(files.read, name, data, limits, options.target_language or "")
    except files.FileError as error:
        raise InvalidInput(str(error)) from None
    job = await asyncio.to_thread(files.Job, document)
    outcomes = {}
    for fmt, texts in job.requests.items():
        outcomes.update(await _translate_texts(engine, texts, fmt, rid, batch, options, glossary))
    # the placeholder checks of thousands of units, and rendering, also off the event loop
    filled = await asyncio.to_thread(job.finish, outcomes, True)
    # the target named where the format says the file's language (.po Language:, <html lang>)
    rendered = await asyncio.to_thread(document.render, filled, options.target_language or "")
    summary = request_summary.get()
    if summary is not None:
        summary.update({"file": files.formats.extension(name), "units": len(document.units), "filled": len(filled)})
    return rendered, job.report
