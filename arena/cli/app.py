"""`scout-arena`: run an arena, organise tournaments, and read ratings and games.

    scout-arena serve [--db URL] [--host H] [--port N] [--tls-cert FILE --tls-key FILE] [--http-port N | --no-http]
    scout-arena web [--db URL] [--host H] [--port 8080]
    scout-arena tournament create NAME --table-size 4 --games-per-table 2 --starts-at 2030-01-04T18:00Z
    scout-arena tournament create NAME --starts-at +10m --until-settled [--confidence 0.95] [--top K] [--max-games N]
    scout-arena tournament list | show NAME | start NAME | seeds NAME
    scout-arena bot register NAME | list
    scout-arena ratings [--tournament NAME] [--bootstrap N]
    scout-arena head-to-head [--tournament NAME]
    scout-arena games list [--tournament NAME] | show ID | export [--tournament NAME] | verify --tournament NAME
    scout-arena admin rotate-token --db URL
    scout-arena db status | upgrade [--db URL]
    scout-arena demo [--http-port N | --no-http] [--linger SECONDS]

`serve` also serves the web pages (`arena.web`) on --http-port; `web` serves them alone over a
database, read-only. Every command except `serve`, `web`, `demo`, `admin` and `db` talks to a
running arena (`--server HOST:PORT`, default 127.0.0.1:50051), or with `--db URL` (or a SQLite
file's path) works on the database directly, for when no server runs. Organiser commands
(creating and starting tournaments, reading their seeds early) need the admin token over gRPC:
`--admin-token`, or SCOUT_ARENA_ADMIN_TOKEN. To
an arena that serves TLS, connect with `scout-arena --tls COMMAND ...` (the system's CAs) or
`--tls-ca FILE` (a private CA), options of `scout-arena` itself that every command uses (`sdk.tls`).
A mistake prints one `error:` line and exits with status 1 (2 for a malformed command line). Every
read command takes `--json` and prints one JSON document instead of its table (`arena.documents`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console, RenderableType

from arena import documents
from arena.api.resources import (
    DEFAULT_REGISTRATIONS_PER_MINUTE,
    OPTION_HELP,
    ResourceLimits,
    fit_open_file_limit,
)
from arena.cli import demo as demo_module
from arena.cli.replay import replay_lines
from arena.cli.views import (
    bots_table,
    crosstable_view,
    game_header,
    games_table,
    ratings_table,
    seeds_view,
    tournament_view,
    tournaments_table,
    voided_lines,
    when,
)
from arena.errors import ArenaError
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Limits
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S, MAX_SPECTATOR_DELAY_S
from arena.ratings.rank_confidence import MAX_RESAMPLES
from arena.records import GameStatus
from arena.storage import DEFAULT_DATABASE_URL
from arena.tournaments.entries import MAX_ENTRANTS
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import (
    DEFAULT_CONFIDENCE,
    DEFAULT_MARGIN,
    DEFAULT_MAX_GAMES,
    StopRule,
    largest_settled_field,
)
from arena.tournaments.verification import verify
from arena.web import DEFAULT_HTTP_PORT
from arena.web.limits import WEB_OPTION_HELP, WebLimits, web_option
from sdk import env
from sdk.addresses import DEFAULT_TARGET
from sdk.cli import OneLineGroup

if TYPE_CHECKING:
    from arena.cli.clients import ArenaClient
    from arena.ratings.table import RatingRow
    from arena.startup.arena import ArenaServer
    from sdk.tls import ClientTls

DEFAULT_SERVER = DEFAULT_TARGET
_DURATION = re.compile(r"\+(\d+)([smhd])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
PAST_TOLERANCE = timedelta(minutes=1)
"""How far in the past a start time may be and still mean now (`parse_start`)."""
_POLICY = FailurePolicy()
"""The failure policy's defaults, shown by `tournament create --help`."""
_RESOURCES = ResourceLimits()
_LIMITS = Limits()
_WEB = WebLimits()
_CASUAL = CasualLimits()


_CONNECTION_OPTIONS = ("--tls", "--tls-ca", "--tls-server-name")


class _ArenaGroup(OneLineGroup):
    """One-line usage errors, and every `ArenaError` as one `error:` line with status 1."""

    def explain(self, exc: typer.TyperException) -> str:
        option = getattr(exc, "option_name", None)
        if option in _CONNECTION_OPTIONS:
            return f"{option} goes before the command, as in `scout-arena {option} ... tournament list`"
        return super().explain(exc)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except ArenaError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None


def _group(help: str) -> typer.Typer:
    return typer.Typer(cls=_ArenaGroup, help=help, no_args_is_help=True, add_completion=False)


app = _group("Run a Scout Arena, organise tournaments, and read ratings and game records.")
tournament_app = _group("Create, list, show and start tournaments.")
bot_app = _group("Register and list bots.")
games_app = _group("List, replay and export tournament games.")
admin_app = _group("Look after the arena's admin token.")
db_app = _group("Look after the arena's database: its schema version and upgrades.")
app.add_typer(tournament_app, name="tournament")
app.add_typer(bot_app, name="bot")
app.add_typer(games_app, name="games")
app.add_typer(admin_app, name="admin")
app.add_typer(db_app, name="db")

