"""The parameters of a LibreTranslate request, read and checked the way LibreTranslate reads them.

Where they come from:
- a JSON body (`Content-Type: application/json`): the object's fields; `q` may be a string or
  a list of strings (what Weblate and Mastodon send);
- otherwise the query string and a form body (urlencoded or multipart) together, the query
  string winning (what libretranslatepy sends as a form, deep-translator as a query string).

Every problem is an `InvalidInput` whose message follows LibreTranslate's wording ("Invalid
request: missing q parameter", "xx is not supported"), so clients that show the error to a
user show something familiar; a body that cannot be read at all (bytes that are not a form,
a multipart body without its boundary) is one too, never a server error. A parameter no endpoint
reads (`modle`, say) is refused with the list of those it reads, so a typo is not silently
ignored; `model` picks one of the served models by name (as gRPC's `model`), so two models of
one pair can both be reached.

Language codes are read by the language module (`languages.CodeTable`, the same rules as gRPC
and the CLIs): any case (`ES`), 639-3 (`spa`), a region or script (`es-ES`, `pt_BR`), a model's
own form (`spa_Latn`); an unknown code's refusal lists the served ones. This module knows
nothing about the engine or aiohttp's server machinery beyond reading a request.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass

from aiohttp import ClientError, web
from aiohttp.http_exceptions import HttpProcessingError

from ...errors import InvalidInput
from ...languages import CodeTable
from ...languages import name as language_name
from ...options import DecodingOptions, register_of

FORMATS = ("text", "html")
# the parameters each endpoint reads; `secret` is LibreTranslate's own web page's, accepted and unused;
# `glossary` and `glossary_id` are this service's (glossary_params.py), and so is `formality` (DeepL's
# values: `register`), read with them
_GLOSSARY = ("glossary", "glossary_id", "formality")
PARAMETERS = {
    "translate": ("q", "source", "target", "format", "alternatives", "model", *_GLOSSARY, "api_key", "secret"),
    "detect": ("q", "api_key", "secret"),
    "translate_file": ("file", "source", "target", "model", *_GLOSSARY, "api_key", "secret"),
}


class SourceNotServed(InvalidInput):
    """A served language no model translates from, given as the source (`check_pair`)."""


@dataclass(frozen=True)
class TranslateParams:
    texts: list[str]  # q as a list (a string q is a list of one)
    batch: bool  # q came as a list: the answer's translatedText is a list too
    auto: bool  # source was "auto": the answer carries detectedLanguage
    source: str  # a language code as the caller wrote it (checked: some model translates it), or "auto"
    target: str
    format: str
    alternatives: int
    model: str = ""  # a served model's name; "": chosen by the languages


def _is_json(request: web.Request) -> bool:
    kind = request.content_type
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def read_values(request: web.Request) -> Mapping[str, object]:
    """The request's parameters as a mapping (JSON object, or query string over form fields)."""
    if _is_json(request):
        try:
            body = json.loads(await request.text())
        except (ValueError, LookupError, RecursionError):  # bad JSON, bad UTF-8, unknown charset, [[[[...
            raise InvalidInput("Invalid JSON format") from None
        if not isinstance(body, dict):
            raise InvalidInput("Invalid JSON format")
        try:
            json.dumps(body, ensure_ascii=False).encode()
        except UnicodeEncodeError:  # "\ud800": JSON allows it, no text can hold it
            raise InvalidInput("Invalid JSON format (a string holds a lone surrogate, not text)") from None
        return body
    values: dict[str, object] = {}
    if request.method == "POST" and request.body_exists:
        try:
            form = await request.post()
        except FORM_ERRORS as error:
            raise InvalidInput(f"Invalid request: {unreadable(request, error)}") from None
        values.update((k, v) for k, v in form.items() if k not in values)
    values.update(request.query)  # the query string wins, as in Flask's request.values
    return values


# what aiohttp's form parsers raise on a body that is not the form it says (issue 37), and on a
# multipart part whose headers hold bytes no header may hold (InvalidHeader, issue 57)
FORM_ERRORS = (ValueError, AssertionError, LookupError, ClientError, HttpProcessingError)


def unreadable(request: web.Request, error: Exception) -> str:
    """Why a form body could not be read, for a 400 (one line: aiohttp's own text of a bad header)."""
    detail = error.message if isinstance(error, HttpProcessingError) else error
    return f"the body is not a readable {request.content_type or 'no Content-Type'} form ({detail})"


def check_names(values: Mapping[str, object], endpoint: str) -> None:
    """Refuse a parameter the endpoint does not read, naming those it does."""
    known = PARAMETERS[endpoint]
    unknown = sorted(str(k) for k in values if k not in known)
    if unknown:
        raise InvalidInput(f"Invalid request: unknown parameter {', '.join(unknown)} (known: {', '.join(known)})")


def api_key(values: Mapping[str, object], request: web.Request) -> str:
    """The key a LibreTranslate call sends: `api_key` (JSON, form or query string), else an
    `Authorization: Bearer` header; "" when none (the gate, service/keys/gate.py, checks it)."""
    given = values.get("api_key")
    if given is not None and not isinstance(given, str):
        raise InvalidInput("Invalid request: api_key must be a string")
    if given:
        return given
    header = request.headers.get("Authorization", "")
    return header[len("Bearer ") :].strip() if header.startswith("Bearer ") else ""


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


