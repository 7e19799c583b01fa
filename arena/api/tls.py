"""The arena's TLS certificate and key (`scout-arena serve --tls-cert FILE --tls-key FILE`).

Both files are PEM: the certificate file holds the arena's certificate, then any intermediate CA
certificates; the key file its unencrypted private key. They are read and checked at start-up, so
a missing file, a file that is not PEM, an encrypted key or a key of another certificate stops the
server with one line naming the file, instead of gRPC's "failed to bind". Clients are not asked
for certificates: tokens say who they are (`sdk.tls`).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.errors import ArenaError


class TlsConfigError(ArenaError):
    """The certificate or key cannot be used; the message names the file and says why."""


class _Encrypted(Exception):
    """Raised by the password callback: a key that needs a password cannot be served by gRPC."""


def _no_password() -> bytes:
    raise _Encrypted


@dataclass(frozen=True)
class ServerTls:
    """Serve TLS with the certificate (chain) in `cert_file` and its private key in `key_file`."""

    cert_file: str
    key_file: str

    def credentials(self) -> grpc.ServerCredentials:
        """gRPC's server credentials, once both files are checked; TlsConfigError says what is wrong."""
        cert, key = _read(self.cert_file, "certificate"), _read(self.key_file, "key")
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=cert.decode("ascii"))
        except (ssl.SSLError, UnicodeDecodeError, ValueError):
            raise TlsConfigError(f"the TLS certificate file {self.cert_file} holds no PEM certificate") from None
        try:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.cert_file, self.key_file, password=_no_password)
        except _Encrypted:
            raise TlsConfigError(
                f"the TLS key {self.key_file} is encrypted: give it unencrypted "
                "(openssl pkey -in KEY -out PLAIN.key), readable by the arena's user only"
            ) from None
        except ssl.SSLError as exc:
            if exc.reason == "KEY_VALUES_MISMATCH":
                raise TlsConfigError(
                    f"the TLS key {self.key_file} is not the key of the certificate {self.cert_file}"
                ) from None
            raise TlsConfigError(f"the TLS key file {self.key_file} holds no PEM private key") from None
        except OSError as exc:
            raise TlsConfigError(
                f"cannot read the TLS files {self.cert_file}, {self.key_file}: {exc.strerror or exc}"
            ) from None
        return grpc.ssl_server_credentials([(key, cert)])


def server_tls(cert_file: str | None, key_file: str | None) -> ServerTls | None:
    """The command lines' `--tls-cert` and `--tls-key`: both (TLS) or neither (plaintext, None)."""
    if cert_file and key_file:
        return ServerTls(cert_file, key_file)
    if cert_file or key_file:
        given, missing = ("--tls-cert", "--tls-key") if cert_file else ("--tls-key", "--tls-cert")
        raise TlsConfigError(f"{given} needs {missing} too: TLS takes the certificate and its key")
    return None


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TlsConfigError(f"cannot read the TLS {what} file {path}: {exc.strerror or exc}") from None