ServerOption = Annotated[
    str,
    typer.Option(
        "--server",
        "--target",
        help="The arena's HOST:PORT; several comma-separated for the nodes of one cluster (the first that answers).",
        envvar=env.SERVER,
    ),
]
DbOption = Annotated[
    str | None,
    typer.Option(help="Work on this database (URL, or a SQLite file's path) instead of a server.", show_default=False),
]
AdminTokenOption = Annotated[
    str | None,
    typer.Option(help="The arena's admin token.", envvar=env.ADMIN_TOKEN, show_default=False),
]
TournamentOption = Annotated[str | None, typer.Option(help="Only this tournament.", show_default=False)]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print one JSON document instead of the table, for scripts "
        '(fields: docs/operator-guide.md, "Output for scripts").',
    ),
]


_CLIENT_TLS: ContextVar[ClientTls | None] = ContextVar("client_tls", default=None)
"""How this invocation connects to a running arena: set by `connection`, read by `arena`."""


@app.callback()
def connection(
    tls: Annotated[
        bool, typer.Option("--tls", help="Connect to the arena with TLS, trusting the system's CAs.", envvar=env.TLS)
    ] = False,
    tls_ca: Annotated[
        str | None,
        typer.Option(
            "--tls-ca",
            metavar="FILE",
            help="Connect with TLS, trusting only the CA certificates in this PEM file.",
            envvar=env.TLS_CA,
            show_default=False,
        ),
    ] = None,
    tls_server_name: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Connect with TLS, expecting this name in the arena's certificate (default: the host of --server).",
            envvar=env.TLS_SERVER_NAME,
            show_default=False,
        ),
    ] = None,
) -> None:
    """How every command that talks to a running arena connects to it."""
    if not (tls or tls_ca is not None or tls_server_name is not None):
        _CLIENT_TLS.set(None)  # plaintext; set each time, as a program that runs commands in turn needs
        return
    from sdk.tls import ClientTls  # gRPC's: a command that reads a database never needs it

    _CLIENT_TLS.set(ClientTls.from_options(tls, tls_ca, tls_server_name))


def show(as_json: bool, document: Callable[[], documents.Document], view: Callable[[], RenderableType]) -> None:
    """Print what a read command read: with --json as one JSON document and nothing else on stdout,
    else as its table. Both render the same read model."""
    if as_json:
        typer.echo(documents.dumps(document()))
    else:
        Console().print(view())


