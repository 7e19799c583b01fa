"""Every option of `scout-arena serve`, in one typed value (`ArenaSettings`), checked once.

`ArenaSettings.from_options` takes the command line's values and returns the settings, or raises
`InvalidOption`, one line naming the option as the command line spells it (`--web-burst must
be positive, not 0`), which `scout-arena` prints as its `error:` line. The parts each room reads
are values of that room (`Limits`, `ResourceLimits`, `WebLimits`, `CasualLimits`, `ServerTls`):
each checks its own fields, and `from_options` names the option of a field that fails.

To add an option: a field here (with its default), a parameter of `from_options` that fills it,
and the option of `arena.cli.app.serve` that passes it; `arena.startup.arena` reads it from the
settings.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arena.api.resources import DEFAULT_REGISTRATIONS_PER_MINUTE, ResourceLimits, option
from arena.api.tls import ServerTls, server_tls
from arena.errors import ArenaError
from arena.names import NAME_PATTERN, NAME_RULE
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Limits
from arena.web.limits import WebLimits, web_option

PLAY_OPTIONS = {
    "max_games": "--play-games",
    "places_per_address": "--play-places-per-address",
    "games_per_visitor": "--play-games-per-visitor",
    "starts_per_address": "--play-starts-per-address",
    "per_bot": "--play-per-bot",
    "queue": "--play-queue",
}
"""The options of the Play room's limits (`CasualLimits`), by field."""


class InvalidOption(ArenaError):
    """An option of `scout-arena serve` out of its range; the message names the option."""


@dataclass(frozen=True)
class ClusterSettings:
    """How a node joins a cluster (docs/scale-out.md): several arenas on one PostgreSQL database
    and one NATS server."""

    nats_url: str
    """The NATS server, or several comma-separated URLs of one NATS cluster (`--nats`)."""
    node: str
    """This node's name, unique in the cluster (`--node`; default the host's name)."""
    lease_s: float = 10.0
    """How long a game claimed by this node stays its own unrenewed (`--lease-s`): how soon other
    nodes replay the games of a node that died or froze (`arena.cluster.node`)."""
    node_games: int = 64
    """How many games this node referees at once (`--node-games`)."""


@dataclass(frozen=True)
class ArenaSettings:
    """How one arena process runs: where it listens, what it keeps, and every cap it holds."""

    host: str = "127.0.0.1"
    port: int = 50051
    """0 picks a free port; `ArenaServer.port` tells which."""
    admin_token: str | None = None
    """None generates one (with a database: keeps the stored one); `ArenaServer.admin_token` tells which."""
    limits: Limits = field(default_factory=Limits)
    """The default clocks of games played on demand (PlayGame)."""
    database_url: str | None = None
    """Where bots, tournaments and ratings are kept; None: bots in memory and no tournaments."""
    tls: ServerTls | None = None
    """The certificate and key to serve TLS with; None: plaintext."""
    registrations_per_minute: int = DEFAULT_REGISTRATIONS_PER_MINUTE
    """RegisterBot calls allowed per peer host per minute (`arena.api.arena_service`)."""
    resources: ResourceLimits = field(default_factory=ResourceLimits)
    """Caps on connections, calls and read calls of the gRPC port (`arena.api.resources`)."""
    http_port: int | None = None
    """Where the web pages (`arena.web`) listen, on `host` (0: a free port; `ArenaServer.web`
    tells which); None: no web pages. They need a database: without one this is ignored."""
    web_limits: WebLimits = field(default_factory=WebLimits)
    """Caps on the web port's connections, time-outs, request bodies and rates (`arena.web.limits`)."""
    casual: CasualLimits = field(default_factory=CasualLimits)
    """How much of the arena the web pages' Play room may take (`arena.web.play_room`)."""
    log_level: int = logging.INFO
    """What the process logs (to stderr)."""
    cluster: ClusterSettings | None = None
    """Set when the arena is one node of a cluster (`--nats`); None: a single arena process."""

    @property
    def serves_web(self) -> bool:
        """Whether the web pages are served: asked for, and with a database to read."""
        return self.database_url is not None and self.http_port is not None

    @classmethod
    def from_options(
        cls,
        *,
        host: str,
        port: int,
        admin_token: str | None,
        database_url: str | None,
        http_port: int | None,
        tls_cert: str | None,
        tls_key: str | None,
        registrations_per_minute: int,
        log_level: str,
        limits: Mapping[str, Any],
        resources: Mapping[str, Any],
        web: Mapping[str, Any],
        casual: Mapping[str, Any],
        nats_url: str | None = None,
        node: str | None = None,
        lease_s: float | None = None,
        node_games: int | None = None,
    ) -> ArenaSettings:
        """The settings of `serve`'s options; the four mappings hold each part's fields by name
        (`Limits`: --move-ms ...; `ResourceLimits`: --max-connections ...; `WebLimits`: --web-...;
        `CasualLimits`: --play-...). InvalidOption, naming the option, if one is out of range;
        `arena.api.tls.TlsConfigError` if only one of the TLS files is given."""
        level = logging.getLevelName(log_level.upper())
        if not isinstance(level, int):
            raise InvalidOption(f"--log-level must be DEBUG, INFO, WARNING or ERROR, not {log_level!r}")
        return cls(
            host,
            port,
            admin_token,
            _part(Limits, limits, option),
            database_url,
            server_tls(tls_cert, tls_key),
            registrations_per_minute,
            _part(ResourceLimits, resources, option),
            http_port,
            _part(WebLimits, web, web_option),
            _part(CasualLimits, casual, lambda name: PLAY_OPTIONS.get(name, option(name))),
            level,
            cluster_settings(nats_url, node, database_url, lease_s, node_games),
        )


