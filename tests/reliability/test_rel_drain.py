"""`traductor serve` as a process: SIGTERM drains gracefully; metrics live on their own port."""

from __future__ import annotations

import http.client
import math
import signal
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


def test_sigterm_drains_in_flight_requests(serve):
    """SIGTERM with requests in flight: health NOT_SERVING, new requests UNAVAILABLE, every in-flight
    request finishes OK with its full output, exit status 0 within the grace period."""
    p = serve("--drain-seconds", str(DRAIN), "--max-active-sequences", "1", "--max-queued-requests", "200")
    stub = stub_of(p.channel)
    one = stub.Translate(pb.TranslateRequest(text="uno dos", options=LONG), timeout=30)
    assert len(one.token_ids) == 63
    # One batch of texts decoded one at a time (one row) keeps the server busy ~1.5 s, a third of
    # the grace period; a batch is accepted whole, so every text is in flight at SIGTERM.
    n = min(max(math.ceil(1.5 / max(one.timings.total_seconds, 1e-3)), 4), 64)
    batch = stub.TranslateBatch.future(pb.TranslateBatchRequest(texts=["tres"] * n, options=LONG), timeout=30)
    end = time.monotonic() + 10
    while not p.metric("traductor_queue_depth") and time.monotonic() < end:
        time.sleep(0.01)
    queued = p.metric("traductor_queue_depth")
    assert queued >= n // 2

    sent = time.monotonic()
    p.proc.send_signal(signal.SIGTERM)
    assert p.wait_status("NOT_SERVING", timeout=DRAIN)
    for call in (
        lambda: stub.Translate(pb.TranslateRequest(text="uno"), timeout=5),
        lambda: list(stub.TranslateStream(pb.TranslateRequest(text="uno"), timeout=5)),
    ):
        with pytest.raises(grpc.RpcError) as e:
            call()
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "shutting down" in e.value.details()
    assert not batch.done()  # still decoding

    results = batch.result(timeout=DRAIN + 5).results
    assert len(results) == n
    assert all(r.finish_reason == pb.FINISH_REASON_LENGTH and len(r.token_ids) == 63 for r in results)
    assert p.proc.wait(timeout=DRAIN + 5) == 0
    assert time.monotonic() - sent < DRAIN + 2
    print(
        f"drain: batch of {n} x 63 tokens ({queued:.0f} queued) in flight at SIGTERM, all OK; "
        f"exit 0 after {time.monotonic() - sent:.2f} s"
    )


def test_metrics_port_is_separate_from_the_api_port(serve):
    """Prometheus text on --metrics-port only; the API port speaks gRPC only; SIGINT exits 0."""
    p = serve()
    stub_of(p.channel).Translate(pb.TranslateRequest(text="uno"), timeout=30)
    text = p.metrics_text()
    assert 'traductor_requests_total{code="OK",protocol="grpc",rpc="Translate"} 1.0' in text
    with pytest.raises((urllib.error.URLError, http.client.HTTPException, OSError)):  # not HTTP/1.1
        urllib.request.urlopen(f"http://127.0.0.1:{p.port}/metrics", timeout=5).read()
    with grpc.insecure_channel(f"127.0.0.1:{p.metrics_port}") as other:
        with pytest.raises(grpc.RpcError) as e:
            stub_of(other).Translate(pb.TranslateRequest(text="uno"), timeout=5)
    assert e.value.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)
    p.proc.send_signal(signal.SIGINT)
    assert p.proc.wait(timeout=15) == 0