def fail(message: str) -> NoReturn:
    """End the command with one error line and status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


@contextmanager
def arena(server: str, db: str | None, admin_token: str | None = None, *, admin: bool = False) -> Iterator[ArenaClient]:
    """The arena a command works on: the database `db` if given, else the server at `server`
    (which needs the admin token for `admin` commands)."""
    client: ArenaClient
    if db is not None:
        from arena.cli.local import LocalArena

        client = LocalArena.open(db)
    else:
        from arena.cli.remote import RemoteArena

        if admin and not admin_token:
            fail(
                "this command needs the arena's admin token: pass --admin-token or set SCOUT_ARENA_ADMIN_TOKEN "
                "(or work on the database with --db)"
            )
        client = RemoteArena(server, admin_token, tls=_CLIENT_TLS.get())
    try:
        yield client
    finally:
        client.close()


def parse_start(text: str, now: datetime | None = None) -> datetime:
    """A start time: ISO 8601 (local time unless it names a zone), '+90s'/'+10m'/'+2h'/'+1d', or 'now'.

    A time more than PAST_TOLERANCE ago is refused: it is a typo (a wrong year, day or zone), and
    taken as given it would start the tournament at once, before any bot entered. Within the
    tolerance it is now, so a time typed to the minute still works."""
    now = now or datetime.now(UTC)
    if text == "now":
        return now
    if match := _DURATION.fullmatch(text):
        return now + timedelta(**{_UNITS[match[2]]: int(match[1])})
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(
            f"expected an ISO 8601 time such as 2030-01-04T18:00:00Z, +DURATION such as +10m, or 'now'; not {text!r}",
            param_hint="--starts-at",
        ) from None
    moment = moment if moment.tzinfo is not None else moment.astimezone()
    if moment < now - PAST_TOLERANCE:
        raise typer.BadParameter(
            f"{when(moment)} is in the past (it is {when(now)}): give a later time such as +10m, "
            "or 'now' to start at once",
            param_hint="--starts-at",
        )
    return moment


# ---- serve ----------------------------------------------------------------------------------------


@app.command(help="Run an arena: bots connect to it; it plays tournaments and keeps their ratings in the database.")
def serve(
    db: Annotated[str, typer.Option(help="Database URL, or a SQLite file's path.")] = DEFAULT_DATABASE_URL,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on; 0 picks a free one.")] = 50051,
    admin_token: Annotated[
        str | None,
        typer.Option(
            help="Make this the admin token (default: the stored one; a new one on the first start).",
            envvar=env.ADMIN_TOKEN,
            show_default=False,
        ),
    ] = None,
    in_memory: Annotated[
        bool,
        typer.Option(
            "--in-memory",
            help="Keep nothing: bots registered for this run only, no tournaments "
            "(tests and benchmarks); --db is ignored.",
        ),
    ] = False,
    move_ms: Annotated[
        int, typer.Option(help="Per-move limit of games played on demand (PlayGame).")
    ] = _LIMITS.move_ms,
    time_bank_ms: Annotated[
        int, typer.Option(help="Per-game time bank of games played on demand (PlayGame).")
    ] = _LIMITS.time_bank_ms,
    grace_ms: Annotated[
        int, typer.Option(help="How long a disconnected bot of a game played on demand may take to come back.")
    ] = _LIMITS.grace_ms,
    max_invalid: Annotated[
        int, typer.Option(help="Invalid answers that forfeit a seat of a game played on demand.")
    ] = _LIMITS.max_invalid,
    json_announce: Annotated[
        bool,
        typer.Option(
            "--json",
            help='Print one JSON line, {"port": ..., "admin_token": ..., "tls": ..., '
            '"web": ...}, '
            "once listening, for a parent process.",
        ),
    ] = False,
    log_level: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
    nats: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Run as one node of a cluster on this NATS server (nats://HOST:PORT, or several "
            "comma-separated); needs a PostgreSQL --db shared by every node (docs/scale-out.md).",
            show_default=False,
        ),
    ] = None,
    node: Annotated[
        str | None,
        typer.Option(
            help="This node's name in the cluster (with --nats); default the host's name.", show_default=False
        ),
    ] = None,
    lease_s: Annotated[
        float | None,
        typer.Option(
            help="How long a game this node claimed stays its own unrenewed (with --nats): other nodes "
            "replay a dead node's games this long after it died. Default 10.",
            show_default=False,
        ),
    ] = None,
    node_games: Annotated[
        int | None,
        typer.Option(help="How many games this node referees at once (with --nats). Default 64.", show_default=False),
    ] = None,
    tls_cert: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Serve TLS with this PEM certificate (then any intermediates); without it the arena speaks plaintext.",
            envvar=env.TLS_CERT,
            show_default=False,
        ),
    ] = None,
    tls_key: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="The certificate's PEM private key, unencrypted.",
            envvar=env.TLS_KEY,
            show_default=False,
        ),
    ] = None,
    registrations_per_minute: Annotated[
        int, typer.Option(min=1, help="Bot registrations one host may make per minute (all at once or spread out).")
    ] = DEFAULT_REGISTRATIONS_PER_MINUTE,
    max_connections: Annotated[int, typer.Option(help=OPTION_HELP["max_connections"])] = _RESOURCES.max_connections,
    max_streams_per_connection: Annotated[
        int, typer.Option(help=OPTION_HELP["max_streams_per_connection"])
    ] = _RESOURCES.max_streams_per_connection,
    max_calls: Annotated[int, typer.Option(help=OPTION_HELP["max_calls"])] = _RESOURCES.max_calls,
    handshake_timeout_ms: Annotated[
        int, typer.Option(help=OPTION_HELP["handshake_timeout_ms"])
    ] = _RESOURCES.handshake_timeout_ms,
    idle_connection_ms: Annotated[
        int, typer.Option(help=OPTION_HELP["idle_connection_ms"])
    ] = _RESOURCES.idle_connection_ms,
    hello_timeout_ms: Annotated[int, typer.Option(help=OPTION_HELP["hello_timeout_ms"])] = _RESOURCES.hello_timeout_ms,
    read_rate: Annotated[float, typer.Option(help=OPTION_HELP["read_rate"])] = _RESOURCES.read_rate,
    read_burst: Annotated[int, typer.Option(help=OPTION_HELP["read_burst"])] = _RESOURCES.read_burst,
    token_read_rate: Annotated[float, typer.Option(help=OPTION_HELP["token_read_rate"])] = _RESOURCES.token_read_rate,
    token_read_burst: Annotated[int, typer.Option(help=OPTION_HELP["token_read_burst"])] = _RESOURCES.token_read_burst,
    read_concurrency: Annotated[int, typer.Option(help=OPTION_HELP["read_concurrency"])] = _RESOURCES.read_concurrency,
    global_entry_rate: Annotated[
        float, typer.Option(help=OPTION_HELP["global_entry_rate"])
    ] = _RESOURCES.global_entry_rate,
    global_entry_burst: Annotated[
        int, typer.Option(help=OPTION_HELP["global_entry_burst"])
    ] = _RESOURCES.global_entry_burst,
    global_read_rate: Annotated[
        float, typer.Option(help=OPTION_HELP["global_read_rate"])
    ] = _RESOURCES.global_read_rate,
    global_read_burst: Annotated[
        int, typer.Option(help=OPTION_HELP["global_read_burst"])
    ] = _RESOURCES.global_read_burst,
    global_token_read_rate: Annotated[
        float, typer.Option(help=OPTION_HELP["global_token_read_rate"])
    ] = _RESOURCES.global_token_read_rate,
    global_token_read_burst: Annotated[
        int, typer.Option(help=OPTION_HELP["global_token_read_burst"])
    ] = _RESOURCES.global_token_read_burst,
    web_rate: Annotated[float, typer.Option(help=WEB_OPTION_HELP["rate"])] = _WEB.rate,
    web_burst: Annotated[int, typer.Option(help=WEB_OPTION_HELP["burst"])] = _WEB.burst,
    web_global_rate: Annotated[float, typer.Option(help=WEB_OPTION_HELP["global_rate"])] = _WEB.global_rate,
    web_global_burst: Annotated[int, typer.Option(help=WEB_OPTION_HELP["global_burst"])] = _WEB.global_burst,
    web_render_rate: Annotated[float, typer.Option(help=WEB_OPTION_HELP["render_rate"])] = _WEB.render_rate,
    web_render_burst: Annotated[int, typer.Option(help=WEB_OPTION_HELP["render_burst"])] = _WEB.render_burst,
    http_port: Annotated[
        int,
        typer.Option(
            min=0,
            max=65535,
            envvar=env.HTTP_PORT,
            help="Serve the web pages (ladders, tournaments, games) on this port of --host; 0 picks a "
            "free one. Not with --in-memory.",
        ),
    ] = DEFAULT_HTTP_PORT,
    no_http: Annotated[bool, typer.Option("--no-http", help="Serve no web pages.")] = False,
    web_max_connections: Annotated[int, typer.Option(help=WEB_OPTION_HELP["max_connections"])] = _WEB.max_connections,
    web_max_connections_per_address: Annotated[
        int, typer.Option(help=WEB_OPTION_HELP["max_connections_per_address"])
    ] = _WEB.max_connections_per_address,
    web_idle_timeout_ms: Annotated[int, typer.Option(help=WEB_OPTION_HELP["idle_timeout_ms"])] = _WEB.idle_timeout_ms,
    web_header_timeout_ms: Annotated[
        int, typer.Option(help=WEB_OPTION_HELP["header_timeout_ms"])
    ] = _WEB.header_timeout_ms,
    web_body_timeout_ms: Annotated[int, typer.Option(help=WEB_OPTION_HELP["body_timeout_ms"])] = _WEB.body_timeout_ms,
    web_max_body_bytes: Annotated[int, typer.Option(help=WEB_OPTION_HELP["max_body_bytes"])] = _WEB.max_body_bytes,
    play_games: Annotated[
        int, typer.Option(help="Casual games the web pages' Play room plays at once (its places).")
    ] = _CASUAL.max_games,
    play_places_per_address: Annotated[
        int, typer.Option(help="Play room places one address may hold; more of its games queue.")
    ] = _CASUAL.places_per_address,
    play_games_per_visitor: Annotated[
        int, typer.Option(help="Casual games one browser session (cookie) may play at once.")
    ] = _CASUAL.games_per_visitor,
    play_starts_per_address: Annotated[
        int, typer.Option(help="Casual games one address may start per 10 minutes.")
    ] = _CASUAL.starts_per_address,
    play_per_bot: Annotated[
        int,
        typer.Option(help="Casual games one connected bot plays at once (within its capacity; 0: none)."),
    ] = _CASUAL.per_bot,
    play_queue: Annotated[
        int, typer.Option(help="People who may wait for a Play room place at once (0: no queue).")
    ] = _CASUAL.queue,
) -> None:
    # Before logging is set up: importing Alembic (through the server's storage) logs its plugins at INFO.
    from arena.cli.clients import database_url
    from arena.startup.arena import announce_json
    from arena.startup.arena import serve as serve_arena
    from arena.startup.settings import ArenaSettings

    settings = ArenaSettings.from_options(
        host=host,
        port=port,
        admin_token=admin_token,
        database_url=None if in_memory else database_url(db),
        http_port=None if no_http or in_memory else http_port,
        tls_cert=tls_cert,
        tls_key=tls_key,
        registrations_per_minute=registrations_per_minute,
        log_level=log_level,
        nats_url=nats,
        node=node,
        lease_s=lease_s,
        node_games=node_games,
        limits={"move_ms": move_ms, "time_bank_ms": time_bank_ms, "grace_ms": grace_ms, "max_invalid": max_invalid},
        resources={
            "max_connections": max_connections,
            "max_streams_per_connection": max_streams_per_connection,
            "max_calls": max_calls,
            "handshake_timeout_ms": handshake_timeout_ms,
            "idle_connection_ms": idle_connection_ms,
            "hello_timeout_ms": hello_timeout_ms,
            "read_rate": read_rate,
            "read_burst": read_burst,
            "token_read_rate": token_read_rate,
            "token_read_burst": token_read_burst,
            "global_read_rate": global_read_rate,
            "global_read_burst": global_read_burst,
            "global_token_read_rate": global_token_read_rate,
            "global_token_read_burst": global_token_read_burst,
            "read_concurrency": read_concurrency,
            "global_entry_rate": global_entry_rate,
            "global_entry_burst": global_entry_burst,
        },
        web={
            "max_connections": web_max_connections,
            "max_connections_per_address": web_max_connections_per_address,
            "idle_timeout_ms": web_idle_timeout_ms,
            "header_timeout_ms": web_header_timeout_ms,
            "body_timeout_ms": web_body_timeout_ms,
            "max_body_bytes": web_max_body_bytes,
            "rate": web_rate,
            "burst": web_burst,
            "global_rate": web_global_rate,
            "global_burst": web_global_burst,
            "render_rate": web_render_rate,
            "render_burst": web_render_burst,
        },
        casual={
            "max_games": play_games,
            "places_per_address": play_places_per_address,
            "games_per_visitor": play_games_per_visitor,
            "starts_per_address": play_starts_per_address,
            "per_bot": play_per_bot,
            "queue": play_queue,
        },
    )
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(message)s",
        datefmt="%H:%M:%S",
        stream=sys.stderr,
    )

    def announce(server: ArenaServer) -> None:
        if json_announce:
            announce_json(server)
            return
        secured = f"with TLS ({tls_cert})" if server.tls else "without TLS (plaintext)"
        typer.echo(
            f"Scout Arena listening on {host}:{server.port} {secured}, {'in memory' if in_memory else f'database {db}'}"
        )
        if admin_token is None and server.admin_token is not None:
            typer.echo(f"Admin token (shown this once; only its hash is kept): {server.admin_token}")
            typer.echo(
                "Organiser commands read it from SCOUT_ARENA_ADMIN_TOKEN; `scout-arena admin rotate-token` replaces it."
            )
        elif admin_token is None and not in_memory:
            typer.echo(
                f"Admin token: the one stored (lost it? `scout-arena admin rotate-token --db {db}` prints a new one)"
            )
        if server.web is not None:
            typer.echo(f"Web pages: {server.web.url}")
        sys.stdout.flush()

    try:
        asyncio.run(serve_arena(settings, announce))
    except OSError as exc:
        fail(str(exc))


@app.command(help="Serve a database's web pages (ladders, tournaments, bots, games), read-only, without an arena.")
def web(
    db: Annotated[str, typer.Option(help="Database URL, or a SQLite file's path.")] = DEFAULT_DATABASE_URL,
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for every interface).")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, envvar=env.HTTP_PORT, help="Port to listen on; 0 picks a free one.")
    ] = DEFAULT_HTTP_PORT,
    web_max_connections: Annotated[int, typer.Option(help=WEB_OPTION_HELP["max_connections"])] = _WEB.max_connections,
    web_max_connections_per_address: Annotated[
        int, typer.Option(help=WEB_OPTION_HELP["max_connections_per_address"])
    ] = _WEB.max_connections_per_address,
    web_idle_timeout_ms: Annotated[int, typer.Option(help=WEB_OPTION_HELP["idle_timeout_ms"])] = _WEB.idle_timeout_ms,
    web_header_timeout_ms: Annotated[
        int, typer.Option(help=WEB_OPTION_HELP["header_timeout_ms"])
    ] = _WEB.header_timeout_ms,
    web_body_timeout_ms: Annotated[int, typer.Option(help=WEB_OPTION_HELP["body_timeout_ms"])] = _WEB.body_timeout_ms,
    web_max_body_bytes: Annotated[int, typer.Option(help=WEB_OPTION_HELP["max_body_bytes"])] = _WEB.max_body_bytes,
) -> None:
    """Only reads: the database must hold an arena already (nothing is created or migrated), and
    it may be one a running arena serves."""
    try:
        limits = WebLimits.from_options(
            {
                "max_connections": web_max_connections,
                "max_connections_per_address": web_max_connections_per_address,
                "idle_timeout_ms": web_idle_timeout_ms,
                "header_timeout_ms": web_header_timeout_ms,
                "body_timeout_ms": web_body_timeout_ms,
                "max_body_bytes": web_max_body_bytes,
            }
        )
        fit_open_file_limit({web_option("max_connections"): limits.max_connections})
    except (ValueError, ArenaError) as exc:
        fail(str(exc))
    # Here, not at the top: FastAPI is a second's import on a busy machine, and no other command needs
    # it; and after the open-file check, so a refusal exits before gRPC's poller (which the web app's
    # imports start) can trip over the process's end.
    from arena.cli.local import LocalArena
    from arena.web.app import create_app
    from arena.web.serving import WebServer, bind, serve_database

    try:
        engine = LocalArena.open(db).engine
        sock = bind(host, port)
    except (ValueError, ArenaError, OSError) as exc:
        fail(str(exc))

    def announce(server: WebServer) -> None:
        typer.echo(f"Scout Arena web pages: {server.url} (database {db}, read-only; Ctrl-C stops)")
        sys.stdout.flush()

    try:
        asyncio.run(serve_database(create_app(engine, limits=limits), sock, announce, limits))
    finally:
        engine.dispose()


# ---- tournaments ----------------------------------------------------------------------------------


@tournament_app.command("create", help="Create a tournament; bots enter it until it starts.")
def tournament_create(
    name: Annotated[str, typer.Argument(help="Its unique name.", show_default=False)],
    starts_at: Annotated[
        str,
        typer.Option(
            help="When it starts: ISO 8601 (2030-01-04T18:00:00Z; local time without a zone), "
            "+DURATION (+90s, +10m, +2h, +1d) or 'now'; not in the past. Until then bots may enter.",
            show_default=False,
        ),
    ],
    table_size: Annotated[int, typer.Option("--table-size", "--seats", help="Players at each table, 2 to 5.")] = 4,
    games_per_table: Annotated[int, typer.Option(help="Games at each scheduled table, each a fresh deal.")] = 1,
    move_ms: Annotated[int, typer.Option("--move-ms", help="Per-move time limit in ms.")] = Limits().move_ms,
    concurrency: Annotated[int, typer.Option(help="Games of it played at once.")] = 4,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the schedule and every deal (default: random); kept secret "
            "until the tournament finishes, so choose one nobody can guess."
        ),
    ] = None,
    absent_wait_ms: Annotated[
        int, typer.Option(help="How long a bot absent when its game is due is waited for before it forfeits.")
    ] = _POLICY.absent_wait_ms,
    grace_ms: Annotated[
        int, typer.Option(help="How long a bot cut off mid-game may take to come back.")
    ] = _POLICY.grace_ms,
    time_bank_ms: Annotated[int, typer.Option(help="Extra time per seat per game.")] = _POLICY.time_bank_ms,
    max_invalid: Annotated[
        int, typer.Option(help="Illegal answers to one request that forfeit the seat.")
    ] = _POLICY.max_invalid,
    on_timeout: Annotated[
        FailureAction, typer.Option(help="A seat that times out: forfeit it, or void the game and play it again.")
    ] = _POLICY.on_timeout,
    on_illegal: Annotated[
        FailureAction, typer.Option(help="A seat forfeited for illegal answers: forfeit it, or void and replay.")
    ] = _POLICY.on_illegal,
    on_disconnect: Annotated[
        FailureAction, typer.Option(help="A seat whose bot dropped out mid-game: forfeit it, or void and replay.")
    ] = _POLICY.on_disconnect,
    on_absent: Annotated[
        FailureAction, typer.Option(help="A seat whose bot was absent at the start: forfeit it, or void and replay.")
    ] = _POLICY.on_absent,
    max_replays: Annotated[
        int, typer.Option(help="Times one game may be voided and replayed; then its failures forfeit.")
    ] = _POLICY.max_replays,
    max_voids_per_bot: Annotated[
        int, typer.Option(help="Voids one bot may cause in the tournament; then its failures forfeit.")
    ] = _POLICY.max_voids_per_bot,
    rounds: Annotated[
        int | None,
        typer.Option(
            help="Play N rounds, each entrant once in every seat per round, instead of a full round robin "
            "(for large fields).",
            show_default=False,
        ),
    ] = None,
    max_entrants: Annotated[
        int | None,
        typer.Option(help=f"Most bots that may enter (default: the arena's {MAX_ENTRANTS}).", show_default=False),
    ] = None,
    entry_code: Annotated[
        str | None,
        typer.Option(help="Only bots giving this code may enter (the arena keeps its hash).", show_default=False),
    ] = None,
    until_settled: Annotated[
        bool,
        typer.Option(
            "--until-settled",
            help="Play the schedule round after round until the rating table's top "
            "places are settled (the stop rule), or --max-games is reached.",
        ),
    ] = False,
    confidence: Annotated[
        float | None,
        typer.Option(
            help=f"With --until-settled: the chance that no settled pair is in the wrong order "
            f"[default: {DEFAULT_CONFIDENCE}].",
            show_default=False,
        ),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option(
            help="With --until-settled: settle the first K places, each proven above the bot below it [default: all].",
            show_default=False,
        ),
    ] = None,
    max_games: Annotated[
        int | None,
        typer.Option(
            help=f"With --until-settled: start no round that would go over N games [default: {DEFAULT_MAX_GAMES}].",
            show_default=False,
        ),
    ] = None,
    equal_margin: Annotated[
        float | None,
        typer.Option(
            help="With --until-settled: two bots count as equal once shown to finish above each other less "
            f"than 1/2 + MARGIN of the time, 0..0.4; 0: never equal [default: {DEFAULT_MARGIN}].",
            show_default=False,
        ),
    ] = None,
    spectator_delay: Annotated[
        int,
        typer.Option(
            "--spectator-delay",
            help=f"Seconds after a move that spectators of its live games see "
            f"it, 0..{MAX_SPECTATOR_DELAY_S}, so nobody can relay a running game to its bots.",
        ),
    ] = DEFAULT_SPECTATOR_DELAY_S,
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    admin_token: AdminTokenOption = None,
) -> None:
    stop_rule = _stop_rule(until_settled, confidence, top, max_games, equal_margin)
    policy = FailurePolicy(
        absent_wait_ms=absent_wait_ms,
        grace_ms=grace_ms,
        time_bank_ms=time_bank_ms,
        max_invalid=max_invalid,
        on_timeout=on_timeout,
        on_illegal=on_illegal,
        on_disconnect=on_disconnect,
        on_absent=on_absent,
        max_replays=max_replays,
        max_voids_per_bot=max_voids_per_bot,
    )
    settings = TournamentSettings(
        name,
        table_size,
        games_per_table,
        parse_start(starts_at),
        move_ms,
        concurrency,
        seed,
        policy,
        rounds,
        max_entrants,
        entry_code,
        stop_rule,
        spectator_delay,
    )
    with arena(server, db, admin_token, admin=True) as client:
        made = client.create_tournament(settings)
    console = Console()
    console.print(f"Created tournament {made.name!r}; bots may enter until it starts.", highlight=False, markup=False)
    console.print(tournament_view(made))
    if stop_rule is not None:
        _warn_unsettled(stop_rule, table_size, max_entrants)


def _warn_unsettled(rule: StopRule, table_size: int, max_entrants: int | None) -> None:
    """Warn on stderr when the cap is unlikely to settle the field: one whose neighbours finish
    above each other 65% of the time (`games_to_settle`), of the tournament's most entrants."""
    most = max_entrants or MAX_ENTRANTS
    largest = largest_settled_field(table_size, rule, most)
    if largest == most:
        return
    fits = f"settles at most {largest} entrants" if largest else "settles no field"
    typer.echo(
        f"warning: a cap of {rule.max_games} games {fits} whose neighbours finish above each other 65% of the "
        f"time, and up to {most} may enter: raise --max-games, lower --max-entrants, set --top or a wider "
        "--equal-margin, or expect the cap to end it",
        err=True,
    )


