"""Start and stop the arena's gRPC server; `scout-arena serve` (`arena.cli.app`) runs one as a process.

With `--json` the first line on stdout is one JSON object (`announce_json`), `{"port": <bound
port>, "admin_token": "<token>", "tls": <bool>, "web": "<http://host:port/ or null>"}`, so a
parent process can read where the server listens, how to call admin RPCs, whether to connect
with TLS and where the web pages are (`--http-port`: `arena.web`, served in the same event loop
as the gRPC server, with a database only). `--admin-token` defaults to
$SCOUT_ARENA_ADMIN_TOKEN, so a token need not be on a command line (where `ps` shows it);
`--tls-cert` and `--tls-key` serve TLS (`arena.api.tls`), and without them the server speaks
plaintext and says so in its log. Logs go to stderr. SIGTERM or SIGINT stops it gracefully:
health turns NOT_SERVING, calls in flight get `SHUTDOWN_GRACE_S` to finish, then the rest are
cancelled.

With `--db URL` (`arena.storage.database`: a SQLite file or PostgreSQL) bots, tournaments, games and ratings
are kept there and the tournament runner (`arena.tournaments.runner`) plays due tournaments; at start the
interrupted games of a previous run are voided and unfinished tournaments resume. The arena holds
a lock on its database while it runs (`arena.storage.lock`): a second arena on it exits with one line
naming the holder. The admin token
is then stored as a hash (`arena.storage.credentials`): `admin_token` is the token only when this start
created it (the database's first) or was given it, else null. With `--in-memory` (no database)
everything is kept in memory and there are no tournaments (tests and benchmarks).

Keepalive (KEEPALIVE_OPTIONS): the server pings a silent connection every 10 s and drops it if
the ping is not answered within 5 s, so a dead bot is noticed within ~15 s even without TCP
resets; clients may ping every 5 s at most, with or without calls in flight. Receive size is
capped (MAX_RECEIVE_BYTES): no bot message needs more than a few hundred bytes.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from sqlalchemy.engine import Engine

from arena.api.arena_service import ArenaService
from arena.api.arena_wire import ARENA_SERVICE
from arena.api.bot_session_service import BotSessionService, add_bot_session
from arena.api.bot_session_wire import BOT_SESSION
from arena.api.boundary import add_arena
from arena.api.listen import listen_problem
from arena.api.reflection import enable_reflection
from arena.api.resources import DEFAULT_REGISTRATIONS_PER_MINUTE, ResourceLimits, fit_open_file_limit, option
from arena.api.tls import ServerTls
from arena.directory import BotDirectory, InMemoryBotDirectory, new_token
from arena.names import shown
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Limits, Referee
from arena.play.sessions import SessionHub
from arena.play.spectators import SpectatorHub
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.credentials import (
    FixedAdminToken,
    StoredAdminToken,
    StoredBotDirectory,
    ensure_admin_token,
    set_admin_token,
)
from arena.storage.database import open_database, shown_database
from arena.storage.lock import DatabaseLock, lock_database
from arena.tournaments.runner import TournamentRunner
from arena.web.limits import WebLimits, web_option

if TYPE_CHECKING:
    from arena.web.serving import WebServer

log = logging.getLogger(__name__)

ADMIN_TOKEN_VARIABLE = "SCOUT_ARENA_ADMIN_TOKEN"
"""The environment variable an arena's admin token may come from (the command lines read it too)."""
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
class ServerConfig:
    """Where to listen and the default clocks of games."""

    host: str = "127.0.0.1"
    port: int = 50051
    """0 picks a free port; `ArenaServer.port` tells which."""
    admin_token: str | None = None
    """None generates one (with a database: keeps the stored one); `ArenaServer.admin_token` tells which."""
    limits: Limits = field(default_factory=Limits)
    database_url: str | None = None
    """Where bots, tournaments and ratings are kept; None: bots in memory and no tournaments."""
    tls: ServerTls | None = None
    """The certificate and key to serve TLS with; None: plaintext."""
    registrations_per_minute: int = DEFAULT_REGISTRATIONS_PER_MINUTE
    """RegisterBot calls allowed per peer host per minute (`arena.api.arena_service`)."""
    resources: ResourceLimits = field(default_factory=ResourceLimits)
    """Caps on connections, calls and read calls (`arena.api.resources`)."""
    http_port: int | None = None
    """Where the web pages (`arena.web`) listen, on `host` (0: a free port; `ArenaServer.web`
    tells which); None: no web pages. They need a database: without one this is ignored."""
    web_limits: WebLimits = field(default_factory=WebLimits)
    """Caps on the web port's connections, time-outs and request bodies (`arena.web.limits`)."""
    casual: CasualLimits = field(default_factory=CasualLimits)
    """How much of the arena the web pages' Play room may take (`arena.web.play_room`)."""


