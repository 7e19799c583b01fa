"""Voided attempts and failure-policy decisions in storage (issue #6, "failure policy per cause"):
a voided attempt is kept with its record and causes but never rated, the game goes back to be
played again from a fresh deal but for the failing seats' kept hands, and each committed seat row
keeps its cause and decision."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from arena import records
from arena.errors import GameNotRunning, ResultMismatch
from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage import store
from tests.storage.helpers import chosen_result, play_all, random_result, running_tournament

VOID = PolicyDecision.VOID


def first_game_running(session: Session) -> records.GameToPlay:
    running_tournament(session, bots=3, table_size=3, games_per_table=2)
    game = store.next_games(session=session)[0]
    return store.mark_game_running(session=session, game_id=game.id)


def history_rows(session: Session, game_id: int) -> int:
    return int(session.exec(sa.text(f"SELECT count(*) FROM rating_history WHERE game_id = {game_id}")).one()[0])


def test_a_voided_attempt_is_kept_unrated_and_the_game_is_played_again(session: Session) -> None:
    game = first_game_running(session)
    assert game.voided == 0
    voided = random_result(game, forfeits={1}, cause=ForfeitCause.DISCONNECT, policy=VOID)
    ratings = store.rating_table(session=session, tournament="cup")
    assert store.void_attempt(session=session, game_id=game.id, result=voided) == 1
    assert store.rating_table(session=session, tournament="cup") == ratings  # not rated
    assert history_rows(session, game.id) == 0
    again = store.next_games(session=session)[0]
    assert (again.id, again.seed, again.voided) == (game.id, game.seed, 1)
    replay = store.mark_game_running(session=session, game_id=game.id)
    assert replay.voided == 1 and replay.seed != game.seed
    assert game.kept == {} and replay.kept == {1: tuple(deal[1] for deal in voided.record.deals)}, (
        "the seat whose failure voided the attempt keeps its hands (docs/security.md)"
    )
    store.commit_game(session=session, game_id=game.id, result=random_result(replay))
    detail = store.show_game(session=session, game_id=game.id)
    assert detail.info.attempts == 2
    (kept,) = detail.voided
    assert kept.attempt == 1 and kept.result == voided and kept.seed == game.seed
    failing = kept.result.seats[1]
    assert (failing.cause, failing.policy, failing.forfeit) == (
        ForfeitCause.DISCONNECT,
        VOID,
        "disconnect: as the test says",
    )
    assert history_rows(session, game.id) == 2 * 3  # the committed attempt only, both scopes
    play_all(session)
    assert store.rating_table(session=session, tournament="cup") == store.recompute_ratings(
        session=session, tournament="cup"
    )


def test_ratings_ignore_voided_attempts(session: Session) -> None:
    """The same results committed with and without voided attempts before them rate the same
    (the replays are dealt afresh, so the results are chosen)."""
    for name, void_first in (("plain", False), ("voided", True)):
        running_tournament(session, bots=3, table_size=3, games_per_table=2, seed=9, name=name)
        for game in store.next_games(session=session, tournament=name):
            game = store.mark_game_running(session=session, game_id=game.id)
            if void_first:
                bad = random_result(game, forfeits={0, 2}, cause=ForfeitCause.DISCONNECT, policy=VOID)
                store.void_attempt(session=session, game_id=game.id, result=bad)
                game = store.mark_game_running(session=session, game_id=game.id)
            totals = [(7 * game.table_index + 3 * game.game_index + 5 * s) % 11 for s in range(3)]
            store.commit_game(session=session, game_id=game.id, result=chosen_result(game, totals))
    assert store.rating_table(session=session, tournament="plain") == store.rating_table(
        session=session, tournament="voided"
    )
    assert store.recompute_ratings(session=session, tournament="voided") == store.rating_table(
        session=session, tournament="voided"
    )


def test_each_committed_seat_row_keeps_its_cause_and_decision(session: Session) -> None:
    game = first_game_running(session)
    result = random_result(game, forfeits={2}, cause=ForfeitCause.DISCONNECT, policy=PolicyDecision.CAP_REACHED)
    store.commit_game(session=session, game_id=game.id, result=result)
    rows = session.exec(
        sa.text(f"SELECT seat, forfeit_cause, policy FROM seat_results WHERE game_id = {game.id} ORDER BY seat")
    ).all()
    assert [tuple(r) for r in rows] == [(0, None, None), (1, None, None), (2, "disconnect", "void-cap-reached")]
    assert store.show_game(session=session, game_id=game.id).info.results == result.seats


@pytest.mark.parametrize(
    ("forfeits", "policy", "message"),
    [
        ({1}, PolicyDecision.FORFEIT, "no seat's failure voids the attempt: commit it instead"),
        ((), PolicyDecision.FORFEIT, "no seat's failure voids the attempt"),
        (
            {1},
            PolicyDecision.CAP_REACHED,
            r"needs the failure policy's decision \(forfeit or void or bot-void-cap-reached\), not void-cap-reached",
        ),
    ],
)
def test_only_an_attempt_the_policy_voids_can_be_voided(
    session: Session, forfeits: set[int], policy: PolicyDecision, message: str
) -> None:
    game = first_game_running(session)
    with pytest.raises(ResultMismatch, match=message):
        store.void_attempt(session=session, game_id=game.id, result=random_result(game, forfeits, policy=policy))
    assert store.show_game(session=session, game_id=game.id).voided == ()
    assert store.list_games(session=session, status=records.GameStatus.RUNNING)[0].id == game.id


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        (
            None,
            r"forfeited seat 1 needs the failure policy's decision "
            r"\(forfeit or void-cap-reached or bot-void-cap-reached\), not None",
        ),
        (
            VOID,
            r"needs the failure policy's decision \(forfeit or void-cap-reached or bot-void-cap-reached\), not void",
        ),
    ],
)
def test_a_committed_forfeit_needs_a_forfeiting_decision(
    session: Session, policy: PolicyDecision | None, message: str
) -> None:
    game = first_game_running(session)
    result = random_result(game, forfeits={1})
    seats = tuple(s if s.forfeit is None else replace(s, policy=policy) for s in result.seats)
    with pytest.raises(ResultMismatch, match=message):
        store.commit_game(session=session, game_id=game.id, result=replace(result, seats=seats))
    assert store.list_games(session=session, status=records.GameStatus.RUNNING)[0].id == game.id


def test_a_game_not_running_cannot_be_voided(session: Session) -> None:
    running_tournament(session, bots=3, table_size=3)
    game = store.next_games(session=session)[0]
    with pytest.raises(GameNotRunning):
        store.void_attempt(session=session, game_id=game.id, result=random_result(game, {0}, policy=VOID))
