"""Large fields and isolation (issue #11): a field larger than the old schedule could take starts
and plays through the real tournament runner; a tournament whose start or play fails is marked
failed with its reason while another plays to the end in the same runner; the game limit refuses
a full round robin too large, at entry, with the fix. The referee is the scripted one of the
failure-policy tests (seeded random games), so the runner, store and schedule are the real ones."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.errors import TournamentFailed, TournamentFull
from arena.play.referee import Limits
from arena.play.results import GameResult
from arena.play.spectators import Watch
from arena.ratings.table import arena_env
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.store import tournaments as tournaments_store
from arena.storage.tables import BotRatingRow, BotRow, EntryRow
from arena.tournaments import entries
from arena.tournaments.isolation import start_or_fail
from arena.tournaments.runner import TournamentRunner
from arena.tournaments.settings import TournamentSettings
from sdk.engine import Kept
from tests.tournaments.test_failure_policy import EveryoneConnected, ScriptedReferee

NOW = datetime.now(UTC)


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def field(engine: Engine, settings: TournamentSettings, entrants: int, prefix: str) -> list[str]:
    """Create the tournament and enter `entrants` new bots, as `store.register_bot` and
    `enter_tournament` would but in bulk (the entry path itself is tested one bot at a time below)."""
    names = [f"{prefix}{i:04d}" for i in range(entrants)]
    with Session(engine) as session:
        made = store.create_tournament(session=session, settings=settings)
        session.exec(
            sa.insert(BotRow),
            params=[  # type: ignore[call-overload]
                {"name": n, "token_hash": f"{prefix}-{n}", "created_at": NOW} for n in names
            ],
        )
        ids = session.exec(sa.select(BotRow.id).where(BotRow.name.in_(names))).scalars().all()  # type: ignore[attr-defined]
        session.exec(
            sa.insert(EntryRow),
            params=[  # type: ignore[call-overload]
                {"tournament_id": made.id, "bot_id": i, "entered_at": NOW} for i in ids
            ],
        )
        env = arena_env()
        session.exec(
            sa.insert(BotRatingRow),
            params=[  # type: ignore[call-overload]
                {"tournament_id": None, "bot_id": i, "mu": env.mu, "sigma": env.sigma} for i in ids
            ],
        )
        session.commit()
    return names


def shown(engine: Engine, name: str) -> records.Tournament:
    with Session(engine) as session:
        return store.show_tournament(session=session, tournament=name)


def run_runner(engine: Engine, referee: object, until: Sequence[str], timeout_s: float = 120) -> None:
    """Run the tournament runner until every tournament in `until` has ended (finished or failed)."""
    runner = TournamentRunner(AsyncStore(engine), referee, EveryoneConnected())  # type: ignore[arg-type]

    async def run() -> None:
        task = asyncio.create_task(runner.run())
        try:
            for _ in range(int(timeout_s * 20)):
                if all(shown(engine, name).finished_at is not None for name in until):
                    return
                await asyncio.sleep(0.05)
            pytest.fail(f"{until} did not end in {timeout_s:g} s: {[shown(engine, n).games for n in until]}")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())


def settings(
    name: str, table_size: int, games_per_table: int = 1, starts_at: datetime = NOW, **kwargs: object
) -> TournamentSettings:
    return TournamentSettings(name, table_size, games_per_table, starts_at, 1000, seed=7, **kwargs)  # type: ignore[arg-type]


def test_a_field_of_300_at_4_seats_starts_and_plays_through_the_runner(engine: Engine) -> None:
    """More entrants than the old schedule's recursion could seat; one round (300 games)."""
    names = field(engine, settings("big", 4, rounds=1, concurrency=16), 300, "big")
    referee = ScriptedReferee({}, replay_delay_s=0)
    run_runner(engine, referee, ["big"])
    done = shown(engine, "big")
    assert done.status is records.TournamentStatus.FINISHED and done.games.finished == done.games.total == 300
    with Session(engine) as session:
        games = store.list_games(session=session, tournament="big")
        table = store.rating_table(session=session, tournament="big")
    played = Counter(s.bot for g in games for s in g.results)
    seats = Counter((s.bot, s.seat) for g in games for s in g.results)
    assert played == {n: 4 for n in names}
    assert set(seats.values()) == {1} and len(seats) == 300 * 4  # once in every seat
    assert sorted(r.bot for r in table) == names and all(r.games == 4 for r in table)


