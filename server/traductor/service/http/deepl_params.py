"""DeepL API v2 requests as DeepL reads them: parameters, the key, DeepL's language codes, and
errors in DeepL's shape (`{"message": ...}` with DeepL's statuses).

- Parameters: a JSON body (what the official clients send for text; `text` a list, flags as JSON
  booleans), or the query string and a form (urlencoded or multipart) together, where a parameter
  may come several times (`text=a&text=b`, DeepL's form). A JSON body is read by `params.read_values`
  (the same checks as the LibreTranslate side: bad JSON, lone surrogates). On every route the query
  string counts with the body, whatever its kind (`POST /v2/languages?type=target` with a JSON body
  lists targets); a name given in both is two values (400 where one belongs). What /v2/translate
  does with each parameter, and its refusal of those it does not know: deepl_options.py.
- The key: `Authorization: DeepL-Auth-Key KEY` (or `Bearer KEY`, or DeepL's older `auth_key` in
  the query string or a form body), checked by the key gate (service/keys/gate.py) as every
  interface's; every /v2 route needs it when the server asks for keys. A key's quota used up is
  456, DeepL's "Quota exceeded"; its requests a minute, 429 with Retry-After.
- Language codes: a caller's DeepL code (`EN`, `en-gb`, `PT-BR`, `ZH-HANS`) is read like any code
  (`params.served_code`, languages.CodeTable); a served code is written as DeepL writes codes:
  upper case, a source without region or script, English and Portuguese targets by region
  (DeepL has no plain `EN` or `PT` target).

This module knows neither the models nor the engine: the handlers (deepl.py, deepl_glossaries.py,
deepl_documents.py) call it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import re
import secrets
from collections.abc import Callable, Collection, Mapping
from urllib.parse import parse_qsl

from aiohttp import web
from multidict import MultiDict

from ... import options
from ...errors import InvalidInput, QueueFull, QuotaExceeded, RateLimited
from ..glossaries import GlossaryStorageError, GlossaryTooLarge
from ..keys.gate import Caller, Gate
from .api import json_response
from .params import FORM_ERRORS, read_values, served_code, unreadable
from .statuses import http_error_for, reason

log = logging.getLogger("traductor.requests")

# DeepL lists these targets only with a region; the served language (`en`, `pt`) answers each
REGIONAL_TARGETS = {"en": ("EN-GB", "EN-US"), "pt": ("PT-BR", "PT-PT")}
FORMALITY_ANY_TARGET = ("default", "prefer_less", "prefer_more")  # fall back to the default where unsupported
FORMALITY_SUPPORTED_ONLY = ("less", "more")  # refused for a target whose model has no formality
SPLIT_SENTENCES = ("0", "1", "nonewlines")
BODY_LIMITS = "the limits: --max-message-bytes; documents --max-file-bytes, glossaries --max-glossary-bytes"
_TAG = re.compile(r"[A-Za-z_][\w.:-]*")
TAG_HANDLING = {"": "text", "html": "html", "xml": "html"}  # xml: read by the HTML text layer (docs)


def message(status: int, text: str) -> web.Response:
    return json_response({"message": text}, status)


def deepl_errors(handler):
    """A DeepL handler whose exceptions are answered in DeepL's shape: 400 bad parameter, 403 key,
    404 unknown glossary or document, 413 too large, 429 overloaded, 503 draining or restarting,
    504 deadline; anything unforeseen a 500 whose details go to the log only."""

    @functools.wraps(handler)
    async def answer(*args) -> web.StreamResponse:  # (self, request) of a handler method
        request = args[-1]
        try:
            return await handler(*args)
        except asyncio.CancelledError:
            raise
        except web.HTTPException as error:  # aiohttp's own: a body over the size limit
            text = reason(error.status)
            if error.status == 413:  # aiohttp's text says the sizes; the flags say what to raise
                text = f"{error.text} ({BODY_LIMITS})"
            return message(error.status, text)
        except GlossaryTooLarge as error:
            return message(413, str(error))
        except GlossaryStorageError as error:  # the server's directory: its message says what to fix
            return message(500, str(error))
        except Exception as error:
            status, code, text = http_error_for(error)
            if status == 500:
                log.error("http %s %s failed", request.method, request.path, exc_info=error)
                text = "Internal server error"
            if isinstance(error, QuotaExceeded):
                status = 456  # what DeepL answers, and its clients read as "quota exceeded"
            response = message(status, text)
            if isinstance(error, QueueFull):
                response.headers["Retry-After"] = "1"
            if isinstance(error, RateLimited):
                response.headers["Retry-After"] = str(math.ceil(error.retry_after))
            return response

    return answer


class Values:
    """A request's parameters, each a list of its values (a JSON list is its values)."""

    def __init__(self, items: Mapping[str, list], listed: frozenset[str] = frozenset()):
        self.items = items
        self.listed = listed  # the names whose JSON value was a list (a list of one is still a list)

    def __contains__(self, name: str) -> bool:
        return name in self.items

    def all(self, name: str) -> list:
        return self.items.get(name, [])

    def one(self, name: str, default=None):
        """The parameter's value (a string, or a JSON scalar); a list where one value belongs is 400."""
        values = self.all(name)
        if name in self.listed:
            raise InvalidInput(f"Value for '{name}' not supported: one value expected, not a list")
        if not values:
            return default
        if len(values) > 1 or isinstance(values[0], (list, dict)):
            raise InvalidInput(f"Value for '{name}' not supported: one value expected")
        return values[0]

    def text(self, name: str, default: str = "") -> str:
        value = self.one(name, default)
        if not isinstance(value, str):
            raise InvalidInput(f"Value for '{name}' not supported: a string expected")
        return value

    def flag(self, name: str) -> bool | None:
        """DeepL's booleans: 0/1, true/false (a form's text or JSON's)."""
        value = self.one(name)
        if value is None or value == "":
            return None
        if value in (True, False, 0, 1):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("0", "1", "true", "false"):
            return value.lower() in ("1", "true")
        raise InvalidInput(f"Value for '{name}' not supported: 0 or 1 expected")


