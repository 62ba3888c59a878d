"""Throw-away certificates for the TLS tests (the `cryptography` package; see docs/reliability.md
for the equivalent openssl commands)."""

from __future__ import annotations

import datetime as dt
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _key_pem(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


class CA:
    def __init__(self, cn: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = _name(cn)
        now = dt.datetime.now(dt.timezone.utc)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(self.name)
            .issuer_name(self.name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .sign(self.key, hashes.SHA256())
        )
        self.pem = self.cert.public_bytes(serialization.Encoding.PEM)

    def issue(self, cn: str, server: bool) -> tuple[bytes, bytes]:
        """(certificate PEM, key PEM) for localhost/127.0.0.1 (server) or a client."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.timezone.utc)
        usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(cn))
            .issuer_name(self.name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
        cert = builder.sign(self.key, hashes.SHA256())
        return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def write_pki(directory: Path) -> dict[str, Path]:
    """ca, server cert/key, client cert/key from the CA; a rogue CA and a client cert it signed."""
    ca, rogue = CA("traductor test CA"), CA("rogue CA")
    files = {"ca.pem": ca.pem, "rogue-ca.pem": rogue.pem}
    files["server.pem"], files["server.key"] = ca.issue("localhost", server=True)
    files["client.pem"], files["client.key"] = ca.issue("client", server=False)
    files["rogue-client.pem"], files["rogue-client.key"] = rogue.issue("client", server=False)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, data in files.items():
        (directory / name).write_bytes(data)
        paths[name] = directory / name
    return paths
