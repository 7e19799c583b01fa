"""A storage call that fails for want of the database is retried with back-off, not turned into a
stop (issue 30): the tournament runner waits out "database is locked" during a tick, logs it once,
and plays on without replaying a game; `retrying` itself backs off, doubling up to its cap, and
lets every other error through at once."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from arena import records
from arena.errors import GameAlreadyFinished, ResultMismatch
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments import isolation
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.isolation import RETRY_FIRST_S, RETRY_MAX_S, retrying
from tests.tournaments.test_failure_policy import play_tournament

LOCKED = OperationalError("UPDATE games ...", {}, Exception("database is locked"))


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def failing(real: Callable[..., Any], times: int, calls: list[object]) -> Callable[..., Any]:
    """`real`, but its first `times` calls raise "database is locked"."""

    def call(**kwargs: Any) -> Any:
        calls.append(kwargs.get("game_id"))
        if len(calls) <= times:
            raise LOCKED
        return real(**kwargs)

    return call


@pytest.mark.parametrize("what", ["mark_game_running", "commit_game"])
def test_a_locked_database_in_a_tick_is_retried_and_logged_once_not_a_stop(
    engine: Engine, what: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[object] = []
    monkeypatch.setattr(store, what, failing(getattr(store, what), 3, calls))
    caplog.set_level(logging.INFO)
    play_tournament(engine, "locked", FailurePolicy(), {})
    with Session(engine) as session:
        shown = store.show_tournament(session=session, tournament="locked")
        games = store.list_games(session=session, tournament="locked")
    assert shown.status is records.TournamentStatus.FINISHED and shown.games.finished == shown.games.total == 6
    assert [g.attempts for g in games] == [1] * 6  # nothing was replayed: the play never stopped
    assert set(calls[:3]) <= set(calls[3:])  # each call that failed was tried again
    messages = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == isolation.__name__]
    assert [level for level, _ in messages] == [logging.WARNING, logging.INFO]
    assert messages[0][1] == (
        "tournament 'locked' waits for the database, retrying with back-off: "
        "OperationalError: (builtins.Exception) database is locked"
    )
    assert re.fullmatch(r"tournament 'locked': the database answered again after [123] retries", messages[1][1])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or " stopped: " in r.getMessage()]


def test_retrying_backs_off_doubling_up_to_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(isolation.asyncio, "sleep", sleep)
    tries = iter([LOCKED] * 10 + ["answered"])

    async def call() -> str:
        outcome = next(tries)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert asyncio.run(retrying(call, "test")) == "answered"
    assert len(waits) == 10
    for attempt, wait in enumerate(waits):
        nominal = min(RETRY_FIRST_S * 2**attempt, RETRY_MAX_S)
        assert nominal / 2 <= wait <= nominal


def test_retrying_lets_other_errors_through_and_counts_a_lost_answer_as_done() -> None:
    async def mismatch() -> None:
        raise ResultMismatch("game 1: ranks (0, 1) should be (1, 0)")

    with pytest.raises(ResultMismatch):
        asyncio.run(retrying(mismatch, "test"))
    tries = iter([LOCKED, GameAlreadyFinished("game 1 is already finished")])

    async def commit() -> None:
        raise next(tries)

    # The commit's first try took effect before its answer was lost: the retry finds it done.
    assert asyncio.run(retrying(commit, "test", done_if=GameAlreadyFinished)) is None

    async def finished() -> None:
        raise GameAlreadyFinished("game 1 is already finished")

    with pytest.raises(GameAlreadyFinished):  # on a first try it is a real refusal
        asyncio.run(retrying(finished, "test", done_if=GameAlreadyFinished))
