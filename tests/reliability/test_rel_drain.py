"""`traductor serve` as a process: SIGTERM (pre-stop window, listener closed, drain) and SIGTERM during
start-up; metrics live on their own port."""

from __future__ import annotations

import http.client
import math
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request

import grpc
import pytest
from rel_harness import stub_of
from rel_process import ServeProcess

from traductor_client.v1 import translator_pb2 as pb

DRAIN = 5.0
LONG = pb.DecodingOptions(min_new_tokens=63, max_new_tokens=63)


@pytest.fixture
def serve(tiny_bundle, tmp_path):
    started = []

    def launch(*flags) -> ServeProcess:
        p = ServeProcess(tiny_bundle, tmp_path / f"serve{len(started)}.log", *flags)
        started.append(p)
        assert p.wait_status("SERVING"), (tmp_path / "serve0.log").read_text()[-3000:]
        return p

    yield launch
    for p in started:
        p.close()


def _listener_closed(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _left_ready(channel: grpc.Channel, timeout: float) -> bool:
    """Wait until the channel's connection is no longer READY (the client has read the GOAWAY)."""
    gone = threading.Event()

    def seen(state: grpc.ChannelConnectivity) -> None:
        if state != grpc.ChannelConnectivity.READY:
            gone.set()

    channel.subscribe(seen, try_to_connect=False)
    try:
        return gone.wait(timeout)
    finally:
        channel.unsubscribe(seen)


def test_sigterm_prestop_then_closed_listener_then_drain(serve):
    """SIGTERM: NOT_SERVING at once; calls are still served during the pre-stop window; a second SIGTERM
    ends the window: the listener closes (a new connection is refused, so a balancer or the client
    retries elsewhere; the server answers no UNAVAILABLE itself); the batch in flight finishes OK with
    its full output; exit status 0 within the grace period."""
    p = serve(
        *("--prestop-seconds", "600", "--drain-seconds", str(DRAIN)),
        *("--max-active-sequences", "1", "--max-queued-requests", "200"),
    )
    stub = stub_of(p.channel)
    one = stub.Translate(pb.TranslateRequest(text="uno dos", options=LONG), timeout=30)
    assert len(one.token_ids) == 63

    p.proc.send_signal(signal.SIGTERM)
    assert p.wait_status("NOT_SERVING", timeout=DRAIN)
    with grpc.insecure_channel(p.target) as fresh:  # the pre-stop window: new connections, new calls served
        assert stub_of(fresh).Translate(pb.TranslateRequest(text="uno"), timeout=30).text
    # One batch of texts decoded one at a time (one row) keeps the server busy ~1.5 s, a third of
    # the grace period; a batch is accepted whole, so every text is in flight when the window ends.
    n = min(max(math.ceil(1.5 / max(one.timings.total_seconds, 1e-3)), 4), 64)
    batch = stub.TranslateBatch.future(pb.TranslateBatchRequest(texts=["tres"] * n, options=LONG), timeout=30)
    end = time.monotonic() + 10
    while not p.metric("traductor_queue_depth") and time.monotonic() < end:
        time.sleep(0.01)
    queued = p.metric("traductor_queue_depth")
    assert queued >= n // 2

    sent = time.monotonic()
    p.proc.send_signal(signal.SIGTERM)  # the second one ends the pre-stop window
    while not _listener_closed(p.port) and time.monotonic() < sent + DRAIN:
        time.sleep(0.01)
    assert _listener_closed(p.port)
    # the old connection's GOAWAY reaches the client a moment later: a call sent on it before then is
    # one gRPC core's shutdown cancels (CANCELLED, seen on a loaded machine), not this server's answer
    assert _left_ready(p.channel, timeout=DRAIN)
    with grpc.insecure_channel(p.target) as fresh:
        for channel in (fresh, p.channel):  # a new connection, and the old one after its GOAWAY
            with pytest.raises(grpc.RpcError) as e:
                stub_of(channel).Translate(pb.TranslateRequest(text="uno"), timeout=5)
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert not batch.done()  # still decoding
    assert "UNAVAILABLE" not in p.metrics_text()  # no call was answered UNAVAILABLE by the server

    results = batch.result(timeout=DRAIN + 5).results
    assert len(results) == n
    assert all(r.finish_reason == pb.FINISH_REASON_LENGTH and len(r.token_ids) == 63 for r in results)
    assert p.proc.wait(timeout=DRAIN + 5) == 0
    assert time.monotonic() - sent < DRAIN + 2
    print(
        f"drain: batch of {n} x 63 tokens ({queued:.0f} queued) in flight when the listener closed, all OK; "
        f"exit 0 after {time.monotonic() - sent:.2f} s"
    )


# Put first on the server's PYTHONPATH: loading the bundle waits on a FIFO nobody writes to, so
# the process stays in start-up for as long as the test wants (no timing involved).
STUCK_LOADING = """
import os
import traductor.engine.bundle as bundle

_read_config = bundle.read_config


def read_config(path):
    with open(os.environ["REL_TEST_LOAD_FIFO"]):
        pass
    return _read_config(path)


bundle.read_config = read_config
"""


def test_sigterm_during_start_up_exits_at_once(tiny_bundle, tmp_path, monkeypatch):
    """The signal handlers come before the model is loaded: SIGTERM while start-up is stuck (loading
    blocked) stops the process at once with status 0, without ever serving."""
    (tmp_path / "sitecustomize.py").write_text(STUCK_LOADING)
    os.mkfifo(tmp_path / "load.fifo")
    monkeypatch.setenv("REL_TEST_LOAD_FIFO", str(tmp_path / "load.fifo"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    log = tmp_path / "serve.log"
    p = ServeProcess(tiny_bundle, log)
    try:
        end = time.monotonic() + 60
        while "starting: model" not in log.read_text() and time.monotonic() < end and p.proc.poll() is None:
            time.sleep(0.02)
        assert "starting: model" in log.read_text(), log.read_text()[-2000:]
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=15) == 0, log.read_text()[-2000:]
        assert "signal during start-up" in log.read_text() and " serving " not in log.read_text()
    finally:
        p.close()


def test_metrics_port_is_separate_from_the_api_port(serve):
    """Prometheus text on --metrics-port only; the API port speaks gRPC only; SIGINT exits 0."""
    p = serve()
    stub_of(p.channel).Translate(pb.TranslateRequest(text="uno"), timeout=30)
    text = p.metrics_text()
    assert 'traductor_requests_total{code="OK",model="tiny",protocol="grpc",rpc="Translate"} 1.0' in text
    with pytest.raises((urllib.error.URLError, http.client.HTTPException, OSError)):  # not HTTP/1.1
        urllib.request.urlopen(f"http://127.0.0.1:{p.port}/metrics", timeout=5).read()
    with grpc.insecure_channel(f"127.0.0.1:{p.metrics_port}") as other:
        with pytest.raises(grpc.RpcError) as e:
            stub_of(other).Translate(pb.TranslateRequest(text="uno"), timeout=5)
    assert e.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
    p.proc.send_signal(signal.SIGINT)
    assert p.proc.wait(timeout=15) == 0
