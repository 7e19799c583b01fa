"""Certificates made in the test, with the `cryptography` package (the test extra): a private CA,
a server certificate it signs, and the odd ones out a test needs (another CA, a key of another
certificate, an encrypted key, a certificate for another name)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

Key = ec.EllipticCurvePrivateKey


@dataclass(frozen=True)
class Pki:
    """The files, each PEM: `ca` signed `cert` (for 127.0.0.1 and localhost, key `key`),
    `named` (for arena.example only, key `named_key`) and `expired` (like `cert`, but it expired
    yesterday; key `expired_key`); `other_ca` signed nothing here; `other_key` belongs to no
    certificate here; `encrypted_key` is `key` under a password."""

    ca: Path
    cert: Path
    key: Path
    named: Path
    named_key: Path
    expired: Path
    expired_key: Path
    other_ca: Path
    other_key: Path
    encrypted_key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _builder(subject: str, issuer: x509.Name, key: Key, expired: bool = False) -> x509.CertificateBuilder:
    now = datetime.now(UTC) - timedelta(days=3 if expired else 0)
    return (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(days=2))
    )


def make_ca(common: str) -> tuple[x509.Certificate, Key]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        _builder(common, _name(common), key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    return cert, key


def make_server(
    ca: x509.Certificate, ca_key: Key, dns: list[str], ips: list[str], expired: bool = False
) -> tuple[x509.Certificate, Key]:
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
    names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
    cert = (
        _builder(dns[0], ca.subject, key, expired)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return cert, key


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: Key, password: bytes | None = None) -> bytes:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    )
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def make_pki(directory: Path) -> Pki:
    """Write every file of a `Pki` into `directory`."""
    ca, ca_key = make_ca("Scout Arena test CA")
    cert, key = make_server(ca, ca_key, ["localhost"], ["127.0.0.1"])
    named, named_key = make_server(ca, ca_key, ["arena.example"], [])
    expired, expired_key = make_server(ca, ca_key, ["localhost"], ["127.0.0.1"], expired=True)
    other_ca, other_key = make_ca("Another CA")
    files = {
        "ca": _cert_pem(ca),
        "cert": _cert_pem(cert),
        "key": _key_pem(key),
        "named": _cert_pem(named),
        "named_key": _key_pem(named_key),
        "expired": _cert_pem(expired),
        "expired_key": _key_pem(expired_key),
        "other_ca": _cert_pem(other_ca),
        "other_key": _key_pem(other_key),
        "encrypted_key": _key_pem(key, b"secret"),
    }
    paths = {}
    for name, data in files.items():
        path = directory / f"{name}.pem"
        path.write_bytes(data)
        paths[name] = path
    return Pki(**paths)
