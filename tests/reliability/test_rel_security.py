"""Security: TLS, mutual TLS, bearer token, reflection off by default."""

from __future__ import annotations

import grpc
import pytest
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from rel_pki import write_pki

from traductor_client import NO_RETRY, TranslatorClient, Unauthenticated, Unavailable

TEXT = "uno dos tres"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return write_pki(tmp_path_factory.mktemp("pki"))


def _client(svc, **kwargs) -> TranslatorClient:
    return TranslatorClient(svc.target, retry=NO_RETRY, timeout=10, **kwargs)


def test_tls(make_service, pki):
    """A TLS server: a plaintext client gets UNAVAILABLE; a client trusting the CA is served."""
    svc = make_service(tls_cert=str(pki["server.pem"]), tls_key=str(pki["server.key"]))
    with _client(svc) as plain, pytest.raises(Unavailable):
        plain.translate(TEXT)
    with _client(svc, root_certificates=pki["ca.pem"].read_bytes()) as tls:
        assert tls.translate(TEXT).text
        assert tls.health() == "SERVING"
    with _client(svc, root_certificates=pki["rogue-ca.pem"].read_bytes()) as wrong_ca, pytest.raises(Unavailable):
        wrong_ca.translate(TEXT)  # the client does not trust the server's certificate


def test_mutual_tls(make_service, pki):
    """A server requiring client certificates: none, or one from another CA, fails (UNAVAILABLE);
    a certificate from the configured client CA is served."""
    svc = make_service(
        tls_cert=str(pki["server.pem"]), tls_key=str(pki["server.key"]), tls_client_ca=str(pki["ca.pem"])
    )
    root = pki["ca.pem"].read_bytes()
    with _client(svc, root_certificates=root) as no_cert, pytest.raises(Unavailable):
        no_cert.translate(TEXT)
    with (
        _client(
            svc,
            root_certificates=root,
            certificate_chain=pki["rogue-client.pem"].read_bytes(),
            private_key=pki["rogue-client.key"].read_bytes(),
        ) as rogue,
        pytest.raises(Unavailable),
    ):
        rogue.translate(TEXT)
    with _client(svc) as plain, pytest.raises(Unavailable):
        plain.health()
    with _client(
        svc,
        root_certificates=root,
        certificate_chain=pki["client.pem"].read_bytes(),
        private_key=pki["client.key"].read_bytes(),
    ) as good:
        assert good.translate(TEXT).text
        assert list(good.stream(TEXT))


def test_bearer_token(make_service):
    """--token: missing or wrong token is UNAUTHENTICATED on every Translator method (unary and
    streaming); health answers without one; the right token is served."""
    svc = make_service(token="s3cret-token")
    for kwargs in ({}, {"token": "wrong"}, {"token": "s3cret-token "}, {"token": "S3CRET-TOKEN"}):
        with _client(svc, **kwargs) as client:
            with pytest.raises(Unauthenticated):
                client.translate(TEXT)
            with pytest.raises(Unauthenticated):
                list(client.stream_events(TEXT))
            with pytest.raises(Unauthenticated):
                client.model_info()
            with pytest.raises(Unauthenticated):
                client.translate_batch([TEXT])
            assert client.health() == "SERVING"
    with _client(svc, token="s3cret-token") as client:
        assert client.translate(TEXT).text and client.model_info().name
    assert svc.wait_for(
        lambda: (
            svc.gauge("traductor_requests_total", {"protocol": "grpc", "rpc": "Translate", "code": "UNAUTHENTICATED"})
            == 4
        )
    )  # counted just after the caller sees it


def _services(target: str) -> list[str]:
    with grpc.insecure_channel(target) as channel:
        return sorted(ProtoReflectionDescriptorDatabase(channel).get_services())


def test_reflection_off_unless_enabled(make_service):
    """Reflection answers UNIMPLEMENTED by default; with reflection=True it lists the services."""
    off = make_service()
    with pytest.raises(grpc.RpcError) as e:
        _services(off.target)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
    on = make_service(reflection=True)
    assert "traductor.v1.Translator" in _services(on.target)
