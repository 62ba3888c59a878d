"""The translation page: `GET /` on the HTTP port, plain HTML, CSS and JavaScript from the package
(page/), no CDN, no build step. It is a client of the API beside it like any other: it reads
/frontend/settings and /languages, streams /translate_stream and uploads to /translate_file, with the
caller's key where the server asks for one (page/key.js).

The files are read once at start; anything not in `FILES` is a 404, so no path from a request
ever reaches the file system."""

from __future__ import annotations

from importlib import resources

from aiohttp import web

FILES = {
    "index.html": "text/html",
    "page.css": "text/css",
    "page.js": "text/javascript",
    "glossary.js": "text/javascript",
    "link.js": "text/javascript",
    "key.js": "text/javascript",
    "files.js": "text/javascript",
}
# the page's own files only; a strict policy makes an injected script or remote resource inert
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self' blob:; img-src 'self' data:; object-src 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def _load() -> dict[str, bytes]:
    folder = resources.files(__package__).joinpath("page")
    return {name: folder.joinpath(name).read_bytes() for name in FILES}


def routes() -> list[web.RouteDef]:
    contents = _load()

    def answer(name: str) -> web.Response:
        return web.Response(body=contents[name], content_type=FILES[name], charset="utf-8", headers=SECURITY_HEADERS)

    async def index(request: web.Request) -> web.Response:
        return answer("index.html")

    async def asset(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in contents or name == "index.html":
            raise web.HTTPNotFound()
        return answer(name)

    return [web.get("/", index), web.get("/page/{name}", asset)]
