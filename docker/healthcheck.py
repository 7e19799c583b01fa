"""Exit 0 if the arena answers the standard gRPC health check with SERVING, else print why and exit 1.

    python docker/healthcheck.py [HOST:PORT]

The target defaults to 127.0.0.1:$SCOUT_PORT (50051): the container's own arena. It is the
image's HEALTHCHECK; during a graceful shutdown the arena reports NOT_SERVING, so the container
turns unhealthy before it stops.

It connects as `scout-arena` does, from the same environment: with TLS when SCOUT_ARENA_TLS is
true or SCOUT_ARENA_TLS_CA (a CA file) or SCOUT_ARENA_TLS_SERVER_NAME (the name in the
certificate, needed since the check connects to 127.0.0.1) is set.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # a failed TLS handshake is our one line, not gRPC's log line

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from sdk.tls import ClientTls, TlsConfigError, channel, tls_problem

TIMEOUT_S = 3.0


def environment_tls() -> ClientTls | None:
    """TLS as the SCOUT_ARENA_TLS* variables of `scout-arena` say (see the module docstring)."""
    enabled = os.environ.get("SCOUT_ARENA_TLS", "").strip().lower() in ("1", "true", "yes", "on")
    return ClientTls.from_options(
        enabled, os.environ.get("SCOUT_ARENA_TLS_CA"), os.environ.get("SCOUT_ARENA_TLS_SERVER_NAME")
    )


def check(target: str, service: str = "", tls: ClientTls | None = None) -> str | None:
    """None if `service` at `target` is SERVING, else the reason it is not."""
    try:
        with channel(target, tls) as link:
            reply = health_pb2_grpc.HealthStub(link).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT_S
            )
    except TlsConfigError as exc:
        return str(exc)
    except grpc.RpcError as exc:
        return tls_problem(target, exc.details(), tls) or f"{target}: {exc.code().name}: {exc.details()}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{target}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"
    return None


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else f"127.0.0.1:{os.environ.get('SCOUT_PORT', '50051')}"
    problem = check(target, tls=environment_tls())
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
