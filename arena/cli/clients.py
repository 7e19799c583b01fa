"""What the `scout-arena` commands talk to: a running arena over gRPC, or its database directly.

`ArenaClient` is every operation the command line offers. `RemoteArena` (`arena.cli.remote`) calls
the Arena service of a server (`--server HOST:PORT`); `LocalArena` calls `arena.storage.store` on a
database (`--db URL`), for when no server runs. Both return the store's own values, so each command
is written once and shows the same thing either way. Every failure is an `arena.errors.ArenaError`
with one line. `RemoteArena` is in a module of its own so that a command on a database imports no gRPC.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.documents import EXPORT_BATCH, game_line
from arena.errors import ArenaError
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.tournaments.isolation import start_or_fail
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


class LocalArena:
    """The database of an arena, read and changed in this process (no server needed).

    Starting a tournament here while a server runs on the same database is fine: the server's
    tournament runner picks it up within a second.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        """The open database; `close` disposes of it."""
        self._db = AsyncStore(engine)

    @classmethod
    def open(cls, text: str) -> LocalArena:
        """Open the arena's database at `text` (URL or file). Nothing is created: a missing file
        or an empty database is refused (a typo never makes an empty database to read), and so is
        another program's database or one that needs `scout-arena db upgrade` (`arena.storage.database`)."""
        return cls(open_database(database_url(text), create=False))

    def register_bot(self, name: str) -> str:
        return self._db.run(store.register_bot, name=name).token

    def create_tournament(self, settings: TournamentSettings) -> records.Tournament:
        return self._db.run(store.create_tournament, settings=settings)

    def start_tournament(self, name: str) -> records.Tournament:
        return self._db.run(start_or_fail, tournament=name)

    def tournaments(self) -> list[records.Tournament]:
        return self._db.run(store.list_tournaments)

    def tournament(self, name: str) -> records.Tournament:
        return self._db.run(store.show_tournament, tournament=name)

    def bots(self) -> list[records.BotRecord]:
        return self._db.run(store.list_bots)

    def ratings(self, tournament: str | None, bootstrap: int = 0) -> list[RatingRow]:
        return self._db.run(store.rating_table, tournament=tournament, bootstrap=bootstrap)

    def head_to_head(self, tournament: str | None) -> Crosstable:
        return self._db.run(store.head_to_head, tournament=tournament)

    def games(self, tournament: str | None, status: records.GameStatus | None) -> list[records.GameInfo]:
        return self._db.run(store.list_games, tournament=tournament, status=status)

    def game(self, game_id: int) -> records.GameDetail:
        return self._db.run(store.show_game, game_id=game_id)

    def export(self, tournament: str | None) -> Iterator[str]:
        with Session(self.engine) as session:
            yield from export_games(session=session, tournament=tournament)

    def reveal_seeds(self, tournament: str) -> records.SeedReveal:
        return self._db.run(store.reveal_seeds, tournament=tournament)

    def close(self) -> None:
        self.engine.dispose()


def export_games(*, session: Session, tournament: str | None = None) -> Iterator[str]:
    """The JSON line of every finished game (of `tournament`, or all), in play order."""
    after = None
    while games := store.list_games(
        session=session, tournament=tournament, status=records.GameStatus.FINISHED, after=after, limit=EXPORT_BATCH
    ):
        for info in games:
            yield game_line(store.show_game(session=session, game_id=info.id))
        after = games[-1].id