async def read(request: web.Request) -> Values:
    """The request's parameters (see the module docstring)."""
    if request.content_type == "application/json":
        body = await read_values(request)
        listed = frozenset(k for k, v in body.items() if isinstance(v, list))
        items = {k: (list(v) if isinstance(v, list) else [v]) for k, v in body.items()}
    else:
        listed, items = frozenset(), {}
        for key, value in (await _form(request)).items():
            items.setdefault(key, []).append(value)
    for key in set(request.query):  # the query string's values come first, as DeepL lists them
        items[key] = list(request.query.getall(key)) + items.get(key, [])
    return Values(items, listed)


async def _form(request: web.Request) -> MultiDict:
    """A form body's fields (urlencoded or multipart; none without one)."""
    try:
        if request.method in request.POST_METHODS:
            return await request.post()
        if request.body_exists and request.content_type == "application/x-www-form-urlencoded":
            # a GET with a form body: what the deepl client sends for /v2/languages?type=target
            return MultiDict(parse_qsl(await request.text(), keep_blank_values=True))
        return MultiDict()
    except FORM_ERRORS as error:
        raise InvalidInput(unreadable(request, error)) from None


async def authorize(request: web.Request, gate: Gate) -> Caller:
    """The caller of a DeepL request's key (see the module docstring); 403 when it is missing or wrong."""
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    given = key.strip() if scheme in ("DeepL-Auth-Key", "Bearer") else request.query.get("auth_key", "")
    if not given and request.method == "POST" and request.content_type == "application/x-www-form-urlencoded":
        given = (await read(request)).one("auth_key", "")  # the form is read once: aiohttp keeps it
    return await gate.caller(given)


