"""The line a call's texts take: each stage's module entered once, in order (the package's
docstring draws it). The edges call `translate`, `translate_many`, or `prepare` then `stream`
(stream.py) and know nothing of the stages."""

from __future__ import annotations

from contextlib import aclosing

from ...engine.request import FinishEvent
from ...errors import InvalidInput, ItemRefused
from ...glossary import Glossary
from ...options import DecodingOptions
from ...text import TextError
from ..async_engine import AsyncEngine
from . import cut, decode, join, protect, register, restore, verify
from .protect import Prepared


def prepare(
    engine: AsyncEngine, text: str, options: DecodingOptions, format: str = "text", glossary: Glossary | None = None
) -> Prepared:
    """cut, then protect: a text checked before any model work (empty, limits, format, options,
    languages); TextError or InvalidInput for the caller."""
    pieces = cut.cut(engine, text, options, format)
    return protect.protect(engine, pieces, options, glossary)


async def translate(
    engine: AsyncEngine,
    text: str,
    options: DecodingOptions,
    request_id: str,
    timeout: float | None = None,
    format: str = "text",
    glossary: Glossary | None = None,
) -> FinishEvent:
    """Translate one text (gRPC `Translate`, HTTP `/translate` with a string `q`)."""
    (event,) = await _line(engine, [text], options, [request_id], timeout, format, glossary)
    return event


async def translate_many(
    engine: AsyncEngine,
    texts: list[str],
    options: DecodingOptions,
    request_id: str,
    timeout: float | None = None,
    format: str = "text",
    max_texts: int = 64,
    glossary: Glossary | None = None,
    field: str = "texts",
) -> list[FinishEvent]:
    """Translate texts together (gRPC `TranslateBatch`, HTTP `/translate` with a list `q`), every
    segment of every text in one engine group.

    Every text is checked before any work: one refused for what it holds (`text.TextError`) is
    `ItemRefused`, its message naming it as the request's `field` (texts, q, text) and its index.
    Text i gets the request id `{request_id}-{i}`."""
    if not texts or len(texts) > max_texts:
        raise InvalidInput(f"texts must hold between 1 and {max_texts} texts (--max-batch-texts), got {len(texts)}")
    ids = [f"{request_id}-{i}" for i in range(len(texts))]
    return await _line(engine, texts, options, ids, timeout, format, glossary, field)


async def translate_all(
    engine: AsyncEngine,
    texts: list[str],
    options: DecodingOptions,
    request_id: str,
    refused: dict[int, str],
    format: str = "text",
    glossary: Glossary | None = None,
) -> list[FinishEvent | None]:
    """Translate any number of texts together, every segment in one engine group, as `translate_many`
    does (the offline commands, offline.py): a text the text layer refuses (`text.TextError`) is left
    out, None in its place and the reason in `refused[index]`; an index in `refused` on entry is
    refused already, its text not read."""
    ids = [f"{request_id}-{i}" for i in range(len(texts))]
    return await _line(engine, texts, options, ids, None, format, glossary, refused=refused)


async def _line(engine, texts, options, request_ids, timeout, format, glossary, field=None, refused=None) -> list:
    """cut -> protect every text; decode all their segments as one group -> restore -> register ->
    verify -> join, one event per text. If a segment fails (or its deadline passes), the error is raised and
    the others are cancelled."""
    prepared, kept = [], []  # kept: the index of each text prepared
    for index, text in enumerate(texts):
        if refused is not None and index in refused:
            continue
        try:
            prepared.append(prepare(engine, text, options, format, glossary))
            kept.append(index)
        except TextError as error:
            if refused is not None:
                refused[index] = str(error)
                continue
            if field is None:
                raise
            raise ItemRefused(index, error, field) from error
    out: list = [None] * len(texts)
    if not prepared:  # every text refused
        return out
    request_ids = [request_ids[i] for i in kept]
    results: list[list] = [[None] * len(p.inputs) for p in prepared]
    group = decode.Group(engine, prepared, request_ids, timeout, stream=False)
    async with aclosing(group.events()) as events:
        async for j, event in events:
            if isinstance(event, FinishEvent):
                t, k = group.where[j]
                event = restore.restored(group, j, event)
                event = register.rewritten(engine, prepared[t], k, event, group.terms.get(j))
                results[t][k] = verify.checked(engine, prepared[t], k, event)
    for index, p, r in zip(kept, prepared, results):
        out[index] = join.result(p, r)
    return out
