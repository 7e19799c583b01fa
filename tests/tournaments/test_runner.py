"""The tournament runner inside a real arena (in this process) with bots as separate processes:
a tournament starts at its time, plays every game, and commits ratings that recomputation from the
stored records reproduces; a bot that never connects forfeits its games after the bounded wait."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from arena import records
from arena.startup.arena import start_arena
from arena.startup.settings import ArenaSettings
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.settings import TournamentSettings
from tests.tournaments.conftest import FINISH_TIMEOUT_S, GREEDY, RANDOM, BotProcesses


def most_games_at_once(log: Path) -> int:
    """The most games a bot process had open at once, from its runner's log lines."""
    open_games: set[str] = set()
    most = 0
    for line in log.read_text().splitlines():
        if match := re.search(r" INFO game (\S+): seat ", line):
            open_games.add(match[1])
        elif match := re.search(r" INFO game (\S+) over: ", line):
            open_games.discard(match[1])
        most = max(most, len(open_games))
    return most


def register_and_enter(url: str, settings: TournamentSettings, bots: list[str]) -> dict[str, str]:
    """Create the tournament, register and enter `bots`; returns their tokens."""
    engine = open_database(url)
    try:
        with Session(engine) as session:
            store.create_tournament(session=session, settings=settings)
            tokens = {bot: store.register_bot(session=session, name=bot).token for bot in bots}
            for bot in bots:
                store.enter_tournament(session=session, tournament=settings.name, bot=bot)
    finally:
        engine.dispose()
    return tokens


async def run_until_finished(
    url: str, tournament: str, start_bots: Callable[[str], None], start_once_connected: list[str] | None = None
) -> records.Tournament:
    """Start an arena on `url`, call `start_bots(target)`, and wait (bounded) for the tournament to
    finish; with `start_once_connected`, start it as soon as those bots are connected."""
    arena = await start_arena(ArenaSettings(port=0, database_url=url))
    try:
        start_bots(f"127.0.0.1:{arena.port}")
        assert arena.engine is not None
        deadline = asyncio.get_running_loop().time() + FINISH_TIMEOUT_S
        while start_once_connected is not None:
            connections = [arena.hub.get(bot) for bot in start_once_connected]
            if all(conn is not None and conn.connected for conn in connections):
                with Session(arena.engine) as session:
                    store.start_tournament(session=session, tournament=tournament)
                break
            assert asyncio.get_running_loop().time() < deadline, "the bots did not connect"
            await asyncio.sleep(0.05)
        while True:
            with Session(arena.engine) as session:
                shown = store.show_tournament(session=session, tournament=tournament)
            if shown.status is records.TournamentStatus.FINISHED:
                return shown
            assert asyncio.get_running_loop().time() < deadline, f"not finished in {FINISH_TIMEOUT_S} s: {shown.games}"
            await asyncio.sleep(0.1)
    finally:
        await arena.stop(grace=0.5)


