"""`LocalArena`: the `scout-arena` commands given `--db URL`, on the arena's database in this process
(`arena.cli.clients` says why it is a module of its own)."""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.cli.clients import database_url
from arena.documents import EXPORT_BATCH, game_line
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.tournaments.isolation import start_or_fail
from arena.tournaments.settings import TournamentSettings


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
