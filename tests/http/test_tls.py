"""TLS with the gRPC server's certificate flags: with --tls-cert/--tls-key and --tls-client-ca the
HTTP port speaks HTTPS with the same certificate and demands the same client certificates."""

from __future__ import annotations

import http.client
import ssl
import sys
import urllib.error
from pathlib import Path

import grpc
import pytest
from http_harness import call
from server_harness import WAIT, translate_request

from traductor_client.v1 import translator_pb2_grpc

sys.path.insert(0, str(Path(__file__).parents[1] / "reliability"))
from rel_pki import write_pki  # noqa: E402


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return write_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def server_settings(pki):
    return {"tls_cert": str(pki["server.pem"]), "tls_key": str(pki["server.key"]), "tls_client_ca": str(pki["ca.pem"])}


def client_context(pki, cert: str | None = "client") -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(pki["ca.pem"]))
    if cert:
        ctx.load_cert_chain(str(pki[f"{cert}.pem"]), str(pki[f"{cert}.key"]))
    return ctx


def https(server) -> str:
    return f"https://127.0.0.1:{server.service.http.port}/translate"


BODY = {"q": "uno dos tres", "source": "en", "target": "es"}


def test_https_with_a_client_certificate_equals_grpc_over_tls(server, pki):
    creds = grpc.ssl_channel_credentials(
        root_certificates=pki["ca.pem"].read_bytes(),
        private_key=pki["client.key"].read_bytes(),
        certificate_chain=pki["client.pem"].read_bytes(),
    )
    with grpc.secure_channel(f"127.0.0.1:{server.service.port}", creds) as channel:
        expected = translator_pb2_grpc.TranslatorStub(channel).Translate(translate_request(BODY["q"]), timeout=WAIT)
    answer = call(https(server), "POST", json_body=BODY, context=client_context(pki))
    assert answer.status == 200 and answer.json()["translatedText"] == expected.text


@pytest.mark.parametrize("cert", [None, "rogue-client"], ids=["no client certificate", "client of another CA"])
def test_https_without_a_trusted_client_certificate_is_refused(server, pki, cert):
    with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
        call(https(server), "POST", json_body=BODY, context=client_context(pki, cert))


def test_plain_http_is_refused(server):
    with pytest.raises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
        call(https(server).replace("https://", "http://"), "POST", json_body=BODY)
