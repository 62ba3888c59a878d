"""tests/compose/callcount.py's HTTP load and /metrics scraper (the stack checks' side load while
replicas stop: issue 47), against a local HTTP server on loopback."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "compose"))
import callcount  # noqa: E402


class Answers(http.server.BaseHTTPRequestHandler):
    """Answers from the server's script, one per request; the last one sets `stop`."""

    protocol_version = "HTTP/1.1"  # keep-alive, as the HTTP API and /metrics serve

    def log_message(self, *args) -> None:
        pass

    def _answer(self) -> None:
        server = self.server
        with server.lock:
            status, body = server.script.pop(0)
            server.seen.append((self.command, self.path, self.client_address[1]))
            if not server.script:
                server.stop.set()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.server.bodies.append(json.loads(self.rfile.read(length)))
        self._answer()

    def do_GET(self) -> None:
        self._answer()


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    httpd.lock, httpd.seen, httpd.bodies, httpd.stop = threading.Lock(), [], [], threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_http_worker_counts_each_answer_by_status(server):
    ok = json.dumps({"translatedText": "Abrir"}).encode()
    server.script = [(200, ok), (503, b'{"error": "draining"}'), (200, json.dumps({"translatedText": ""}).encode())]
    rec = callcount.Recorder()
    callcount.http_worker(
        f"http://127.0.0.1:{server.server_port}", "secret", ["Open", "Save"], 0, server.stop, rec, 5.0
    )
    assert rec.counts == {"OK": 1, "HTTP 503": 1, "EMPTY": 1}
    assert [kind for kind, *_ in rec.calls] == ["h"] * 3
    assert rec.failures[0]["details"] == '{"error": "draining"}'
    assert server.bodies[0] == {"q": "Open", "source": "en", "target": "es", "api_key": "secret"}
    assert [path for _, path, _ in server.seen] == ["/translate"] * 3


def test_scraper_keeps_its_connection_and_reopens_it_after_an_error(server):
    page = b"# TYPE traductor_requests_total counter\ntraductor_requests_total 3\n"
    server.script = [(200, page), (200, page), (500, b"boom"), (200, page)]
    rec = callcount.Recorder()
    callcount.scrape_worker(f"http://127.0.0.1:{server.server_port}/metrics", 0.001, server.stop, rec, 5.0)
    assert rec.counts == {"OK": 3, "HTTP 500": 1}
    assert {path for _, path, _ in server.seen} == {"/metrics"}
    assert len({port for *_, port in server.seen}) == 1  # one kept-alive connection, as Prometheus


def test_scraper_counts_a_refused_connection(server):
    port = server.server_port
    server.shutdown()
    server.server_close()  # nothing listens there now
    stop = threading.Event()

    class StopAfterTwo(callcount.Recorder):
        def add(self, *args, **kwargs):
            super().add(*args, **kwargs)
            if sum(self.counts.values()) == 2:
                stop.set()

    rec = StopAfterTwo()
    callcount.scrape_worker(f"http://127.0.0.1:{port}/metrics", 0.001, stop, rec, 5.0)
    assert rec.counts == {"ConnectionRefusedError": 2}
