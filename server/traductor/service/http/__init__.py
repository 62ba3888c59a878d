"""The LibreTranslate-compatible HTTP API (`traductor serve --http-port PORT`).

It runs in the gRPC server's process and event loop and translates through the same service
functions as gRPC `Translate` (`service/pipeline`) with the same models (`service/registry.py`:
`source`/`target` pick the model), so both protocols share the engines, the continuous batch, the
limits, the key check (service/keys) and the TLS certificate, and give the same text.

    app.py       aiohttp server, middleware (errors, CORS, metrics, log line), TLS
    api.py       what every endpoint of both APIs reads: the models' routing, source detection, the
                 key gate (HttpApi), a JSON answer, the request's id
    handlers.py  the endpoints: /translate, /translate_stream, /detect, /languages, /frontend/settings
    files.py     /translate_file and /download_file: translation files (traductor_client.files)
    deepl*.py    DeepL's API v2 under /v2/ (docs/deepl-api.md): text, languages, usage, glossaries,
                 documents
    page.py      the translation page, GET / (page/: HTML, CSS, JavaScript)
    params.py    reading and checking a request's parameters (JSON, form, query string)
    statuses.py  errors -> HTTP statuses, through interceptors.status_for
    detect.py    the honest English-only detector

See docs/http-api.md and docs/http-api.yaml (OpenAPI).
"""

from __future__ import annotations

from ..glossaries import GlossaryStore
from ..keys.gate import Gate
from ..metrics import Metrics
from ..registry import Registry
from ..settings import Settings
from .api import HttpApi
from .app import HttpServer


async def start_http(
    registry: Registry,
    settings: Settings,
    metrics: Metrics,
    glossaries: GlossaryStore | None = None,
    gate: Gate | None = None,
) -> HttpServer:
    """Start the HTTP API on settings.host:settings.http_port; returns the running server."""
    server = HttpServer(HttpApi(registry, settings, glossaries, gate), metrics)
    await server.start()
    return server


__all__ = ["HttpApi", "HttpServer", "start_http"]
