"""Exit 0 if the arena answers the standard gRPC health check with SERVING, else print why and exit 1.

    python docker/healthcheck.py [HOST:PORT]

The target defaults to 127.0.0.1:$SCOUT_PORT (50051): the container's own arena. It is the
image's HEALTHCHECK; during a graceful shutdown the arena reports NOT_SERVING, so the container
turns unhealthy before it stops.
"""

from __future__ import annotations

import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

TIMEOUT_S = 3.0


def check(target: str, service: str = "") -> str | None:
    """None if `service` at `target` is SERVING, else the reason it is not."""
    try:
        with grpc.insecure_channel(target) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT_S
            )
    except grpc.RpcError as exc:
        return f"{target}: {exc.code().name}: {exc.details()}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{target}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"
    return None


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else f"127.0.0.1:{os.environ.get('SCOUT_PORT', '50051')}"
    problem = check(target)
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
