"""Two servers sharing one real Redis (--keys-redis), as replicas do: a key's request limit holds
across both under concurrent calls, a key revoked in the store is refused by both within a
second, and with Redis gone keyed calls fail closed (HTTP 503, gRPC UNAVAILABLE) while health
(`traductor.keys`) and `traductor_key_store_up` say so. Skips naming the Debian package
`redis-server` where it is missing (tests/redis_harness.py)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import grpc
import pytest
from grpc_health.v1 import health_pb2
from http_harness import call
from redis_harness import redis_server  # noqa: F401  (the fixture)
from server_harness import WAIT, ServerThread, free_port, make_settings, translate_request

from traductor.service.keys.model import Limits, new_key
from traductor.service.keys.stores import open_store

ADMIN = "admin-token-of-the-redis-test"


@pytest.fixture(scope="module")
def replicas(tiny_bundle, redis_server, tmp_path_factory):  # noqa: F811
    shared = str(tmp_path_factory.mktemp("shared"))
    servers = []
    for _ in range(2):
        settings = make_settings(
            tiny_bundle, http_port=free_port(), keys_redis=redis_server.url, token=ADMIN, glossary_dir=shared
        )
        server = ServerThread(settings)
        server.url = f"http://127.0.0.1:{server.service.http.port}/"
        servers.append(server)
    yield servers
    for server in servers:
        server.close()


@pytest.fixture(scope="module")
def store(redis_server):  # noqa: F811
    store = open_store(redis_server.url)
    yield store
    store.close()


def translate(server, secret: str):
    body = {"q": "uno dos", "source": "en", "target": "es", "api_key": secret}
    return call(server.url + "translate", "POST", json_body=body)


def test_a_request_limit_holds_across_two_servers_under_concurrent_calls(replicas, store):
    key, secret = new_key("shared-limit", Limits(requests_per_minute=6))
    store.add(key)
    start = threading.Barrier(14)

    def one(i: int):
        start.wait()
        return translate(replicas[i % 2], secret).status

    with ThreadPoolExecutor(14) as pool:
        statuses = list(pool.map(one, range(14)))
    assert sorted(statuses) == [200] * 6 + [429] * 8
    refused = sum(s.metric("traductor_key_refusals_total", {"key": "shared-limit", "reason": "rate"}) for s in replicas)
    assert refused == 8


def test_a_revoked_key_is_refused_by_both_servers_within_a_second(replicas, store):
    key, secret = new_key("to-revoke", Limits())
    store.add(key)
    assert [translate(s, secret).status for s in replicas] == [200, 200]
    store.save(replace(store.get("to-revoke"), revoked=True))
    revoked = time.monotonic()
    for server in replicas:
        while translate(server, secret).status != 403:
            assert time.monotonic() - revoked < 1.0, "still accepted a second after the revocation"
    metadata = (("authorization", f"Bearer {secret}"),)
    with pytest.raises(grpc.RpcError) as e:
        replicas[1].stub.Translate(translate_request("uno dos"), timeout=WAIT, metadata=metadata)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_without_redis_keyed_calls_fail_closed_and_health_says_so(replicas, store, redis_server):  # noqa: F811
    key, secret = new_key("while-down", Limits())
    store.add(key)
    server = replicas[0]
    assert translate(server, secret).status == 200
    assert server.health_status("traductor.keys") == health_pb2.HealthCheckResponse.SERVING
    redis_server.stop()
    answer = translate(server, "trk_a-key-not-seen-before")
    assert answer.status == 503 and "key store" in answer.json()["error"]
    assert "while-down" not in answer.body.decode() and secret not in answer.body.decode()
    with pytest.raises(grpc.RpcError) as e:
        metadata = (("authorization", "Bearer trk_another-unseen-key"),)
        server.stub.Translate(translate_request("uno dos"), timeout=WAIT, metadata=metadata)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert server.metric("traductor_key_store_up") == 0
    assert server.wait_for(lambda: server.health_status("traductor.keys") == health_pb2.HealthCheckResponse.NOT_SERVING)
    assert server.health_status("") == health_pb2.HealthCheckResponse.SERVING  # the models still serve
    assert translate(server, ADMIN).status == 200  # the administrator's key needs no store