@dataclass
class ArenaServer:
    """A running arena: its gRPC server and the parts the services share."""

    server: grpc.aio.Server
    port: int
    admin_token: str | None
    """The admin token, unless a database already held it (only its hash is kept)."""
    hub: SessionHub
    referee: Referee
    directory: BotDirectory
    health: health.aio.HealthServicer
    engine: Engine | None = None
    runner: asyncio.Task[None] | None = None
    """The tournament runner's task, with a database."""
    tls: bool = False
    """Whether it serves TLS."""
    lock: DatabaseLock | None = None
    """The lock on its database (`arena.storage.lock`), held until `stop`."""
    casual: CasualLimits = field(default_factory=CasualLimits)
    """The Play room's limits (`ServerConfig.casual`), read by the web pages."""
    web: WebServer | None = None
    """The web pages, served in this event loop, when `ServerConfig.http_port` asked for them."""

    async def stop(self, grace: float = SHUTDOWN_GRACE_S) -> None:
        """Stop the web pages, report NOT_SERVING, stop the tournament games, let calls in flight
        finish within `grace` seconds, then stop; games cut short are voided, to be replayed at
        the next start."""
        if self.web is not None:
            await self.web.stop()
        await self.health.enter_graceful_shutdown()
        if self.runner is not None:
            self.runner.cancel()
            await asyncio.gather(self.runner, return_exceptions=True)
        await self.server.stop(grace)
        if self.engine is not None:
            await AsyncStore(self.engine)(store.void_interrupted_games)
            if self.lock is not None:
                self.lock.release()
            self.engine.dispose()


def log_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's handler of errors nothing else caught (a callback's, such as grpc's
    poller under load): one escaped line, where asyncio's own handler logs several lines and a
    traceback, and the arena's log is one line an event (docs/security.md, "Client strings")."""
    error = context.get("exception")
    cause = "" if error is None else f": {type(error).__name__} {shown(str(error))}"
    log.error("event loop: %s%s", shown(str(context.get("message", "unexpected error"))), cause)