def test_a_due_tournament_is_played_and_its_ratings_are_reproducible(
    database_url: str, bot_processes: BotProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every game is marked played as it finishes, before its commit (`GameCounts.played`)."""
    events: list[tuple[str, int]] = []

    def spy(step: str, real: Callable[..., object]) -> Callable[..., object]:
        def recorded(*, game_id: int, **kwargs: object) -> object:
            events.append((step, game_id))
            return real(game_id=game_id, **kwargs)

        return recorded

    monkeypatch.setattr(store, "mark_game_played", spy("played", store.mark_game_played))
    monkeypatch.setattr(store, "commit_game", spy("committed", store.commit_game))
    names = ["greedy-a", "greedy-b", "random-a", "random-b"]
    settings = TournamentSettings(
        "cup",
        table_size=3,
        games_per_table=2,
        starts_at=datetime.now(UTC) + timedelta(seconds=1),
        move_limit_ms=5000,
        concurrency=3,
        seed=11,
    )
    tokens = register_and_enter(database_url, settings, names)

    def start_bots(target: str) -> None:
        for name in names:
            bot_processes.start(
                GREEDY if name.startswith("greedy") else RANDOM, target, tokens[name], name, "--capacity", "2"
            )

    finished = asyncio.run(run_until_finished(database_url, "cup", start_bots))
    assert finished.games.finished == finished.games.total == 8  # 4 tables x 2 games
    assert finished.started_at is not None and finished.started_at >= settings.starts_at
    engine = open_database(database_url)
    with Session(engine) as session:
        games = store.list_games(session=session, tournament="cup")
        assert all(g.status is records.GameStatus.FINISHED and g.attempts == 1 for g in games)
        assert all(s.forfeit is None for g in games for s in g.results)
        table = store.rating_table(session=session, tournament="cup")
        assert table == store.recompute_ratings(session=session, tournament="cup")
        assert store.rating_table(session=session) == store.recompute_ratings(session=session)
    engine.dispose()
    assert sorted(row.bot for row in table) == names
    assert sum(row.games for row in table) == 8 * 3
    assert max(most_games_at_once(bot_processes.logs / f"{name}.log") for name in names) <= 2  # their capacity
    committed = [game for step, game in events if step == "committed"]
    assert sorted(committed) == sorted(g.id for g in games)
    assert all(events.index(("played", game)) < events.index(("committed", game)) for game in committed)


def test_a_bot_that_never_connects_forfeits_each_of_its_games(database_url: str, bot_processes: BotProcesses) -> None:
    names = ["here-1", "here-2", "gone"]
    settings = TournamentSettings(
        "absent",
        table_size=2,
        games_per_table=1,
        starts_at=datetime.now(UTC) + timedelta(days=1),
        move_limit_ms=5000,
        concurrency=2,
        seed=3,
        policy=FailurePolicy(absent_wait_ms=300),
    )
    tokens = register_and_enter(database_url, settings, names)

    def start_bots(target: str) -> None:
        for name in names[:2]:
            bot_processes.start(GREEDY, target, tokens[name], name)

    asyncio.run(run_until_finished(database_url, "absent", start_bots, start_once_connected=names[:2]))
    engine = open_database(database_url)
    with Session(engine) as session:
        games = store.list_games(session=session, tournament="absent")
        table = {row.bot: row for row in store.rating_table(session=session, tournament="absent")}
        assert table == {row.bot: row for row in store.recompute_ratings(session=session, tournament="absent")}
    engine.dispose()
    assert len(games) == 6  # every ordered pair of 3 bots
    for game in games:
        for seat in game.results:
            if seat.bot == "gone":
                assert seat.forfeit == "absent: not connected within 0.3 s of the game being due"
                assert seat.rank == 2
            else:
                assert seat.forfeit is None
    assert table["gone"].wins == 0 and table["gone"].games == 4


def test_a_commit_that_fails_while_the_arena_runs_is_retried_without_stopping_the_tournament(
    database_url: str, bot_processes: BotProcesses, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database refuses one commit (as if the connection dropped): the runner tries it again
    after a short wait, logging it once; the tournament's play never stops, so no game is replayed,
    and each counts once."""
    names = ["greedy-a", "random-a"]
    settings = TournamentSettings(
        "flaky",
        table_size=2,
        games_per_table=2,
        starts_at=datetime.now(UTC) + timedelta(days=1),
        move_limit_ms=5000,
        concurrency=1,
        seed=5,
    )
    tokens = register_and_enter(database_url, settings, names)
    commit, failures = store.commit_game, []

    def commit_failing_once(**kwargs: object) -> object:
        if not failures:
            failures.append(kwargs["game_id"])
            raise OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"))
        return commit(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "commit_game", commit_failing_once)

    def start_bots(target: str) -> None:
        for name in names:
            bot_processes.start(GREEDY if name.startswith("greedy") else RANDOM, target, tokens[name], name)

    caplog.set_level(logging.INFO)
    finished = asyncio.run(run_until_finished(database_url, "flaky", start_bots, start_once_connected=names))
    assert failures and finished.games.finished == finished.games.total == 4
    waits = [r.getMessage() for r in caplog.records if "waits for the database" in r.getMessage()]
    assert waits == [
        "tournament 'flaky' waits for the database, retrying with back-off: "
        "OperationalError: (builtins.Exception) server closed the connection unexpectedly"
    ]
    assert not [r for r in caplog.records if "stopped" in r.getMessage() or r.levelno >= logging.ERROR]
    engine = open_database(database_url)
    with Session(engine) as session:
        games = store.list_games(session=session, tournament="flaky")
        assert [g.attempts for g in games] == [1, 1, 1, 1]
        assert store.rating_table(session=session, tournament="flaky") == store.recompute_ratings(
            session=session, tournament="flaky"
        )
        assert sum(row.games for row in store.rating_table(session=session, tournament="flaky")) == 4 * 2
    engine.dispose()
