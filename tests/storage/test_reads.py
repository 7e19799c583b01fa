"""What `arena.storage.reads.CachedReads` keeps: a read of one tournament until that tournament changes
(another's commits leave it kept), a read of everything until any game is committed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from arena.ratings.table import RatingRow
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.reads import CachedReads
from tests.storage.helpers import random_result, running_tournament


def commit_one(session: Session, tournament: str) -> None:
    waiting = store.next_games(session=session, tournament=tournament, limit=1)[0]
    game = store.mark_game_running(session=session, game_id=waiting.id)
    store.commit_game(session=session, game_id=game.id, result=random_result(game))


class CountedReads:
    """`CachedReads` over two running tournaments, east and west, counting which scopes' rating
    tables it asks the store for."""

    def __init__(self, tmp_path: Path) -> None:
        self.engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
        with Session(self.engine) as session:
            running_tournament(session, 4, 3, 2, name="east")
            running_tournament(session, 4, 3, 2, name="west")
        self.reads = CachedReads(AsyncStore(self.engine))
        self.asked: list[str | None] = []

    def _table(self, *, session: Session, tournament: str | None = None) -> list[RatingRow]:
        self.asked.append(tournament)
        return store.rating_table(session=session, tournament=tournament)

    def read(self, **kwargs: Any) -> list[RatingRow]:
        return asyncio.run(self.reads.cached(self._table, **kwargs))


def test_a_tournaments_reads_are_kept_until_it_changes(tmp_path: Path) -> None:
    counted = CountedReads(tmp_path)
    engine, read, asked = counted.engine, counted.read, counted.asked
    read(tournament="east")
    read()
    assert asked == ["east", None]
    with Session(engine) as session:
        commit_one(session, "west")
    read(tournament="east")
    assert asked == ["east", None], "west's game changes nothing of east"
    with Session(engine) as session:
        ladder = store.rating_table(session=session)
    assert read() == ladder and asked[-1] is None
    with Session(engine) as session:
        commit_one(session, "east")
        expected = store.rating_table(session=session, tournament="east")
    assert read(tournament="east") == expected and asked[-1] == "east"
    engine.dispose()


def test_at_most_so_many_reads_are_kept_the_least_recently_used_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.storage.reads.CACHED_READS", 2)
    counted = CountedReads(tmp_path)
    for tournament in ("east", "west", "east", None, "east", "west"):
        counted.read(tournament=tournament)
    assert counted.asked == ["east", "west", None, "west"], (
        "east was read again after west, so west was dropped for None"
    )
    counted.engine.dispose()
