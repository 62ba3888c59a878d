"""A client load that records every call's status, for the restart and kill checks of run.sh.

    python3 callcount.py --target lb:50051 --concurrency 4 --name restarts --dir /reports

It runs in the client image (traductor-loadtest: the client package only) or wherever the client
library is installed. ``--concurrency`` threads share one channel and call in a loop: two unary
``Translate`` calls, then one ``TranslateStream`` read to its end, over the client's own sample
sentences. Nothing is retried (``NO_RETRY``): every failure the balancer lets through is counted.
With ``--http URL``, ``--http-concurrency`` more threads POST the same sentences to URL/translate
(the LibreTranslate-compatible HTTP API, ``api_key`` from ``--token`` when given), kind ``h``:
OK for a 200 with a translation, ``HTTP <status>`` or the exception's name otherwise. With
``--scrape URL``, one more thread GETs URL (a /metrics page) every ``--scrape-interval`` seconds
on one kept-alive connection, as Prometheus does, kind ``m`` (counted, and checked like the
others: a scrape must not fail while a replica stops).

While it runs, ``DIR/NAME.progress.json`` is rewritten every half second (calls so far per
status code, and the time of the last OK call), so that run.sh can wait for conditions instead
of sleeping. It stops when ``DIR/NAME.stop`` appears (or after ``--max-seconds``), lets the calls
in flight finish and writes ``DIR/NAME.json``: counts per kind and status code, and every call
as ``[kind, start, end, code]`` (kind ``u`` unary or ``s`` stream; times in seconds since the
epoch, the host's clock: containers share it), with the details of the failed ones (for a
stream, how many messages it had received before it failed).

What it does not know: which replica answered a call (the balancer's access log and each
replica's own /metrics say that).
"""

from __future__ import annotations

import argparse
import collections
import http.client
import itertools
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from traductor_client import TranslatorClient
from traductor_client.errors import TranslatorError
from traductor_client.loadtest.inputs import load_texts
from traductor_client.retry import NO_RETRY


