"""The glossary of a LibreTranslate call (/translate, /translate_stream, /translate_file): two
parameters this service adds (LibreTranslate has none; its clients never send them).

    glossary_id   a stored glossary (the DeepL API's /v2/glossaries; 404 if there is none)
    glossary      entries given with the call:
                    JSON   [["file", "fichero"], ...], [{"source": "file", "target": "fichero"}, ...],
                           {"file": "fichero", ...}, or a TSV/CSV text
                    form   a TSV text (a tab on a line) or a CSV text
                    file   (multipart, /translate_file) a .tsv, .csv, .po or .tbx glossary file

Both at once, a malformed entry or file is a 400 naming it; the pair rule is gRPC's
(service/glossary_use.py). This module knows nothing about the engine.
"""

from __future__ import annotations

from collections.abc import Mapping

from aiohttp import web

from traductor_client import glossary as glossary_files

from ...errors import InvalidInput
from ...glossary import NO_GLOSSARIES, Glossary, GlossaryLookup
from .. import glossary_use
from ..models import Model

NAMES = ("glossary", "glossary_id")


def _pair(i: int, item) -> tuple[str, str]:
    if isinstance(item, dict) and set(item) == {"source", "target"}:
        item = [item["source"], item["target"]]
    if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
        return item[0], item[1]
    raise InvalidInput(f'Invalid request: glossary entry {i} must be ["source", "target"] or {{"source", "target"}}')


def entries(value: object) -> list[tuple[str, str]]:
    """The entries of a `glossary` parameter in any of the forms above ([] when absent)."""
    try:
        if value is None or value == "" or value == [] or value == {}:
            return []
        if isinstance(value, str):
            return glossary_files.parse(value, "tsv" if "\t" in value else "csv", "glossary")
        if isinstance(value, web.FileField):
            return glossary_files.read(value.filename or "glossary.tsv", value.file.read())
    except glossary_files.GlossaryFileError as error:
        raise InvalidInput(f"Invalid request: {error}") from None
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return list(value.items())
    if isinstance(value, list):
        return [_pair(i, item) for i, item in enumerate(value, 1)]
    raise InvalidInput("Invalid request: glossary must be entries (a list of pairs, an object, TSV or CSV text)")


def call_glossary(
    values: Mapping[str, object], lookup: GlossaryLookup | None, model: Model, target: str
) -> Glossary | None:
    """The call's glossary for the model it goes to (None: it names none)."""
    glossary_id = values.get("glossary_id")
    glossary_id = "" if glossary_id is None else glossary_id  # null: none
    if not isinstance(glossary_id, str):
        raise InvalidInput("Invalid request: glossary_id must be a string")
    found = glossary_use.requested(lookup or NO_GLOSSARIES, glossary_id, entries(values.get("glossary")))
    return glossary_use.for_model(found, model, target)
