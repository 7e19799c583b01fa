"""What one arena process lets its callers hold: connections, calls, idle time, and read calls.

Anyone who can reach the port can open connections and calls, so each is capped (the defaults fit
honest use: a bot is one connection with one long `Play` stream, a command-line call is short):

- `max_connections`: TCP connections at once (grpc core's `grpc.max_allowed_incoming_connections`);
  one more is closed as soon as it is accepted.
- `max_streams_per_connection`: calls in flight on one connection (HTTP/2 SETTINGS, so a client
  queues the extra ones); a process running many bots shares one connection among them.
- `max_calls`: calls in flight on the whole server, bot streams included (grpc's
  `maximum_concurrent_rpcs`); one more is answered RESOURCE_EXHAUSTED at once.
- `handshake_timeout_ms`: a connection that has not completed its HTTP/2 handshake by then is
  closed (grpc's default is two minutes).
- `idle_connection_ms`: a connection with no call in flight for that long is sent GOAWAY and closed
  (clients reconnect on their next call by themselves).
- `hello_timeout_ms`: a `Play` stream that has not sent its Hello by then ends DEADLINE_EXCEEDED.
- the read-call limits (`arena.api.read_limits`): per-peer token buckets, the budgets every caller
  of a kind shares, and how many read calls may work on the database at once.
- `global_entry_rate`/`global_entry_burst`: registrations and entries of every caller together
  (`arena.fair_turns`); a call past them waits its turn rather than being refused.

Every connection is a file descriptor, so `fit_open_file_limit` checks at start-up that the
process may open as many as every listener's cap together (this `max_connections`, and the web
port's `arena.web.limits.WebLimits.max_connections` where the pages are served) plus `FD_RESERVE`
for everything else, raising the soft limit toward the hard one where that is enough.
"""

from __future__ import annotations

import resource
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from arena.errors import ArenaError

DEFAULT_REGISTRATIONS_PER_MINUTE = 60
"""RegisterBot calls one host may make per minute, all at once or spread out: plenty for a person,
a demo or a test suite registering its bots, while a loop registering bots by the hundred is slowed
to one a second."""
FD_RESERVE = 256
"""Descriptors beside the connections: the listening sockets, grpc's and asyncio's event fds, the
database's pooled connections (a SQLite file and its WAL each, or a PostgreSQL socket), logs and
stdio, and the connections the web port accepts in one go before it closes those past its cap (its
backlog, `arena.web.limits.BACKLOG`: 128); an idle arena needs far fewer."""


class OpenFileLimitTooLow(ArenaError):
    """The process may not open as many files as the connection cap needs."""


@dataclass(frozen=True)
class ResourceLimits:
    """The caps of one arena process; see the module docstring for what each bounds."""

    max_connections: int = 1000
    max_streams_per_connection: int = 100
    max_calls: int = 2000
    handshake_timeout_ms: int = 5_000
    idle_connection_ms: int = 10_000
    hello_timeout_ms: int = 3_000
    """As `arena.api.bot_session_service.HELLO_TIMEOUT_S`."""
    read_rate: float = 10.0
    """Read units per second of one host calling without a token (its bucket's refill); a unit is a
    ShowGame, 25 games listed or one exported (`arena.api.read_limits`)."""
    read_burst: int = 60
    """...and how many it may spend at once before the refill rate applies."""
    token_read_rate: float = 5.0
    """Read units per second of one bot calling with its own token (its own bucket, apart from its
    host's), so a bot that polls its tournament with `ShowTournament` is not throttled by its
    neighbours (`scout-bot run` needs no polls: TournamentOver tells it)."""
    token_read_burst: int = 50
    global_read_rate: float = 20.0
    """Read units per second of every caller without a token together, whatever their hosts: a
    flood from many addresses is held to this share of the arena's work."""
    global_read_burst: int = 100
    global_token_read_rate: float = 100.0
    """Read units per second of every bot calling with its own token together."""
    global_token_read_burst: int = 500
    read_concurrency: int = 2
    """Read calls working on the database at once; the others wait their turn."""
    global_entry_rate: float = 25.0
    """Bot registrations and tournament entries per second of every caller together
    (`arena.fair_turns`): past it a call waits its turn, addresses in turn, so a field of a
    thousand bots entering from any number of addresses takes about a seventh of a core from the
    games in play, not the whole interpreter (docs/benchmarks.md, "A large field")."""
    global_entry_burst: int = 100
    """...and how many of them may go at once before the rate applies: a class registering its bots
    together never waits."""

    def __post_init__(self) -> None:
        for f in fields(self):
            if not getattr(self, f.name) > 0:
                raise ValueError(f"{f.name} must be positive, not {getattr(self, f.name)}")

    @classmethod
    def from_options(cls, values: dict[str, Any]) -> ResourceLimits:
        """From command-line values by field name (None: the default); ValueError naming the option."""
        try:
            return cls(**{k: v for k, v in values.items() if v is not None})
        except ValueError as exc:
            name = str(exc).split(" ", 1)[0]
            raise ValueError(str(exc).replace(name, option(name), 1)) from None

    def grpc_options(self) -> list[tuple[str, int]]:
        """The channel arguments of the server that enforce the connection caps."""
        return [
            ("grpc.max_allowed_incoming_connections", self.max_connections),
            ("grpc.max_concurrent_streams", self.max_streams_per_connection),
            ("grpc.server_handshake_timeout_ms", self.handshake_timeout_ms),
            ("grpc.max_connection_idle_ms", self.idle_connection_ms),
        ]