def test_fields_of_200_and_1000_in_rounds_start_balanced(engine: Engine) -> None:
    field(engine, settings("r200", 4, rounds=10), 200, "a")
    field(engine, settings("r1000", 4, rounds=2), 1000, "b")
    for name, entrants, tables_each in (("r200", 200, 4 * 10), ("r1000", 1000, 4 * 2)):
        with Session(engine) as session:
            started = start_or_fail(session=session, tournament=name)
            schedule = store.show_schedule(session=session, tournament=name)
        assert started.status is records.TournamentStatus.RUNNING
        assert started.games.total == len(schedule.tables) == entrants * tables_each // 4
        assert set(schedule.seat_counts().values()) == {(tables_each // 4,) * 4}
        counts = schedule.pair_counts().values()
        assert max(counts) - min(counts) <= 1


def test_a_tournament_whose_start_fails_is_marked_failed_and_another_plays_on(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tournaments_store.round_robin

    def broken(entrants: Sequence[str], table_size: int, seed: int, rounds: int | None = None) -> object:
        if table_size == 3:
            raise RecursionError("maximum recursion depth exceeded")
        return real(entrants, table_size, seed, rounds)

    monkeypatch.setattr(tournaments_store, "round_robin", broken)
    field(engine, settings("victim", 3, starts_at=NOW - timedelta(minutes=1)), 6, "v")  # due first
    field(engine, settings("healthy", 2), 3, "h")
    run_runner(engine, ScriptedReferee({}, replay_delay_s=0), ["victim", "healthy"])
    victim, healthy = shown(engine, "victim"), shown(engine, "healthy")
    assert healthy.status is records.TournamentStatus.FINISHED and healthy.games.finished == 6
    assert victim.status is records.TournamentStatus.FAILED and victim.games.total == 0  # the start rolled back
    assert victim.failure == "starting failed: RecursionError: maximum recursion depth exceeded"
    with Session(engine) as session, pytest.raises(TournamentFailed) as caught:
        start_or_fail(session=session, tournament="victim")
    assert str(caught.value) == f"tournament 'victim' failed: {victim.failure}"


class FailingReferee(ScriptedReferee):
    """Plays like the scripted referee, but raises for the games of 2-seat tables."""

    async def play(
        self,
        game_id: str,
        seat_bots: Sequence[str],
        seed: int,
        limits: Limits,
        absent: Mapping[str, str],
        watch: Watch | None = None,
        kept: Kept | None = None,
    ) -> GameResult:
        if len(seat_bots) == 2:
            raise ValueError("the referee broke on this table")
        return await super().play(game_id, seat_bots, seed, limits, absent, kept=kept)


def test_a_tournament_whose_play_fails_is_marked_failed_and_another_plays_on(engine: Engine) -> None:
    field(engine, settings("broken", 2), 3, "x")
    field(engine, settings("fine", 3), 4, "y")
    run_runner(engine, FailingReferee({}, replay_delay_s=0), ["broken", "fine"])
    broken, fine = shown(engine, "broken"), shown(engine, "fine")
    assert fine.status is records.TournamentStatus.FINISHED and fine.games.finished == fine.games.total == 4
    assert broken.status is records.TournamentStatus.FAILED and broken.games.finished == 0
    assert broken.failure == "playing failed: ValueError: the referee broke on this table"


def test_a_full_round_robin_too_large_is_refused_at_entry_with_the_fix(engine: Engine) -> None:
    """10 games a table at 2 seats: 71 entrants schedule 49,700 games, a 72nd would make 51,120."""
    field(engine, settings("huge", 2, games_per_table=10), 71, "z")
    with Session(engine) as session:
        store.register_bot(session=session, name="one-too-many")
        with pytest.raises(TournamentFull) as caught:
            store.enter_tournament(session=session, tournament="huge", bot="one-too-many")
    assert str(caught.value) == (
        f"tournament 'huge' is full: 72 entrants would play 51120 games, over the arena's limit of "
        f"{entries.MAX_GAMES}; create it with --rounds N for a bounded number of games per bot"
    )
    assert len(shown(engine, "huge").entrants) == 71


def test_max_entrants_caps_the_field(engine: Engine) -> None:
    with Session(engine) as session:
        store.create_tournament(session=session, settings=settings("capped", 2, max_entrants=3))
        for bot in ("ann", "bob", "cy", "dee"):
            store.register_bot(session=session, name=bot)
        for bot in ("ann", "bob", "cy"):
            store.enter_tournament(session=session, tournament="capped", bot=bot)
        with pytest.raises(TournamentFull, match=r"^tournament 'capped' is full \(3 entrants\)$"):
            store.enter_tournament(session=session, tournament="capped", bot="dee")
        assert store.show_tournament(session=session, tournament="capped").entrants == ("ann", "bob", "cy")