def served(code: object, name: str, known: frozenset[str]) -> str:
    """The served code a caller's DeepL code means; 400 in DeepL's words naming the served ones."""
    if not isinstance(code, str) or not code:
        raise InvalidInput(f"Value for '{name}' not supported.")
    try:
        return served_code(code, known)
    except InvalidInput as error:
        raise InvalidInput(f"Value for '{name}' not supported: {error}") from None


def base(code: str) -> str:
    """A served code's language subtag, as DeepL's glossaries and sources have it (`zh-Hant` -> `zh`)."""
    return code.split("-", 1)[0].lower()


def source_code(code: str) -> str:
    """A served source as DeepL lists sources: `EN`, `ZH` (no region, no script)."""
    return base(code).upper()


def target_codes(code: str) -> tuple[str, ...]:
    """A served target as DeepL lists targets: `ES`, `ZH-HANT`, `EN-GB` and `EN-US` for `en`."""
    return REGIONAL_TARGETS.get(code.lower(), (code.upper(),))


def check_formality(value: object) -> None:
    """A `formality` DeepL knows (`default`, `more`, `less`, `prefer_more`, `prefer_less`)."""
    if value is None or value in FORMALITY_ANY_TARGET or value in FORMALITY_SUPPORTED_ONLY:
        return
    known = ", ".join((*FORMALITY_ANY_TARGET, *FORMALITY_SUPPORTED_ONLY))
    raise InvalidInput(f"Value for 'formality' not supported (supported: {known}).")


def register_of(value: object, registers: Collection[str]) -> str:
    """The register (options.register_of) of a checked `formality` for a model that delivers
    `registers`: `more`/`less` the model lacks are refused as DeepL refuses them for a target without
    formality, the `prefer_` ones then translate as usual, as `default` always does."""
    try:
        return options.register_of(str(value) if value is not None else "", registers)
    except InvalidInput:
        raise InvalidInput("'formality' is not supported for given 'target_lang'.") from None


def tag_names(values: Values, name: str) -> list[str]:
    """A list of tag names (DeepL's `ignore_tags`: a JSON list, or comma-separated values)."""
    given = [v for v in values.all(name) if v is not None]  # null: none
    if not all(isinstance(v, str) for v in given):
        raise InvalidInput(f"Value for '{name}' not supported: tag names expected.")
    names = [n.strip() for v in given for n in v.split(",")]
    if any(not _TAG.fullmatch(n) for n in names if n) or len(values.all(name)) > 1000:
        raise InvalidInput(f"Value for '{name}' not supported: tag names expected.")
    return [n for n in names if n]


def ignore(texts: list[str], tags: list[str]) -> tuple[list[str], Callable[[str], str]]:
    """The texts with every element named in `tags` marked `translate="no"` (the HTML text layer
    then keeps it whole, content included), and what takes the marks out of a translation. A
    mark is unique to the call and added last in the start tag, so it wins over the element's own."""
    if not tags:
        return texts, lambda text: text
    mark = f' translate="no" data-{secrets.token_hex(8)}=""'
    start = re.compile(r"<(?:" + "|".join(map(re.escape, tags)) + r")(?=[\s/>])[^<>]*?(?=/?>)", re.IGNORECASE)
    return [start.sub(lambda m: m.group(0) + mark, t) for t in texts], lambda text: text.replace(mark, "")


def text_format(values: Values) -> str:
    """The text layer's format of `tag_handling` (none: plain text, html and xml: markup kept)."""
    value = values.one("tag_handling")
    value = "" if value is None else value  # null: absent
    if not isinstance(value, str) or value not in TAG_HANDLING:
        raise InvalidInput("Value for 'tag_handling' not supported (supported: html, xml).")
    split = values.one("split_sentences")
    if split is not None and str(split) not in SPLIT_SENTENCES:
        raise InvalidInput(f"Value for 'split_sentences' not supported (supported: {', '.join(SPLIT_SENTENCES)}).")
    values.flag("preserve_formatting")  # checked; the text layer always keeps the text's formatting
    check_formality(values.one("formality"))
    return TAG_HANDLING[value]