async def start_server(
    config: ServerConfig,
    directory: BotDirectory | None = None,
    on_answer: Callable[[float], None] | None = None,
) -> ArenaServer:
    """Build, bind and start the server. `directory` defaults to an in-memory one, or the
    database's with `config.database_url`; `on_answer` is the referee's metrics hook (see
    `Referee`). A database problem, or an open-file limit too low for the connection cap, raises
    `arena.errors.ArenaError` with a one-line reason. The running loop's uncaught errors are logged
    one line each from then on (`log_loop_error`)."""
    asyncio.get_running_loop().set_exception_handler(log_loop_error)
    credentials = None if config.tls is None else config.tls.credentials()
    resources = config.resources
    caps = {option("max_connections"): resources.max_connections}
    if config.database_url is not None and config.http_port is not None:
        caps[web_option("max_connections")] = config.web_limits.max_connections
    fit_open_file_limit(caps)
    hub = SessionHub()
    referee = Referee(hub, on_answer, SpectatorHub())
    engine = runner = lock = None
    arena_service: ArenaService
    admin_token: str | None
    if config.database_url is None:
        directory = directory if directory is not None else InMemoryBotDirectory()
        admin_token = config.admin_token or new_token()
        arena_service = ArenaService(
            directory, referee, FixedAdminToken(admin_token), config.limits, config.registrations_per_minute
        )
    else:
        engine = await asyncio.to_thread(open_database, config.database_url)
        try:
            lock = await asyncio.to_thread(lock_database, engine.url, shown_database(engine.url), engine=engine)
        except BaseException:
            engine.dispose()
            raise
        db = AsyncStore(engine)
        directory = directory if directory is not None else StoredBotDirectory(engine)
        admin_token = None
        runner = TournamentRunner(db, referee, hub)
        arena_service = ArenaService(
            directory,
            referee,
            StoredAdminToken(engine),
            config.limits,
            config.registrations_per_minute,
            resources,
            db=db,
            runner=runner,
        )
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
    add_bot_session(BotSessionService(directory, hub, resources.hello_timeout_ms / 1000), server)
    add_arena(arena_service, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((BOT_SESSION, ARENA_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name), server)
    problem = listen_problem(config.host, config.port)
    if problem is None:
        address = f"{config.host}:{config.port}"
        try:
            port = (
                server.add_insecure_port(address)
                if credentials is None
                else server.add_secure_port(address, credentials)
            )
        except RuntimeError:
            port = 0
        if port == 0:
            problem = f"cannot listen on {address}"
    web_socket = None
    if problem is None and engine is not None and config.http_port is not None:
        # Imported only when pages are served: FastAPI is a second's import on a busy machine.
        from arena.web.serving import bind

        try:
            web_socket = bind(config.host, config.http_port)
        except OSError as exc:
            problem = str(exc)
    if problem is not None:
        if lock is not None:
            lock.release()
        if engine is not None:
            engine.dispose()
        raise OSError(problem)
    if engine is not None:
        # Only once the port is ours: a start that cannot listen neither creates an admin token
        # nobody sees nor voids the games of the arena that holds the port.
        admin_token = await _take_over_database(engine, config.admin_token)
    await server.start()
    for name in ("", BOT_SESSION, ARENA_SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    task = None if runner is None else asyncio.create_task(runner.run(), name="tournament runner")
    arena = ArenaServer(
        server,
        port,
        admin_token,
        hub,
        referee,
        directory,
        health_servicer,
        engine,
        task,
        tls=credentials is not None,
        lock=lock,
        casual=config.casual,
    )
    if web_socket is not None:
        from arena.web.app import create_app
        from arena.web.serving import start_web

        assert engine is not None
        app = create_app(engine, arena=arena, limits=config.resources)
        arena.web = await start_web(app, web_socket, config.web_limits)
    return arena


async def _take_over_database(engine: Engine, admin_token: str | None) -> str | None:
    """Set (or create, on the first start) the admin token and void the games the last stop
    interrupted; returns the admin token if this start set or created it."""
    if admin_token:
        shown: str | None = await asyncio.to_thread(set_admin_token, engine, admin_token)
    else:
        shown = await asyncio.to_thread(ensure_admin_token, engine)
    voided = await AsyncStore(engine)(store.void_interrupted_games)
    if voided:
        log.warning("voided %d games interrupted by the last stop; they will be played again", voided)
    return shown


GC_THRESHOLDS = (50_000, 20, 100)
"""Python's default (700, 10, 10) collects the young generation every 700 net allocations; the
arena makes dozens of short-lived objects per decision, nearly none of them in cycles, and those
collections took about 5% of its CPU (perf, under benchmarks/arena_throughput.py)."""


def tune_gc() -> None:
    """Collect less often, and never scan the heap built at start-up (imports, tables): a server's
    tuning, applied by `serve` once the server runs; the throughput benchmark applies it too."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def announce_json(arena: ArenaServer) -> None:
    """Stdout's first line for a parent process: `{"port": ..., "admin_token": ..., "tls": ...,
    "web": <the web pages' address, or null>}`."""
    web = None if arena.web is None else arena.web.url
    print(json.dumps({"port": arena.port, "admin_token": arena.admin_token, "tls": arena.tls, "web": web}), flush=True)


async def serve(config: ServerConfig, announce: Callable[[ArenaServer], None] = announce_json) -> None:
    """Run until SIGTERM or SIGINT; `announce` tells the world where it listens once it does.
    The signals are caught from the start, so one sent right after the announcement still stops
    the server gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    arena = await start_server(config)
    tune_gc()
    announce(arena)
    log.info(
        "arena listening on %s:%d %s",
        config.host,
        arena.port,
        "with TLS" if arena.tls else "without TLS: tokens cross the network in plaintext",
    )
    await stop.wait()
    log.info("shutting down")
    await arena.stop()