def known_codes(pairs: dict[str, list[str]]) -> frozenset[str]:
    """Every code of `pairs` (Registry.languages()), sources and targets."""
    return frozenset(pairs).union(*pairs.values())


@functools.lru_cache(maxsize=8)
def served_table(known: frozenset[str]) -> CodeTable:
    """The served codes' table, made once per set of served codes (an NLLB has 202)."""
    return CodeTable(sorted(known))


def served_code(code: str, known: frozenset[str]) -> str:
    """The served code (as /languages shows it) a caller's code means, in any form the language
    module reads (`ES`, `es-ES`, `spa`, NLLB's `spa_Latn`); raises naming the served ones."""
    found = served_table(frozenset(known)).own(code)
    if found is None:
        raise InvalidInput(f"{code} is not supported (supported: {', '.join(sorted(known))})")
    return found


def check_pair(source: str, target: str, pairs: dict[str, list[str]]) -> tuple[str, str]:
    """A model must translate the pair (`pairs`: source -> targets, Registry.languages(); "auto":
    any source), else LibreTranslate's refusals: a code no model knows, a served code no model
    translates from (naming the sources), then a pair none translates. Returns the pair as the
    caller wrote it ("auto" whatever its case): the registry routes by it, so that a model's own
    codes (NLLB's `fra_Latn`) reach that model."""
    known = known_codes(pairs)
    auto = source.casefold() == "auto"
    served_source = "auto" if auto else served_code(source, known)
    served_target = served_code(target, known)
    if not auto and served_source not in pairs:  # served as a target only: no model reads it
        raise SourceNotServed(
            f"{language_name(served_source)} ({served_source}) is not available as a source language "
            f"(sources: {', '.join(pairs)})"
        )
    sources = list(pairs) if auto else [served_source]
    if not any(served_target in pairs.get(s, []) for s in sources):
        src = sources[0] if sources else served_source
        raise InvalidInput(
            f"{language_name(served_target)} ({served_target}) is not available as a target language "
            f"from {language_name(src)} ({src})"
        )
    return ("auto" if auto else source), target


ALTERNATIVES_LIMIT = 3  # LibreTranslate's default --alternatives-limit


def _alternatives(value: object) -> int:
    if value is None or value == "":
        return 0
    try:
        if isinstance(value, bool) or not isinstance(value, (int, str)):  # a JSON number, or a form's text
            raise TypeError(value)
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput("Invalid request: alternatives parameter is not a number") from None
    if count < 0:
        raise InvalidInput("Invalid request: alternatives parameter must be >= 0")
    if count > ALTERNATIVES_LIMIT:
        raise InvalidInput(f"Invalid request: alternatives parameter must be <= {ALTERNATIVES_LIMIT}")
    return count


def model_name(values: Mapping[str, object]) -> str:
    model = values.get("model")
    model = "" if model is None else model
    if not isinstance(model, str):
        raise InvalidInput("Invalid request: model must be a served model's name (see /frontend/settings)")
    return model


def languages(values: Mapping[str, object], pairs: dict[str, list[str]]) -> tuple[str, str]:
    """The checked (source, target) of a request (`check_pair`)."""
    source, target = _required(values, "source"), _required(values, "target")
    if not isinstance(source, str) or not isinstance(target, str):
        raise InvalidInput("Invalid request: source and target must be language codes")
    return check_pair(source, target, pairs)


def translate_params(values: Mapping[str, object], pairs: dict[str, list[str]]) -> TranslateParams:
    """Check a /translate request's parameters (everything but the key and the texts' sizes)."""
    check_names(values, "translate")
    texts, batch = _texts(_required(values, "q"))
    source, target = languages(values, pairs)
    fmt = values.get("format")
    fmt = "text" if fmt in (None, "") else fmt
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise InvalidInput(f"{fmt} format is not supported (supported: {', '.join(FORMATS)})")
    alternatives = _alternatives(values.get("alternatives"))
    return TranslateParams(texts, batch, source == "auto", source, target, fmt, alternatives, model_name(values))


def register(values: Mapping[str, object], model) -> str:
    """The register a call's `formality` asks of its model (options.register_of: DeepL's values)."""
    formality = values.get("formality")
    formality = "" if formality is None else formality
    if not isinstance(formality, str):
        raise InvalidInput("Invalid request: formality must be a string")
    return register_of(formality, model.registers)


def decoding_options(values: Mapping[str, object], model, source: str, target: str, alternatives: int = 0):
    """A call's decoding options: the defaults (greedy, automatic length) with its pair, its formality
    (`register`) and the alternatives it asks."""
    return DecodingOptions(
        target_language=target, source_language=source, register=register(values, model), alternatives=alternatives
    )


def detect_text(values: Mapping[str, object]) -> str:
    check_names(values, "detect")
    q = _required(values, "q")
    if not isinstance(q, str):
        raise InvalidInput("Invalid request: q must be a string")
    return q