def _stop_rule(
    until_settled: bool, confidence: float | None, top: int | None, max_games: int | None, margin: float | None
) -> StopRule | None:
    """The stop rule the options ask for; each of its options needs --until-settled."""
    given = {"--confidence": confidence, "--top": top, "--max-games": max_games, "--equal-margin": margin}
    if not until_settled:
        for option, value in given.items():
            if value is not None:
                fail(f"{option} belongs to the stop rule: add --until-settled")
        return None
    return StopRule(
        confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
        top=top,
        max_games=DEFAULT_MAX_GAMES if max_games is None else max_games,
        margin=DEFAULT_MARGIN if margin is None else margin,
    )


@tournament_app.command("list", help="List every tournament with its progress.")
def tournament_list(server: ServerOption = DEFAULT_SERVER, db: DbOption = None, as_json: JsonOption = False) -> None:
    with arena(server, db) as client:
        listed = client.tournaments()
    show(as_json, lambda: documents.tournaments(listed), lambda: tournaments_table(listed))


@tournament_app.command("show", help="Show a tournament's options, entrants and progress.")
def tournament_show(
    name: Annotated[str, typer.Argument(show_default=False)],
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        shown = client.tournament(name)
    show(as_json, lambda: documents.tournament(shown), lambda: tournament_view(shown))


@tournament_app.command("start", help="Start a tournament now: close its entries and schedule its games.")
def tournament_start(
    name: Annotated[str, typer.Argument(show_default=False)],
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    admin_token: AdminTokenOption = None,
) -> None:
    with arena(server, db, admin_token, admin=True) as client:
        started = client.start_tournament(name)
    Console().print(
        f"Started tournament {started.name!r}: {started.games.total} games scheduled among "
        f"{len(started.entrants)} entrants.",
        highlight=False,
        markup=False,
    )


@tournament_app.command("seeds", help="Show a tournament's secret seeds before they are public (organiser only).")
def tournament_seeds(
    name: Annotated[str, typer.Argument(show_default=False)],
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    admin_token: AdminTokenOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db, admin_token, admin=True) as client:
        reveal = client.reveal_seeds(name)
    show(as_json, lambda: documents.seeds(reveal), lambda: seeds_view(reveal))


# ---- bots and ratings -------------------------------------------------------------------------------


@bot_app.command("register", help="Register a bot and print its token (shown once).")
def bot_register(
    name: Annotated[str, typer.Argument(show_default=False)], server: ServerOption = DEFAULT_SERVER, db: DbOption = None
) -> None:
    with arena(server, db) as client:
        token = client.register_bot(name)
    typer.echo(f"Registered bot {name!r}. Its token, shown this once: {token}")


@bot_app.command("list", help="List the registered bots.")
def bot_list(server: ServerOption = DEFAULT_SERVER, db: DbOption = None, as_json: JsonOption = False) -> None:
    with arena(server, db) as client:
        listed = client.bots()
    show(as_json, lambda: documents.bots(listed), lambda: bots_table(listed))


BootstrapOption = Annotated[
    int,
    typer.Option(
        min=0,
        max=MAX_RESAMPLES,
        metavar="N",
        help="Also resample the games N times and recompute the ratings, to show how often each row's upper "
        "neighbour stays ahead (at most 50,000 game ratings: N × games).",
    ),
]


@app.command(help="Show a tournament's rating table, or the global ladder, with how sure each rank is.")
def ratings(
    tournament: TournamentOption = None,
    bootstrap: BootstrapOption = 0,
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        rows = client.ratings(tournament, bootstrap)
        stop = client.tournament(tournament).stop if tournament else None
    show(
        as_json,
        lambda: documents.ratings(tournament, rows, stop),
        lambda: ratings_table(rows, f"Ratings: {_scope(tournament)}", stop),
    )


@app.command("head-to-head", help="Show the crosstable: how each pair of bots did in the games they shared.")
def head_to_head(
    tournament: TournamentOption = None,
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        rows, table = client.ratings(tournament), client.head_to_head(tournament)
    show(
        as_json,
        lambda: documents.head_to_head(tournament, table),
        lambda: crosstable_view(rows, table, f"Head to head: {_scope(tournament)}"),
    )


def _scope(tournament: str | None) -> str:
    return f"tournament {tournament}" if tournament else "global ladder"


# ---- games -------------------------------------------------------------------------------------------


@games_app.command("list", help="List tournament games with their results.")
def games_list(
    tournament: TournamentOption = None,
    status: Annotated[GameStatus | None, typer.Option(help="Only games in this state.", show_default=False)] = None,
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        listed = client.games(tournament, status)
    show(as_json, lambda: documents.games(listed), lambda: games_table(listed))


@games_app.command("show", help="Replay a game move by move.")
def games_show(
    game_id: Annotated[int, typer.Argument(metavar="ID", show_default=False)],
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        detail = client.game(game_id)
    if as_json:
        typer.echo(documents.dumps(documents.game(detail)))
        return
    console = Console(highlight=False)
    for line in (game_header(detail.info), *voided_lines(detail.voided), *replay_lines(detail)):
        console.print(line, markup=False, soft_wrap=True)


@games_app.command(
    "export",
    help="Write every finished game as a JSON line: each its `games show --json` document "
    "(record, results, seats), on one line.",
)
def games_export(
    tournament: TournamentOption = None,
    output: Annotated[
        Path | None, typer.Option(help="Write to this file instead of stdout.", show_default=False)
    ] = None,
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
) -> None:
    with arena(server, db) as client:
        lines = client.export(tournament)
        if output is None:
            for line in lines:
                typer.echo(line)
            return
        try:
            with output.open("w") as out:
                count = sum(out.write(line + "\n") > 0 for line in lines)
        except OSError as exc:
            fail(f"cannot write {output}: {exc.strerror}")
    typer.echo(f"exported {count} games to {output}", err=True)


@games_app.command(
    "verify",
    help="Check a tournament's revealed seeds against its commitment and re-deal and "
    "replay every finished game from its seed.",
)
def games_verify(
    tournament: Annotated[str, typer.Option(help="The tournament to check.", show_default=False)],
    server: ServerOption = DEFAULT_SERVER,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    with arena(server, db) as client:
        shown = client.tournament(tournament)
        games = [client.game(g.id) for g in client.games(tournament, GameStatus.FINISHED)]
    checked = verify(shown, games)
    if as_json:
        typer.echo(documents.dumps(documents.verification(checked)))
    else:
        for problem in checked.problems:
            typer.echo(f"FAILED: {problem}", err=True)
        typer.echo(checked.summary())
    if not checked.ok:
        raise typer.Exit(1)


# ---- admin -------------------------------------------------------------------------------------------


@admin_app.command(
    "rotate-token", help="Replace the admin token and print the new one; the old one stops working at once."
)
def admin_rotate_token(
    db: Annotated[str, typer.Option(help="The arena's database (URL, or a SQLite file's path).", show_default=False)],
) -> None:
    from arena.cli.local import LocalArena
    from arena.storage.credentials import set_admin_token

    local = LocalArena.open(db)
    try:
        token = set_admin_token(local.engine)
    finally:
        local.close()
    typer.echo(f"New admin token (shown this once): {token}")


# ---- db ----------------------------------------------------------------------------------------------

SchemaDbOption = Annotated[str, typer.Option("--db", help="The database (URL, or a SQLite file's path).")]


@db_app.command(
    "status",
    help="Say which schema version the database has and whether it needs upgrading "
    "(exit status 0 if an arena can use it as it is).",
)
def db_status(db: SchemaDbOption = DEFAULT_DATABASE_URL) -> None:
    from arena.cli.clients import database_url
    from arena.storage import upgrade as schema_upgrade

    usable, line = schema_upgrade.status(database_url(db))
    typer.echo(line)
    if not usable:
        raise typer.Exit(1)


@db_app.command(
    "upgrade",
    help="Bring the database to this arena's schema version, keeping its data "
    "(one transaction; back it up first). Refused while an arena serves it.",
)
def db_upgrade(db: SchemaDbOption = DEFAULT_DATABASE_URL) -> None:
    from arena.cli.clients import database_url
    from arena.storage import upgrade as schema_upgrade

    typer.echo(schema_upgrade.upgrade(database_url(db)))


# ---- demo ----------------------------------------------------------------------------------------


@app.command(help="Run a demo tournament of the example bots, each its own process, and show the ratings.")
def demo(
    bots: Annotated[
        str, typer.Option(help="Comma-separated example bots (random, greedy, montecarlo); repeats are numbered.")
    ] = demo_module.DEFAULT_BOTS,
    table_size: Annotated[
        int, typer.Option("--table-size", "--seats", min=2, max=5, help="Players at each table.")
    ] = demo_module.DEFAULT_TABLE_SIZE,
    games_per_table: Annotated[
        int, typer.Option(min=1, help="Games at each scheduled table.")
    ] = demo_module.DEFAULT_GAMES_PER_TABLE,
    db: Annotated[
        str,
        typer.Option(
            help="The SQLite file to keep, for `ratings --db` and `games show --db` after "
            "(the default file is the demo's own and is replaced on every run), or an "
            "empty PostgreSQL database's URL."
        ),
    ] = demo_module.DEFAULT_DB,
    port: Annotated[int, typer.Option(min=0, max=65535, help="The arena's port; 0 picks a free one.")] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of the schedule and deals (default: random).")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite the database file if it exists.")] = False,
    http_port: Annotated[
        int,
        typer.Option(
            min=0,
            max=65535,
            envvar=env.HTTP_PORT,
            help="Serve the web pages on this port; 0 picks a free one, as for the arena's own port.",
        ),
    ] = 0,
    no_http: Annotated[bool, typer.Option("--no-http", help="Serve no web pages.")] = False,
    linger: Annotated[
        float | None,
        typer.Option(
            min=0,
            help=f"Seconds the web pages stay up after the last game (default: "
            f"{demo_module.LINGER_S:g} when run from a terminal, else 0); Ctrl-C ends it.",
            show_default=False,
        ),
    ] = None,
) -> None:
    cast = demo_module.entrants([k.strip() for k in bots.split(",") if k.strip()], table_size)
    url, path = demo_module.demo_database(db)
    if path is not None and path.exists() and not replace and path != Path(demo_module.DEFAULT_DB).resolve():
        if not demo_module.interactive():
            fail(f"{db} exists: pass --replace to overwrite it, or --db ANOTHER.db")
        if not typer.confirm(f"{db} exists. Replace it with the demo's database?", default=False):
            fail(f"{db} is left as it was: pass --db ANOTHER.db")
    if path is not None:
        demo_module.remove_database(path)
    console = Console()

    def show_ratings(rows: list[RatingRow]) -> None:
        console.print(ratings_table(rows, f"Ratings: tournament {demo_module.TOURNAMENT}"))
        console.print(
            f"The database is {db}. Look closer with:\n"
            f"  scout-arena ratings --db {db}\n"
            f"  scout-arena games list --db {db}\n"
            f"  scout-arena games show 1 --db {db}\n"
            f"  scout-arena web --db {db}",
            highlight=False,
            markup=False,
        )

    try:
        demo_module.run_demo(
            console,
            cast=cast,
            table_size=table_size,
            games_per_table=games_per_table,
            db=url,
            port=port,
            seed=seed,
            show=show_ratings,
            http_port=None if no_http else http_port,
            linger=(demo_module.LINGER_S if demo_module.interactive() else 0) if linger is None else linger,
        )
    except demo_module.DemoInterrupted as exc:
        typer.echo(f"interrupted: {exc}", err=True)
        raise typer.Exit(130) from None
