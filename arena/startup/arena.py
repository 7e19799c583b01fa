"""Start and stop an arena process: the gRPC server (`arena.api`), the tournament runner and the
web pages (`arena.web`), from one `ArenaSettings`; `scout-arena serve` (`arena.cli.app`) runs one.

With `--json` the first line on stdout is one JSON object (`announce_json`), `{"port": <bound
port>, "admin_token": "<token>", "tls": <bool>, "web": "<http://host:port/ or null>"}`, so a
parent process can read where the server listens, how to call admin RPCs, whether to connect
with TLS and where the web pages are (`--http-port`: served in the same event loop as the gRPC
server, with a database only). `--admin-token` defaults to $SCOUT_ARENA_ADMIN_TOKEN, so a token
need not be on a command line (where `ps` shows it); `--tls-cert` and `--tls-key` serve TLS
(`arena.api.tls`), and without them the server speaks plaintext and says so in its log. Logs go
to stderr. SIGTERM or SIGINT stops it gracefully: health turns NOT_SERVING, calls in flight get
`arena.api.server.SHUTDOWN_GRACE_S` to finish, then the rest are cancelled.

With `--db URL` (`arena.storage.database`: a SQLite file or PostgreSQL) bots, tournaments, games
and ratings are kept there and the tournament runner (`arena.tournaments.runner`) plays due
tournaments; at start the interrupted games of a previous run are voided and unfinished
tournaments resume. The arena holds a lock on its database while it runs (`arena.storage.lock`):
a second arena on it exits with one line naming the holder; a cluster's nodes share it, so a
single arena and nodes never serve one database together. The admin token is then stored as a
hash (`arena.storage.credentials`): `admin_token` is the token only when this start created it
(the database's first) or was given it, else null. With `--in-memory` (no database) everything is
kept in memory and there are no tournaments (tests and benchmarks).
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

from sqlalchemy.engine import Engine

from arena.api.arena_service import ArenaService
from arena.api.bot_session_service import BotSessionService
from arena.api.resources import fit_open_file_limit, option
from arena.api.server import SHUTDOWN_GRACE_S, GrpcServer, grpc_server, listen_on, start_serving
from arena.directory import BotDirectory, InMemoryBotDirectory, new_token
from arena.errors import ArenaError
from arena.names import shown
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Referee
from arena.play.sessions import SessionHub
from arena.play.spectators import SpectatorHub
from arena.startup.settings import ArenaSettings
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
from arena.web.limits import web_option

if TYPE_CHECKING:
    from arena.cluster.join import Cluster
    from arena.web.serving import WebServer

log = logging.getLogger(__name__)

ADMIN_TOKEN_VARIABLE = "SCOUT_ARENA_ADMIN_TOKEN"
"""The environment variable an arena's admin token may come from (the command lines read it too)."""


@dataclass
class ArenaServer:
    """A running arena: its gRPC server and the parts the services and pages share."""

    grpc: GrpcServer
    port: int
    admin_token: str | None
    """The admin token, unless a database already held it (only its hash is kept)."""
    hub: SessionHub
    referee: Referee
    directory: BotDirectory
    engine: Engine | None = None
    runner: asyncio.Task[None] | None = None
    """The tournament runner's task, with a database."""
    tls: bool = False
    """Whether it serves TLS."""
    lock: DatabaseLock | None = None
    """The lock on its database (`arena.storage.lock`), held until `stop`."""
    casual: CasualLimits = field(default_factory=CasualLimits)
    """The Play room's limits (`ArenaSettings.casual`), read by the web pages."""
    web: WebServer | None = None
    """The web pages, served in this event loop, when `ArenaSettings.http_port` asked for them."""
    cluster: Cluster | None = None
    """This node's part in a cluster (`arena.cluster`), when `ArenaSettings.cluster` asked for one."""

    async def stop(self, grace: float = SHUTDOWN_GRACE_S) -> None:
        """Stop the web pages, report NOT_SERVING, stop the tournament games, let calls in flight
        finish within `grace` seconds, then stop; games cut short are voided, to be replayed at
        the next start."""
        if self.web is not None:
            await self.web.stop()
        await self.grpc.health.enter_graceful_shutdown()
        if self.cluster is not None:
            await self.cluster.close()
        if self.runner is not None:
            self.runner.cancel()
            await asyncio.gather(self.runner, return_exceptions=True)
        await self.grpc.server.stop(grace)
        if self.engine is not None:
            if self.cluster is None:  # a node hands back its own leases as its runner stops
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


