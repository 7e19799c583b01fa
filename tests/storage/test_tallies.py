"""The running tallies (`arena.storage.tallies`): after every committed game, in two tournaments at
once and over both, the crosstable is the store's head-to-head, each table's finished games are
the store's count and the forfeits are what a pass over every game finds, and each is counted
again from nothing if a counted game ever changes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col

from arena.records import GameStatus
from arena.storage import store, tallies
from arena.storage.database import open_database
from arena.storage.reads import Forfeit, add_forfeits, latest_forfeits
from arena.storage.tables import GameRow, TournamentRow
from arena.storage.tallies import PairSums, RunningTally, crosstable_of, crosstable_tally, finished_tally
from tests.storage.helpers import random_result, running_tournament

Pairs = RunningTally[PairSums]
Finished = RunningTally[dict[int, int]]
Kept = RunningTally[list[Forfeit]]


def tournament_id(session: Session, name: str) -> int:
    found = session.execute(sa.select(col(TournamentRow.id)).where(col(TournamentRow.name) == name)).scalar_one()
    return int(found)


def finished_by_table(session: Session, tournament: int | None) -> dict[int, int]:
    """Each table's finished games, counted by the store's rows one by one."""
    games = session.execute(sa.select(GameRow)).scalars().all()
    return dict(
        Counter(g.table_id for g in games if g.status is GameStatus.FINISHED and tournament in (None, g.tournament_id))
    )


def check(session: Session, pairs: Pairs, finished: Finished, forfeits: Kept, ids: dict[str, int]) -> None:
    for name, scope in [*ids.items(), (None, None)]:
        kept = pairs.read(session, scope, lambda sums: crosstable_of(session, sums))
        assert kept == store.head_to_head(session=session, tournament=name), name
        assert finished.read(session, scope, dict) == finished_by_table(session, scope), name
        every_game: Kept = RunningTally(list, add_forfeits)
        passed, tallied = every_game.read(session, scope, list), forfeits.read(session, scope, list)
        for bot in (None, "bot01"):
            assert latest_forfeits(tallied, bot) == latest_forfeits(passed, bot), (name, bot)


def test_the_tallies_are_the_stores_figures_after_every_game(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    pairs, finished = crosstable_tally(), finished_tally()
    forfeits: Kept = RunningTally(list, add_forfeits)
    with Session(engine) as session:
        running_tournament(session, 5, 3, 2, name="east")
        running_tournament(session, 4, 3, 1, name="west")
        ids = {name: tournament_id(session, name) for name in ("east", "west")}
        check(session, pairs, finished, forfeits, ids)
        committed = 0
        while waiting := [g for name in ids for g in store.next_games(session=session, tournament=name, limit=1)]:
            for game in waiting:
                running = store.mark_game_running(session=session, game_id=game.id)
                timeouts = (1,) if committed % 3 == 0 else ()
                store.commit_game(session=session, game_id=running.id, result=random_result(running, timeouts))
                committed += 1
                check(session, pairs, finished, forfeits, ids)
        assert committed > 10
        assert forfeits.read(session, None, lambda found: latest_forfeits(found, None)).total >= committed // 3

        # A counted game changed (here: set back to scheduled): the tallies count again from nothing.
        session.execute(sa.update(GameRow).where(col(GameRow.id) == 1).values(status="scheduled", commit_seq=None))
        session.commit()
        check(session, pairs, finished, forfeits, ids)
    engine.dispose()


def test_at_most_so_many_scopes_are_kept_the_least_recently_read_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tallies, "KEPT_SCOPES", 2)
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    counted: list[int | None] = []
    with Session(engine) as session:
        running_tournament(session, 4, 3, 2, name="east")
        running_tournament(session, 4, 3, 2, name="west")
        waiting = store.next_games(session=session, tournament="east", limit=1)[0]
        game = store.mark_game_running(session=session, game_id=waiting.id)
        store.commit_game(session=session, game_id=game.id, result=random_result(game))
        ids = {name: tournament_id(session, name) for name in ("east", "west")}

        def add(session: Session, sums: dict[int, int], games: sa.ColumnElement[bool]) -> None:
            counted.append(scope)

        kept = RunningTally(dict, add)
        for scope in (ids["east"], ids["west"], ids["east"], None, ids["east"], ids["west"]):
            kept.read(session, scope, dict)
    assert counted == [ids["east"], ids["west"], None, ids["west"]], "east was read after west: west was dropped"
    engine.dispose()
