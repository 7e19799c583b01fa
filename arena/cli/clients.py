"""What the `scout-arena` commands talk to: a running arena over gRPC, or its database directly.

`ArenaClient` is every operation the command line offers. `RemoteArena` (`arena.cli.remote`) calls
the Arena service of a server (`--server HOST:PORT`); `LocalArena` (`arena.cli.local`) calls
`arena.storage.store` on a database (`--db URL`), for when no server runs. Both return the store's
own values, so each command is written once and shows the same thing either way. Every failure is
an `arena.errors.ArenaError` with one line. Each is in a module of its own so that a command on a
database imports no gRPC, and a command on a server no storage layer (benchmarks/cli_startup.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from arena import records
from arena.errors import ArenaError
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.tournaments.settings import TournamentSettings


class ServerUnreachable(ArenaError):
    """No arena answers at the address."""


class ServerRefused(ArenaError):
    """The arena answered the call with an error; the message is its own."""


class ArenaClient(Protocol):
    """The operations of the `scout-arena` commands, against a server or a database."""

    def register_bot(self, name: str) -> str:
        """Register a bot and return its token (shown once)."""
        ...

    def create_tournament(self, settings: TournamentSettings) -> records.Tournament: ...

    def start_tournament(self, name: str) -> records.Tournament: ...

    def tournaments(self) -> list[records.Tournament]: ...

    def tournament(self, name: str) -> records.Tournament: ...

    def bots(self) -> list[records.BotRecord]: ...

    def ratings(self, tournament: str | None, bootstrap: int = 0) -> list[RatingRow]:
        """The rating table; with `bootstrap` resamples, each row's bootstrap confidence too."""
        ...

    def head_to_head(self, tournament: str | None) -> Crosstable: ...

    def games(self, tournament: str | None, status: records.GameStatus | None) -> list[records.GameInfo]: ...

    def game(self, game_id: int) -> records.GameDetail: ...

    def export(self, tournament: str | None) -> Iterator[str]:
        """Every finished game as a JSON line (`arena.documents`)."""
        ...

    def reveal_seeds(self, tournament: str) -> records.SeedReveal:
        """A tournament's secret seeds, before they are public (admin only)."""
        ...

    def close(self) -> None: ...


def database_url(text: str) -> str:
    """`text` as a database URL: a URL as it is, a plain path as a SQLite file."""
    return text if "://" in text else f"sqlite:///{Path(text).expanduser().resolve()}"