async def start_arena(
    settings: ArenaSettings,
    directory: BotDirectory | None = None,
    on_answer: Callable[[float], None] | None = None,
) -> ArenaServer:
    """Build, bind and start the arena. `directory` defaults to an in-memory one, or the
    database's with `settings.database_url`; `on_answer` is the referee's metrics hook (see
    `Referee`). A database problem, or an open-file limit too low for the connection caps, raises
    `arena.errors.ArenaError` with a one-line reason; a port that cannot be bound, OSError. The
    running loop's uncaught errors are logged one line each from then on (`log_loop_error`)."""
    asyncio.get_running_loop().set_exception_handler(log_loop_error)
    credentials = None if settings.tls is None else settings.tls.credentials()
    resources = settings.resources
    caps = {option("max_connections"): resources.max_connections}
    if settings.serves_web:
        caps[web_option("max_connections")] = settings.web_limits.max_connections
    fit_open_file_limit(caps)
    hub = SessionHub()
    referee = Referee(hub, on_answer, SpectatorHub())
    engine = runner = lock = None
    arena_service: ArenaService
    admin_token: str | None
    if settings.database_url is None:
        directory = directory if directory is not None else InMemoryBotDirectory()
        admin_token = settings.admin_token or new_token()
        arena_service = ArenaService(
            directory, referee, FixedAdminToken(admin_token), settings.limits, settings.registrations_per_minute
        )
    else:
        engine = await asyncio.to_thread(open_database, settings.database_url)
        # A cluster's nodes share the database's lock; a single arena holds it alone (docs/scale-out.md).
        node = None if settings.cluster is None else settings.cluster.node
        try:
            lock = await asyncio.to_thread(
                lock_database, engine.url, shown_database(engine.url), engine=engine, node=node
            )
        except BaseException:
            engine.dispose()
            raise
        db = AsyncStore(engine)
        directory = directory if directory is not None else StoredBotDirectory(engine)
        admin_token = None
        runner = TournamentRunner(db, referee, hub) if settings.cluster is None else _node(settings, db, referee, hub)
        arena_service = ArenaService(
            directory,
            referee,
            StoredAdminToken(engine),
            settings.limits,
            settings.registrations_per_minute,
            resources,
            db=db,
            runner=runner,
        )
    server = grpc_server(resources, BotSessionService(directory, hub, resources.hello_timeout_ms / 1000), arena_service)
    bound = listen_on(server, settings.host, settings.port, credentials)
    web_socket = None
    if not isinstance(bound, str) and settings.serves_web:
        # Imported only when pages are served: FastAPI is a second's import on a busy machine.
        from arena.web.serving import bind

        assert settings.http_port is not None
        try:
            web_socket = bind(settings.host, settings.http_port)
        except OSError as exc:
            bound = str(exc)
    if isinstance(bound, str):
        if lock is not None:
            lock.release()
        if engine is not None:
            engine.dispose()
        raise OSError(bound)
    if engine is not None:
        # Only once the port is ours: a start that cannot listen neither creates an admin token
        # nobody sees nor voids the games of the arena that holds the port.
        admin_token = await _take_over_database(engine, settings.admin_token, settings.cluster is not None)
    cluster = None if settings.cluster is None else await _join(settings, hub, referee, lock, engine)
    if cluster is not None:
        from arena.cluster.node import ClusterNode

        assert isinstance(runner, ClusterNode)
        runner.join(cluster)
    await start_serving(server)
    task = None if runner is None else asyncio.create_task(runner.run(), name="tournament runner")
    arena = ArenaServer(
        server,
        bound,
        admin_token,
        hub,
        referee,
        directory,
        engine,
        task,
        tls=credentials is not None,
        lock=lock,
        casual=settings.casual,
        cluster=cluster,
    )
    if web_socket is not None:
        from arena.web.app import create_app
        from arena.web.serving import start_web

        assert engine is not None
        app = create_app(engine, arena=arena, limits=settings.web_limits)
        arena.web = await start_web(app, web_socket, settings.web_limits)
    return arena


async def _join(
    settings: ArenaSettings, hub: SessionHub, referee: Referee, lock: DatabaseLock | None, engine: Engine | None
) -> Cluster:
    """Join the cluster of `settings.cluster` before any bot connects, so that every stream is announced;
    a NATS server that does not answer is an `ArenaError` (the port and database are let go)."""
    from arena.cluster.join import connect_cluster  # only cluster mode needs nats-py

    assert settings.cluster is not None and referee.spectators is not None
    try:
        return await connect_cluster(settings.cluster.nats_url, settings.cluster.node, hub, referee.spectators)
    except Exception as exc:
        if lock is not None:
            lock.release()
        if engine is not None:
            engine.dispose()
        raise ArenaError(
            f"cannot join the cluster at {settings.cluster.nats_url}: {exc or type(exc).__name__}"
        ) from None


def _node(settings: ArenaSettings, db: AsyncStore, referee: Referee, hub: SessionHub) -> TournamentRunner:
    """The runner of a cluster's node (`arena.cluster.node`): it claims games instead of playing
    schedules, once it has joined the cluster."""
    from arena.cluster.node import ClusterNode  # only cluster mode needs nats-py

    assert settings.cluster is not None
    cluster = settings.cluster
    return ClusterNode(db, referee, hub, cluster.node, lease_s=cluster.lease_s, games=cluster.node_games)


async def _take_over_database(engine: Engine, admin_token: str | None, cluster: bool) -> str | None:
    """Set (or create, on the first start) the admin token and void the games the last stop
    interrupted (not a cluster's node: the running games are other nodes' until their leases run
    out); returns the admin token if this start set or created it."""
    if admin_token:
        shown: str | None = await asyncio.to_thread(set_admin_token, engine, admin_token)
    else:
        shown = await asyncio.to_thread(ensure_admin_token, engine)
    if cluster:
        return shown
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


async def serve(settings: ArenaSettings, announce: Callable[[ArenaServer], None] = announce_json) -> None:
    """Run until SIGTERM or SIGINT; `announce` tells the world where it listens once it does.
    The signals are caught from the start, so one sent right after the announcement still stops
    the server gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    arena = await start_arena(settings)
    tune_gc()
    announce(arena)
    log.info(
        "arena listening on %s:%d %s",
        settings.host,
        arena.port,
        "with TLS" if arena.tls else "without TLS: tokens cross the network in plaintext",
    )
    await stop.wait()
    log.info("shutting down")
    await arena.stop()
