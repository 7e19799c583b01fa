"""The database connection killed in the middle of `commit_game` (PostgreSQL only): the server
terminates the committing backend after the game's record is written and before any rating is.
Nothing of the game is stored, it can still be committed, and it then counts exactly once.

SQLite has no backend to kill; its equivalent, a failure injected at the same point, is
`test_commit.py::test_a_failure_between_record_and_ratings_stores_neither` (on both databases).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.errors import GameAlreadyFinished
from arena.storage import database, store
from arena.storage.database import open_database
from arena.storage.store import games as games_store
from tests.storage.helpers import random_result, running_tournament
from tests.storage.test_commit import row_counts
from tests.timeouts import patience

GONE_TIMEOUT_S = patience(60.0)
"""Bound on the wait for the terminated backend to disappear from pg_stat_activity."""


@pytest.fixture
def pg_engine(postgres_url: str) -> Iterator[Engine]:
    engine = open_database(postgres_url)
    yield engine
    engine.dispose()


def terminate(killer: Engine, pid: int) -> None:
    """pg_terminate_backend(pid) from another connection; return once the backend is gone (in
    autocommit: pg_stat_activity is a snapshot that would otherwise last the whole transaction)."""
    with killer.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        assert connection.exec_driver_sql("SELECT pg_terminate_backend(%s)", (pid,)).scalar_one() is True
        deadline = time.monotonic() + GONE_TIMEOUT_S
        while connection.exec_driver_sql("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).scalar_one():
            if time.monotonic() > deadline:
                pytest.fail(f"backend {pid} still alive {GONE_TIMEOUT_S:g} s after pg_terminate_backend")
            time.sleep(0.05)


def test_the_connection_killed_between_record_and_ratings_stores_nothing(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Session(pg_engine) as session:
        running_tournament(session, bots=3, table_size=3)
        game = store.next_games(session=session)[0]
        store.mark_game_running(session=session, game_id=game.id)
        table, ladder = store.rating_table(session=session, tournament="cup"), store.rating_table(session=session)
    result = random_result(game)
    killed: list[int] = []
    real_apply_game = games_store.apply_game

    def kill_then_rate(*args: Any, **kwargs: Any) -> Any:
        """Runs inside commit_game after the record's UPDATE and before the ratings' UPDATE, on the
        driver's own cursor: the commit has the connection in psycopg's pipeline mode, where a
        fetch waits for the answers sent so far."""
        raw = committing.connection().connection.dbapi_connection
        assert raw is not None
        cursor = raw.cursor()
        pid = cursor.execute("SELECT pg_backend_pid()").fetchone()[0]
        written = cursor.execute("SELECT record IS NOT NULL FROM games WHERE id = %s", (game.id,)).fetchone()
        assert written[0] is True, "the hook should run after the record is written"
        if not killed:
            terminate(killer, pid)
            killed.append(pid)
        return real_apply_game(*args, **kwargs)

    killer = sa.create_engine(pg_engine.url)
    monkeypatch.setattr(games_store, "apply_game", kill_then_rate)
    try:
        with Session(pg_engine) as committing:
            with pytest.raises(sa.exc.OperationalError):
                store.commit_game(session=committing, game_id=game.id, result=result)
            assert killed, "the committing backend should have been terminated"

            # Nothing of the game was stored; the session works again on a fresh connection.
            detail = store.show_game(session=committing, game_id=game.id)
            assert detail.record is None and detail.info.status is records.GameStatus.RUNNING
            assert detail.info.results == () and detail.info.end_reasons == ()
            assert row_counts(committing) == {"seat_results": 0, "rating_history": 0}
            assert store.rating_table(session=committing, tournament="cup") == table
            assert store.rating_table(session=committing) == ladder

            # The game is still committable (the hook lets this attempt through), and counts once.
            updates = store.commit_game(session=committing, game_id=game.id, result=result)
            assert len(updates) == 2 * len(game.seats)
            with pytest.raises(GameAlreadyFinished):
                store.commit_game(session=committing, game_id=game.id, result=result)
            assert store.show_game(session=committing, game_id=game.id).record == result.record
            assert row_counts(committing) == {"seat_results": 3, "rating_history": 6}
            stored = store.rating_table(session=committing, tournament="cup")
            assert sum(r.games for r in stored) == len(game.seats)
            assert store.recompute_ratings(session=committing, tournament="cup") == stored
            assert store.recompute_ratings(session=committing) == store.rating_table(session=committing)
    finally:
        killer.dispose()


def test_a_writer_connection_lost_while_idle_is_replaced_before_the_next_write(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer checks a connection only once it has been idle (`PING_IDLE_S`, here 0 so the
    test need not wait): a backend terminated between two writes costs the second write nothing."""
    monkeypatch.setattr(database, "PING_IDLE_S", 0.0)
    engine = open_database(postgres_url)
    writer = database.writer_engine(engine, 1)
    killer = sa.create_engine(engine.url)
    try:
        with writer.connect() as connection:
            first = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        terminate(killer, first)
        with writer.connect() as connection:
            second = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        assert second != first
    finally:
        killer.dispose()
        writer.dispose()
        engine.dispose()


def test_a_writer_connection_in_use_a_moment_ago_is_not_checked_again(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No round trip of its own per write: a connection back from a write is used as it is (here
    "a moment" is an hour, so that a slow machine cannot make the connection idle)."""
    monkeypatch.setattr(database, "PING_IDLE_S", 3600.0)
    engine = open_database(postgres_url)
    writer = database.writer_engine(engine, 1)
    pings: list[object] = []
    real_ping = writer.dialect.do_ping

    def counted_ping(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        return real_ping(dbapi_connection)

    monkeypatch.setattr(writer.dialect, "do_ping", counted_ping)
    try:
        for _ in range(3):
            with writer.connect() as connection:
                connection.exec_driver_sql("SELECT 1")
        assert pings == []
        monkeypatch.setattr(database, "PING_IDLE_S", 0.0)
        with writer.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
        assert len(pings) == 1, "an idle connection is checked"
    finally:
        writer.dispose()
        engine.dispose()
