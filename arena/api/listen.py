"""Why an arena cannot listen where it was told to, found before gRPC tries.

gRPC's own failure to bind says only that it failed, and its core writes an internal log line to
stderr beside the command's error. Binding a plain socket first gives the operating system's reason
in one line ("port 50051 is in use") and lets the server fail before it touches its database's
credentials. A port taken between this check and gRPC's bind still fails, with the generic message.
"""

from __future__ import annotations

import errno
import socket


def listen_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, as one line; None if it can (or `port` is 0)."""
    if port == 0:
        return None
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot listen on {host}:{port}: unknown host ({exc.strerror})"
    failures: list[OSError] = []
    for family, kind, proto, _, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC binds: TIME_WAIT is no obstacle
            try:
                probe.bind(address)
                probe.listen()
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return (
                        f"cannot listen on {host}:{port}: port {port} is in use "
                        "(another arena or program listens there)"
                    )
                failures.append(exc)
    if failures and len(failures) == len(addresses):
        reason = failures[0].strerror or str(failures[0])
        if failures[0].errno == errno.EACCES:
            reason += " (ports below 1024 need privileges; choose another --port)"
        return f"cannot listen on {host}:{port}: {reason}"
    return None
