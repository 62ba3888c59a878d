"""The parameters of a LibreTranslate request, read and checked the way LibreTranslate reads them.

Where they come from:
- a JSON body (`Content-Type: application/json`): the object's fields; `q` may be a string or
  a list of strings (what Weblate and Mastodon send);
- otherwise the query string and a form body (urlencoded or multipart) together, the query
  string winning (what libretranslatepy sends as a form, deep-translator as a query string).

Every problem is an `InvalidInput` whose message follows LibreTranslate's wording ("Invalid
request: missing q parameter", "xx is not supported"), so clients that show the error to a
user show something familiar. This module knows nothing about the engine or aiohttp's server
machinery beyond reading a request.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass

from aiohttp import web

from ...errors import InvalidInput, Unauthenticated
from ...languages import name as language_name

FORMATS = ("text", "html")


@dataclass(frozen=True)
class TranslateParams:
    texts: list[str]  # q as a list (a string q is a list of one)
    batch: bool  # q came as a list: the answer's translatedText is a list too
    auto: bool  # source was "auto": the answer carries detectedLanguage
    source: str  # a language code, or "auto"
    target: str
    format: str
    alternatives: int


def _is_json(request: web.Request) -> bool:
    kind = request.content_type
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def read_values(request: web.Request) -> Mapping[str, object]:
    """The request's parameters as a mapping (JSON object, or query string over form fields)."""
    if _is_json(request):
        try:
            body = json.loads(await request.text())
        except ValueError:  # bad JSON or bad UTF-8
            raise InvalidInput("Invalid JSON format") from None
        if not isinstance(body, dict):
            raise InvalidInput("Invalid JSON format")
        return body
    values: dict[str, object] = {}
    if request.method == "POST" and request.body_exists:
        form = await request.post()
        values.update((k, v) for k, v in form.items() if k not in values)
    values.update(request.query)  # the query string wins, as in Flask's request.values
    return values


def check_key(values: Mapping[str, object], request: web.Request, token: str) -> None:
    """With a token configured, `api_key` (or `Authorization: Bearer`) must equal it."""
    if not token:
        return
    given = values.get("api_key")
    if not isinstance(given, str) or not given:
        header = request.headers.get("Authorization", "")
        given = header[len("Bearer ") :] if header.startswith("Bearer ") else ""
    if not given or not hmac.compare_digest(given.encode(), token.encode()):
        raise Unauthenticated("Invalid API key")


def _required(values: Mapping[str, object], name: str) -> object:
    value = values.get(name)
    if value is None or value == "" or value == []:
        raise InvalidInput(f"Invalid request: missing {name} parameter")
    return value


def _texts(q: object) -> tuple[list[str], bool]:
    if isinstance(q, str):
        return [q], False
    if isinstance(q, list) and all(isinstance(t, str) for t in q):
        return list(q), True
    raise InvalidInput("Invalid request: q must be a string or a list of strings")


def check_pair(source: str, target: str, pairs: dict[str, list[str]]) -> None:
    """A model must translate the pair (`pairs`: source -> targets, Registry.languages(); "auto":
    any source), else LibreTranslate's refusals: a code no model knows, then a pair none translates."""
    known = set(pairs) | {t for targets in pairs.values() for t in targets}
    for code in (source, target):
        if code not in known and not (code == source == "auto"):
            raise InvalidInput(f"{code} is not supported")
    sources = list(pairs) if source == "auto" else [source]
    if not any(target in pairs.get(s, []) for s in sources):
        src = sources[0] if sources else source
        raise InvalidInput(
            f"{language_name(target)} ({target}) is not available as a target language "
            f"from {language_name(src)} ({src})"
        )


def _alternatives(value: object) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        raise InvalidInput("Invalid request: alternatives parameter is not a number") from None


def translate_params(values: Mapping[str, object], pairs: dict[str, list[str]]) -> TranslateParams:
    """Check a /translate request's parameters (everything but the key and the texts' sizes)."""
    texts, batch = _texts(_required(values, "q"))
    source, target = _required(values, "source"), _required(values, "target")
    if not isinstance(source, str) or not isinstance(target, str):
        raise InvalidInput("Invalid request: source and target must be language codes")
    check_pair(source, target, pairs)
    fmt = values.get("format") or "text"
    if fmt not in FORMATS:
        raise InvalidInput(f"{fmt} format is not supported")
    alternatives = _alternatives(values.get("alternatives"))
    return TranslateParams(texts, batch, source == "auto", source, target, str(fmt), alternatives)


def detect_text(values: Mapping[str, object]) -> str:
    q = _required(values, "q")
    if not isinstance(q, str):
        raise InvalidInput("Invalid request: q must be a string")
    return q