def cluster_settings(
    nats_url: str | None,
    node: str | None,
    database_url: str | None,
    lease_s: float | None = None,
    node_games: int | None = None,
) -> ClusterSettings | None:
    """`--nats`, `--node`, `--lease-s` and `--node-games` checked: a cluster's nodes share one
    PostgreSQL database."""
    if nats_url is None:
        if node is not None:
            raise InvalidOption("--node names a node of a cluster: give --nats too")
        for given, flag in ((lease_s, "--lease-s"), (node_games, "--node-games")):
            if given is not None:
                raise InvalidOption(f"{flag} is an option of a cluster's node: give --nats too")
        return None
    if lease_s is not None and not MIN_LEASE_S <= lease_s <= MAX_LEASE_S:
        raise InvalidOption(f"--lease-s must be within {MIN_LEASE_S:g}..{MAX_LEASE_S:g} seconds, not {lease_s:g}")
    if node_games is not None and not 1 <= node_games <= MAX_NODE_GAMES:
        raise InvalidOption(f"--node-games must be within 1..{MAX_NODE_GAMES}, not {node_games}")
    if not all(url.strip().startswith(("nats://", "tls://")) for url in nats_url.split(",")):
        raise InvalidOption(f"--nats must be nats://HOST:PORT (or several, comma-separated), not {nats_url!r}")
    if database_url is None or not database_url.startswith("postgresql"):
        raise InvalidOption("--nats needs --db postgresql+psycopg://...: the nodes of a cluster share one PostgreSQL")
    name = node if node is not None else socket.gethostname().split(".")[0]
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidOption(f"--node must be {NAME_RULE}, not {name!r}")
    defaults = ClusterSettings(nats_url, name)
    return ClusterSettings(
        nats_url,
        name,
        defaults.lease_s if lease_s is None else lease_s,
        defaults.node_games if node_games is None else node_games,
    )


MIN_LEASE_S = 1.0
"""A shorter lease would need renewing faster than a busy database answers."""
MAX_LEASE_S = 600.0
MAX_NODE_GAMES = 100_000


Part = TypeVar("Part")


def _part(kind: Callable[..., Part], values: Mapping[str, Any], flag: Callable[[str], str]) -> Part:
    """`kind(**values)`, its ValueError (which begins with the field's name) turned into an
    InvalidOption that begins with the field's option, `flag(name)`."""
    try:
        return kind(**values)
    except ValueError as exc:
        name, _, rest = str(exc).partition(" ")
        raise InvalidOption(f"{flag(name)} {rest}") from None
