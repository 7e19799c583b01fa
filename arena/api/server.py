"""The arena's gRPC server: its channel options, its services and its port. The arena process is
put together above this room, by `arena.startup.arena`, which builds one with `grpc_server`,
binds it with `listen_on` and starts it with `start_serving`.

Keepalive (KEEPALIVE_OPTIONS): the server pings a silent connection every 10 s and drops it if
the ping is not answered within 5 s, so a dead bot is noticed within ~15 s even without TCP
resets; clients may ping every 5 s at most, with or without calls in flight. Receive size is
capped (MAX_RECEIVE_BYTES): no bot message needs more than a few hundred bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.api.arena_service import ArenaService
from arena.api.arena_wire import ARENA_SERVICE
from arena.api.bot_session_service import BotSessionService, add_bot_session
from arena.api.bot_session_wire import BOT_SESSION
from arena.api.boundary import add_arena
from arena.api.listen import listen_problem
from arena.api.reflection import enable_reflection
from arena.api.resources import ResourceLimits

MAX_RECEIVE_BYTES = 64 * 1024
SHUTDOWN_GRACE_S = 5.0
KEEPALIVE_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.http2.max_pings_without_data", 0),
)


@dataclass(frozen=True)
class GrpcServer:
    """The gRPC server with its services added, and its health servicer (SERVING once started)."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer


def grpc_server(resources: ResourceLimits, bot_sessions: BotSessionService, arena: ArenaService) -> GrpcServer:
    """A server held to `resources`' caps, serving the BotSession and Arena services, health and
    reflection; not yet listening."""
    # so_reuseport off: a second arena on a taken port must fail, not silently split the traffic.
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.so_reuseport", 0),
            *KEEPALIVE_OPTIONS,
            *resources.grpc_options(),
        ],
        maximum_concurrent_rpcs=resources.max_calls,
    )
    add_bot_session(bot_sessions, server)
    add_arena(arena, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((BOT_SESSION, ARENA_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name), server)
    return GrpcServer(server, health_servicer)


def listen_on(server: GrpcServer, host: str, port: int, credentials: grpc.ServerCredentials | None) -> int | str:
    """Bind `host:port` (TLS with `credentials`, else plaintext): the port bound, or the one-line
    reason it could not be."""
    problem = listen_problem(host, port)
    if problem is not None:
        return problem
    address = f"{host}:{port}"
    try:
        bound = (
            server.server.add_insecure_port(address)
            if credentials is None
            else server.server.add_secure_port(address, credentials)
        )
    except RuntimeError:
        bound = 0
    return bound if bound != 0 else f"cannot listen on {address}"


async def start_serving(server: GrpcServer) -> None:
    """Start the server and report every service SERVING."""
    await server.server.start()
    for name in ("", BOT_SESSION, ARENA_SERVICE):
        await server.health.set(name, health_pb2.HealthCheckResponse.SERVING)
