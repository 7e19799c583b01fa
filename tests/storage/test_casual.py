"""Casual games in the store (issue #15): kept with their record and results, replayable to the
same result, and counted by no rating, ladder, crosstable or game list, even when a registered
bot sat at the table."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from arena.errors import UnknownGame
from arena.records import GameStatus, GameToPlay
from arena.storage import reads, store
from arena.storage.store.casual import CASUAL, save_casual_game, show_casual_game
from sdk.engine.record import replay
from tests.storage.helpers import START, play_all, random_result, running_tournament


def _standings(session: Session) -> object:
    """Everything that rates or ranks the bots, globally and in the tournament."""
    return (
        store.rating_table(session=session),
        store.rating_table(session=session, tournament="cup"),
        store.head_to_head(session=session),
        store.played_games(session=session),
        reads.crosstable(session=session),
        reads.forfeits(session=session),
        reads.rating_history(session=session, bot="bot00"),
        store.list_games(session=session),
        reads.commit_version(session=session),
    )


def test_a_casual_game_is_stored_replayable_and_changes_no_rating(session: Session) -> None:
    bots = running_tournament(session, 3, 3)
    assert play_all(session) > 0
    before = _standings(session)
    seats = ("ann", bots[0], "greedy")
    result = random_result(GameToPlay(0, CASUAL, 0, 0, 12345, seats, 1000), forfeits=(0,))

    casual_id = save_casual_game(
        session=session, result=result, seat_kinds=("person", "bot", "house"), move_ms=300, started_at=START
    )

    assert _standings(session) == before
    detail = show_casual_game(session=session, casual_id=casual_id)
    assert detail.record == result.record
    assert detail.info.results == result.seats and detail.info.seats == seats
    assert (detail.info.tournament, detail.info.status, detail.info.started_at) == (CASUAL, GameStatus.FINISHED, START)
    assert list(replay(detail.record).totals) == [s.points for s in detail.info.results]


def test_an_unknown_casual_game_is_named(session: Session) -> None:
    with pytest.raises(UnknownGame, match=r"^there is no casual game 99$"):
        show_casual_game(session=session, casual_id=99)
