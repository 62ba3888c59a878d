"""The request messages both clients send: a text's or a batch's ``TranslateRequest`` /
``TranslateBatchRequest`` from a call's keyword arguments. The routing fields (model, languages),
the glossary and the formality are request fields; every other keyword is a decoding option
(:mod:`traductor_client.options`). Bad values raise ``TypeError``/``ValueError`` here, before
anything is sent.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from traductor_client import glossary
from traductor_client import options as options_mod
from traductor_client.v1 import translator_pb2

FORMATS = {"text": translator_pb2.FORMAT_TEXT, "html": translator_pb2.FORMAT_HTML}

# Keyword arguments of translate(), translate_batch() and stream_events() that pick the model
# rather than decoding options: a served model's name, and the languages (ISO 639-1 codes). Unset:
# the server's default model (or the model of the pair given). `glossary_id` (a stored glossary) and
# `glossary` (a mapping or (source, target) pairs) are request fields too (glossary.request_fields),
# and so is `formality`.
ROUTE_FIELDS = ("model", "source_language", "target_language")

#: The values of ``formality`` (DeepL's): "more"/"less" need a model trained with register tags
#: (``ModelInfo.formality``; the server refuses them with INVALID_ARGUMENT otherwise), the
#: "prefer_" ones fall back to the model's default register where it has none.
FORMALITIES = ("default", "more", "less", "prefer_more", "prefer_less")


def _format(name: str) -> int:
    if name not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {name!r}")
    return FORMATS[name]


def _route(options: Dict[str, Any]) -> Dict[str, str]:
    """Take the routing fields out of `options` (the rest are decoding options)."""
    route = {}
    for name in ROUTE_FIELDS:
        value = options.pop(name, None)
        if value is None:
            continue
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
        route[name] = value
    return route


def _formality(options: Dict[str, Any]) -> Dict[str, str]:
    """Take `formality` out of `options`, as the request field (the server checks the value)."""
    value = options.pop("formality", None)
    if value is None:
        return {}
    if not isinstance(value, str):
        raise TypeError(f"formality must be a str, not {type(value).__name__}")
    return {"formality": value}


def _request_fields(options: Dict[str, Any]) -> Dict[str, Any]:
    """The request fields that are not decoding options, taken out of `options`."""
    return {**_route(options), **glossary.request_fields(options), **_formality(options)}


# How long the server may hold a stream's message (each but the first) for the tokens that follow:
# a quarter of the messages at a busy server, later events by at most this much (docs/client.md).
STREAM_DELAY_MS = 50
MAX_STREAM_DELAY_MS = 1000  # the most a server holds one (StreamOptions.max_delay_ms)


def translate_request(
    text: str, request_id: Optional[str], options: Dict[str, Any], format: str = "text"
) -> translator_pb2.TranslateRequest:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    options = dict(options)
    route = _request_fields(options)
    return translator_pb2.TranslateRequest(
        text=text,
        options=options_mod.to_pb(options),
        request_id=request_id or "",
        format=_format(format),
        **route,
    )


def batch_request(
    texts: Iterable[str], request_id: Optional[str], options: Dict[str, Any], format: str = "text"
) -> translator_pb2.TranslateBatchRequest:
    if isinstance(texts, str):  # a str is iterable too, but means a caller mistake here
        raise TypeError("texts must be an iterable of str, not a single str")
    texts = list(texts)
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must all be str")
    options = dict(options)
    route = _request_fields(options)
    return translator_pb2.TranslateBatchRequest(
        texts=texts,
        options=options_mod.to_pb(options),
        request_id=request_id or "",
        format=_format(format),
        **route,
    )
