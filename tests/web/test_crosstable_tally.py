"""The crosstables as running tallies (`arena.web.crosstable_tally`): after every committed game,
in two tournaments at once and over both, each is the store's head-to-head, counted again from
nothing if the games it had counted ever change."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, col

from arena.storage import store
from arena.storage.database import open_database
from arena.storage.tables import GameRow, TournamentRow
from arena.web.crosstable_tally import CrosstableTally
from tests.storage.helpers import random_result, running_tournament


def tournament_id(session: Session, name: str) -> int:
    found = session.execute(sa.select(col(TournamentRow.id)).where(col(TournamentRow.name) == name)).scalar_one()
    return int(found)


def test_the_tally_is_the_stores_head_to_head_after_every_game(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    tally = CrosstableTally()
    with Session(engine) as session:
        running_tournament(session, 5, 3, 2, name="east")
        running_tournament(session, 4, 3, 1, name="west")
        ids = {name: tournament_id(session, name) for name in ("east", "west")}
        assert tally.crosstable(session=session, tournament_id=ids["east"]).pairs == ()
        committed = 0
        while waiting := [g for name in ids for g in store.next_games(session=session, tournament=name, limit=1)]:
            for game in waiting:
                running = store.mark_game_running(session=session, game_id=game.id)
                store.commit_game(session=session, game_id=running.id, result=random_result(running))
                committed += 1
                for name, scope in ids.items():
                    kept = tally.crosstable(session=session, tournament_id=scope)
                    assert kept == store.head_to_head(session=session, tournament=name), (name, committed)
                assert tally.crosstable(session=session) == store.head_to_head(session=session)
        assert committed > 10

        # A counted game changed (here: set back to scheduled): the tally counts again from nothing.
        session.execute(sa.update(GameRow).where(col(GameRow.id) == 1).values(status="scheduled", commit_seq=None))
        session.commit()
        assert tally.crosstable(session=session) == store.head_to_head(session=session)
        assert tally.crosstable(session=session, tournament_id=ids["east"]) == store.head_to_head(
            session=session, tournament="east"
        )
    engine.dispose()