OPTION_HELP = {
    "max_connections": "Most TCP connections at once; one more is closed at once.",
    "max_streams_per_connection": "Most calls in flight on one connection (a process running many bots shares one).",
    "max_calls": "Most calls in flight on the server, bot streams included; one more is RESOURCE_EXHAUSTED.",
    "handshake_timeout_ms": "Close a connection that has not finished its HTTP/2 handshake by then.",
    "idle_connection_ms": "Close a connection that has had no call for this long.",
    "hello_timeout_ms": "End a bot stream that has not sent its Hello by then.",
    "read_rate": (
        "Read units per second of one host without a token (a unit: a ShowGame, 25 games listed, a game exported)."
    ),
    "read_burst": "Read units one host without a token may spend at once.",
    "token_read_rate": "Read units per second of one bot calling with its own token.",
    "token_read_burst": "Read units one bot with its own token may spend at once.",
    "global_read_rate": "Read units per second of every caller without a token together, from any number of hosts.",
    "global_read_burst": "Read units every caller without a token together may spend at once.",
    "global_token_read_rate": "Read units per second of every bot calling with its own token together.",
    "global_token_read_burst": "Read units every bot with its own token together may spend at once.",
    "read_concurrency": "Read calls working on the database at once.",
    "global_entry_rate": (
        "Bot registrations and tournament entries per second of every caller together; past it calls wait their turn."
    ),
    "global_entry_burst": "Registrations and entries every caller together may make at once.",
}
"""The command-line help of each field, for `scout-arena serve`."""


def option(name: str) -> str:
    """The command-line option of a field: max_connections -> --max-connections."""
    return "--" + name.replace("_", "-")


def fit_open_file_limit(caps: Mapping[str, int]) -> int:
    """Make sure this process may hold every listener's connections, `caps` (the cap by its
    option: {"--max-connections": 1000, ...}), plus FD_RESERVE descriptors, raising the soft
    RLIMIT_NOFILE (up to the hard one) if needed; returns the soft limit then.
    OpenFileLimitTooLow, with the caps to lower or the limit to raise, if even the hard one is short."""
    needed = sum(caps.values()) + FD_RESERVE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return soft
    if hard == resource.RLIM_INFINITY or hard >= needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
        return needed
    fits = hard - FD_RESERVE
    named = " and ".join(f"{name} {cap}" for name, cap in caps.items())
    if len(caps) == 1:
        lower = f"lower {next(iter(caps))} to {fits} or " if fits >= 1 else ""
    else:
        lower = f"lower them to {fits} together or " if fits >= len(caps) else ""
    raise OpenFileLimitTooLow(
        f"{named} {'needs' if len(caps) == 1 else 'need'} {needed} open files but this process may open only {hard}: "
        f"{lower}raise the open-file limit (ulimit -n; nofile in docker or systemd)"
    )
