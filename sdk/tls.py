"""TLS for the arena's clients: one way, shared by the SDK, `scout-bot` and `scout-arena`, to turn
"connect with TLS, trusting this CA, expecting this name" into a gRPC channel, and to say in one
line why a connection failed when TLS is the likely cause.

* `ClientTls()` trusts the system's CA certificates: the PEM bundle Python's `ssl` module finds
  (`SSL_CERT_FILE`, else OpenSSL's default file, e.g. /etc/ssl/certs/ca-certificates.crt), or, on
  a system without one, the public roots built into gRPC.
* `ClientTls(ca_file="ca.pem")` trusts only the CA certificates in that PEM file: for an arena
  whose certificate a private CA signed (or a self-signed one, given as its own CA).
* `server_name="arena.example.org"` checks the certificate for that name instead of the host of
  the address (when bots connect by IP address, or through a tunnel).

`None` in place of a `ClientTls` is a plaintext channel, which is what an arena without
`--tls-cert` speaks. The arena never asks clients for certificates: bots and organisers prove who
they are with their tokens, which TLS keeps off the wire.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

Options = tuple[tuple[str, str | int], ...]

# gRPC's own words (grpcio 1.85) in the details of a connection that failed for each reason; should
# they change, `tls_problem` answers None and callers fall back to their general messages.
_PLAINTEXT_TO_TLS = "Socket closed"
_TLS_TO_PLAINTEXT = "WRONG_VERSION_NUMBER"
_UNTRUSTED = "CERTIFICATE_VERIFY_FAILED"
_WRONG_NAME = "Hostname Verification Check failed"
_HANDSHAKE = ("Tls handshake failed", "Handshake failed", "security handshaker")
PROBE_TIMEOUT_S = 3.0
"""How long `speaks_tls` waits for a TLS handshake."""


class TlsConfigError(ValueError):
    """A CA file that cannot be used; the message names it and says why."""


@dataclass(frozen=True)
class ClientTls:
    """Connect with TLS: trust `ca_file`'s CAs (None: the system's) and expect `server_name`
    (None: the address's host) in the arena's certificate."""

    ca_file: str | None = None
    server_name: str | None = None

    @classmethod
    def from_options(cls, tls: bool, ca_file: str | None = None, server_name: str | None = None) -> ClientTls | None:
        """The command lines' `--tls`, `--tls-ca FILE` and `--tls-server-name NAME`: either of the
        last two implies the first; none of them is plaintext (None)."""
        if not (tls or ca_file or server_name):
            return None
        return cls(ca_file or None, server_name or None)

    def roots(self) -> bytes | None:
        """The PEM certificates trusted; None leaves gRPC its built-in roots. TlsConfigError if
        `ca_file` is missing, unreadable or holds no certificate."""
        path = self.ca_file or ssl.get_default_verify_paths().cafile
        if path is None:
            return None
        try:
            pem = Path(path).read_bytes()
        except OSError as exc:
            raise TlsConfigError(f"cannot read the CA file {path}: {exc.strerror or exc}") from None
        try:
            ssl.create_default_context(cadata=pem.decode("ascii"))
        except (ssl.SSLError, UnicodeDecodeError, ValueError):
            raise TlsConfigError(f"the CA file {path} holds no PEM certificate") from None
        return pem

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(root_certificates=self.roots())

    def options(self) -> Options:
        return (("grpc.ssl_target_name_override", self.server_name),) if self.server_name else ()


def channel(target: str, tls: ClientTls | None, options: Options = ()) -> grpc.Channel:
    """A blocking channel to `target`: TLS as `tls` says, or plaintext for None."""
    if tls is None:
        return grpc.insecure_channel(target, options=options)
    return grpc.secure_channel(target, tls.credentials(), options=(*options, *tls.options()))


def aio_channel(target: str, tls: ClientTls | None, options: Options = ()) -> grpc.aio.Channel:
    """An asyncio channel to `target`: TLS as `tls` says, or plaintext for None."""
    if tls is None:
        return grpc.aio.insecure_channel(target, options=options)
    return grpc.aio.secure_channel(target, tls.credentials(), options=(*options, *tls.options()))


def speaks_tls(target: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the server at `target` (HOST:PORT) completes a TLS handshake, its certificate
    unchecked: tells an arena serving TLS from one that closed a plaintext connection for another
    reason (a connection cap, say)."""
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return False
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with (
            socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as raw,
            context.wrap_socket(raw, server_hostname=host.strip("[]")),
        ):
            return True
    except (OSError, ValueError):
        return False


def tls_problem(target: str, details: str | None, tls: ClientTls | None) -> str | None:
    """Why a connection to `target` failed with gRPC's `details`, in one line, when TLS (or its
    absence) is the cause; None when it is something else (nothing listening, say). A plaintext
    connection closed at once is checked with `speaks_tls` (a blocking probe)."""
    details = details or ""
    if tls is None:
        if _PLAINTEXT_TO_TLS in details and speaks_tls(target):
            return f"the arena at {target} serves TLS: connect with --tls (or --tls-ca FILE for a private CA)"
        return None
    if _TLS_TO_PLAINTEXT in details:
        return f"the arena at {target} does not speak TLS: connect without --tls and --tls-ca"
    if _UNTRUSTED in details:
        reason = details.split(_UNTRUSTED, 1)[1].strip(": ").removesuffix(": OK")
        if "issuer" not in reason and "self" not in reason:
            return f"the arena at {target} presented a certificate that is not valid: {reason}"
        trusted = f"the CA in {tls.ca_file}" if tls.ca_file else "the system's CAs"
        return (
            f"the arena at {target} presented a certificate that {trusted} did not sign: give its CA with --tls-ca FILE"
        )
    if _WRONG_NAME in details:
        name = tls.server_name or target.rpartition(":")[0]
        return (
            f"the arena at {target} presented a certificate that is not for {name!r}: connect by a name it "
            "holds, or pass --tls-server-name NAME"
        )
    if any(marker in details for marker in _HANDSHAKE):
        return f"the TLS handshake with the arena at {target} failed: {details.split('last error: ', 1)[-1]}"
    return None
