"""The HTTP API tests' helpers: a small HTTP caller built on the standard library
(never a proxy, never the network: 127.0.0.1 only), and the HTTP request counter."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)


def call(
    url: str,
    method: str = "GET",
    *,
    json_body=None,
    form=None,
    query=None,
    headers=None,
    data: bytes | None = None,
    context: ssl.SSLContext | None = None,
    timeout: float = 60,
) -> Answer:
    """One HTTP request; a 4xx/5xx answer is returned like any other (no exception). `context`:
    the client's TLS context for an https URL; `timeout`: seconds to wait for the answer."""
    headers = dict(headers or {})
    if json_body is not None:
        data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if query:
        url += "?" + urllib.parse.urlencode(query)
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    handlers = [urllib.request.ProxyHandler({})]  # never a proxy
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=timeout) as r:
            return Answer(r.status, {k.lower(): v for k, v in r.headers.items()}, r.read())
    except urllib.error.HTTPError as e:
        return Answer(e.code, {k.lower(): v for k, v in e.headers.items()}, e.read())


def http_requests(server, rpc: str, code: str) -> float:
    return server.metric("traductor_requests_total", {"protocol": "http", "rpc": rpc, "code": code})


def multipart(fields: dict, files: dict) -> tuple[bytes, dict]:
    """A multipart/form-data body (fields, and files as name -> (filename, bytes))."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data) in files.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
        parts.append(head.encode() + b"Content-Type: application/octet-stream\r\n\r\n" + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}
