"""The LibreTranslate-compatible HTTP API (`traductor serve --http-port PORT`).

It runs in the gRPC server's process and event loop and translates through the same service
function as gRPC `Translate` (`service/translate.py`), so both protocols share the engine, the
continuous batch, the limits, the token and the TLS certificate, and give the same text.

    app.py       aiohttp server, middleware (errors, CORS, metrics, log line), TLS
    handlers.py  the endpoints: /translate, /translate_stream, /detect, /languages, /frontend/settings
    files.py     /translate_file and /download_file: translation files (traductor_client.files)
    page.py      the translation page, GET / (page/: HTML, CSS, JavaScript)
    params.py    reading and checking a request's parameters (JSON, form, query string)
    statuses.py  errors -> HTTP statuses, through interceptors.status_for
    detect.py    the honest English-only detector

See docs/http-api.md and docs/http-api.yaml (OpenAPI).
"""

from __future__ import annotations

from ..async_engine import AsyncEngine
from ..metrics import Metrics
from ..settings import Settings
from .app import HttpServer
from .handlers import HttpApi
from .params import Languages


async def start_http(
    engine: AsyncEngine, settings: Settings, metrics: Metrics, source: str, target: str, model: str = ""
) -> HttpServer:
    """Start the HTTP API on settings.host:settings.http_port; returns the running server."""
    server = HttpServer(HttpApi(engine, settings, Languages(source, target), model), metrics)
    await server.start()
    return server


__all__ = ["HttpApi", "HttpServer", "Languages", "start_http"]