class Recorder:
    """Every finished call, and the counts the progress file shows."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[list] = []
        self.failures: list[dict] = []
        self.counts: collections.Counter = collections.Counter()
        self.last_ok = 0.0

    def add(self, kind: str, start: float, code: str, details: str = "", received: int = 0) -> None:
        end = time.time()
        with self.lock:
            self.calls.append([kind, round(start, 3), round(end, 3), code])
            self.counts[code] += 1
            if code == "OK":
                self.last_ok = end
            else:
                self.failures.append(
                    {
                        "kind": kind,
                        "start": start,
                        "end": end,
                        "code": code,
                        "details": details[:300],
                        "received": received,
                    }
                )

    def snapshot(self) -> dict:
        with self.lock:
            return {
                "time": time.time(),
                "calls": sum(self.counts.values()),
                "by_code": dict(self.counts),
                "last_ok": self.last_ok,
            }


def worker(
    client: TranslatorClient, texts: list[str], offset: int, stop: threading.Event, rec: Recorder, timeout: float
) -> None:
    for i in itertools.count(offset):
        if stop.is_set():
            return
        text, kind, start, received = texts[i % len(texts)], "s" if i % 3 == 2 else "u", time.time(), 0
        try:
            if kind == "u":
                client.translate(text, timeout=timeout)
            else:
                for _ in client.stream_events(text, timeout=timeout):
                    received += 1
        except TranslatorError as error:
            rec.add(kind, start, error.code_name, error.details, received)
        except Exception as error:  # noqa: BLE001 - anything else is a failure too, named by its type
            rec.add(kind, start, type(error).__name__, str(error), received)
        else:
            rec.add(kind, start, "OK")


def http_worker(
    url: str, token: str | None, texts: list[str], offset: int, stop: threading.Event, rec: Recorder, timeout: float
) -> None:
    """POST /translate in a loop (a new connection each time, as a browser or curl would)."""
    for i in itertools.count(offset):
        if stop.is_set():
            return
        body = {"q": texts[i % len(texts)], "source": "en", "target": "es"}
        if token:
            body["api_key"] = token
        request = urllib.request.Request(
            url.rstrip("/") + "/translate", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        start = time.time()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                translated = json.load(answer).get("translatedText")
        except urllib.error.HTTPError as error:
            rec.add("h", start, f"HTTP {error.code}", error.read().decode("utf-8", "replace"))
        except Exception as error:  # noqa: BLE001 - a refused or reset connection is a failure too
            rec.add("h", start, type(error).__name__, str(error))
        else:
            rec.add("h", start, "OK" if translated else "EMPTY")


def scrape_worker(url: str, interval: float, stop: threading.Event, rec: Recorder, timeout: float) -> None:
    """GET a /metrics page every `interval` seconds on one kept-alive connection (reopened when it
    closes), as Prometheus does."""
    parts = urllib.parse.urlsplit(url)
    connection = None
    while not stop.wait(interval):
        start = time.time()
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
            connection.request("GET", parts.path or "/metrics")
            answer = connection.getresponse()
            page = answer.read()
        except Exception as error:  # noqa: BLE001 - counted like any failed call
            rec.add("m", start, type(error).__name__, str(error))
            if connection is not None:
                connection.close()
            connection = None
            continue
        if answer.status == 200 and b"traductor_requests_total" in page:
            rec.add("m", start, "OK")
        else:
            rec.add("m", start, f"HTTP {answer.status}", page[:300].decode("utf-8", "replace"))
        if answer.will_close:
            connection.close()
            connection = None
    if connection is not None:
        connection.close()


def write_json(path: str, data: dict) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(path + ".tmp", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--name", required=True, help="file names: NAME.json, NAME.progress.json, NAME.stop")
    parser.add_argument("--dir", default="/reports")
    parser.add_argument("--timeout", type=float, default=60.0, help="deadline of each call (s)")
    parser.add_argument("--max-seconds", type=float, default=1800.0, help="stop anyway after this long")
    parser.add_argument("--token", help="bearer token for gRPC, api_key for HTTP")
    parser.add_argument("--http", metavar="URL", help="also POST URL/translate (the HTTP API)")
    parser.add_argument("--http-concurrency", type=int, default=2, help="threads calling --http")
    parser.add_argument("--scrape", metavar="URL", help="also GET this /metrics page, kept alive")
    parser.add_argument("--scrape-interval", type=float, default=1.0)
    args = parser.parse_args()
    base = os.path.join(args.dir, args.name)
    stop_file = base + ".stop"
    if os.path.exists(stop_file):
        os.remove(stop_file)
    texts, rec, stop = load_texts(), Recorder(), threading.Event()
    began = time.time()
    with TranslatorClient(args.target, retry=NO_RETRY, timeout=args.timeout, token=args.token) as client:
        threads = [
            threading.Thread(target=worker, args=(client, texts, n * 37, stop, rec, args.timeout), daemon=True)
            for n in range(args.concurrency)
        ]
        if args.http:
            threads += [
                threading.Thread(
                    target=http_worker,
                    args=(args.http, args.token, texts, n * 53 + 11, stop, rec, args.timeout),
                    daemon=True,
                )
                for n in range(args.http_concurrency)
            ]
        if args.scrape:
            threads.append(
                threading.Thread(
                    target=scrape_worker, args=(args.scrape, args.scrape_interval, stop, rec, args.timeout), daemon=True
                )
            )
        for thread in threads:
            thread.start()
        while not os.path.exists(stop_file) and time.time() - began < args.max_seconds:
            write_json(base + ".progress.json", rec.snapshot())
            time.sleep(0.5)
        stop.set()
        for thread in threads:
            thread.join(args.timeout + 5)
    by_kind: dict = collections.defaultdict(collections.Counter)
    for kind, _, _, code in rec.calls:
        by_kind[{"u": "unary", "s": "stream", "h": "http", "m": "scrape"}[kind]][code] += 1
    write_json(base + ".progress.json", rec.snapshot())
    write_json(
        base + ".json",
        {
            "target": args.target,
            "concurrency": args.concurrency,
            "began": began,
            "ended": time.time(),
            "by_code": dict(rec.counts),
            "by_kind": {k: dict(v) for k, v in by_kind.items()},
            "failures": rec.failures,
            "calls": rec.calls,
        },
    )
    print(f"callcount {args.name}: {sum(rec.counts.values())} calls, by code {dict(rec.counts)}", flush=True)


if __name__ == "__main__":
    main()
