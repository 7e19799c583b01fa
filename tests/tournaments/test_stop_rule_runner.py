"""Stop-rule tournaments on a real database with the real tournament runner (issue #16): one round
is stored at a time, the next drawn from the seed only after the last one is committed, until the
rule settles the table or the game cap is reached; the schedule and the outcome are reproducible
from the seed, and a runner stopped mid-round (or between a round's last commit and the decision)
and started again ends with exactly the same games, ratings and verdict. The referee is scripted:
each seat scores its bot's strength plus noise seeded by the deal, so results depend on the seats
and the seed alone, as real deterministic bots' would."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.errors import InvalidSetting, TournamentFull
from arena.play.referee import Limits
from arena.play.results import GameResult, SeatResult, final_ranks
from arena.play.spectators import Watch
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.tournaments.runner import TournamentRunner
from arena.tournaments.schedule import MIXED_EVERY, round_robin, round_seed, schedule_seed
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import StopOutcome, StopRule
from sdk.engine import EndReason, GameRecord, Kept, RoundResult
from tests.tournaments.test_failure_policy import EveryoneConnected

STRENGTH = {"ann": 30.0, "bob": 20.0, "cy": 10.0}
EQUAL = {"ann": 20.0, "bob": 20.0, "cy": 20.0}
SEED = 5
ROUND = 3
"""Tables (and games) per round: 3 entrants at 3-seat tables."""


@dataclass
class StrengthReferee:
    """Each seat scores its bot's strength plus Gaussian noise seeded by the deal seed and seat."""

    strength: Mapping[str, float]
    noise: float = 8.0

    def result(self, seats: Sequence[str], seed: int) -> GameResult:
        rng = random.Random(seed)
        totals = tuple(max(0, round(self.strength[b] + rng.gauss(0, self.noise))) for b in seats)
        n = len(seats)
        rounds = tuple(
            RoundResult(r, EndReason.EMPTY_HAND, totals if r == 0 else (0,) * n, (0,) * n, None) for r in range(n)
        )
        ranks = final_ranks(totals, [False] * n)
        return GameResult(
            GameRecord(n, seed, (), (), (), rounds, totals),
            tuple(SeatResult(s, b, totals[s], ranks[s]) for s, b in enumerate(seats)),
        )

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
        await asyncio.sleep(0.005)
        return self.result(seat_bots, seed)


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def create(engine: Engine, name: str, rule: StopRule, table_size: int = 3) -> None:
    settings = TournamentSettings(
        name,
        table_size=table_size,
        games_per_table=1,
        starts_at=datetime.now(UTC),
        move_limit_ms=1000,
        concurrency=2,
        seed=SEED,
        stop_rule=rule,
    )
    with Session(engine) as session:
        store.create_tournament(session=session, settings=settings)
        known = {b.name for b in store.list_bots(session=session)}
        for bot in STRENGTH:
            if bot not in known:
                store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament=name, bot=bot)
        store.start_tournament(session=session, tournament=name)


def show(engine: Engine, name: str) -> records.Tournament:
    with Session(engine) as session:
        return store.show_tournament(session=session, tournament=name)


def run(engine: Engine, name: str, referee: StrengthReferee, until: Callable[[records.Tournament], bool]) -> None:
    """Run a fresh tournament runner until `until(tournament)` holds, then cancel it (a crash: its
    games in play stay marked running)."""
    runner = TournamentRunner(AsyncStore(engine), referee, EveryoneConnected())  # type: ignore[arg-type]

    async def go() -> None:
        task = asyncio.create_task(runner.run())
        try:
            for _ in range(1200):
                if until(show(engine, name)):
                    return
                await asyncio.sleep(0.025)
            pytest.fail(f"tournament {name} did not get there in 30 s")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())


def play_scheduled(session: Session, name: str, referee: StrengthReferee) -> None:
    """Play and commit every scheduled game of `name` through the store, deciding nothing."""
    for waiting in store.next_games(session=session, tournament=name):
        game = store.mark_game_running(session=session, game_id=waiting.id)
        store.commit_game(session=session, game_id=game.id, result=referee.result(game.seats, game.seed))


def finished(t: records.Tournament) -> bool:
    return t.status is records.TournamentStatus.FINISHED


def outcome(engine: Engine, name: str) -> tuple[object, ...]:
    """What a finished tournament left: every game's place, seats and points in commit order,
    its rating table and its verdict."""
    with Session(engine) as session:
        games = store.list_games(session=session, tournament=name)
        table = store.rating_table(session=session, tournament=name)
        tournament = store.show_tournament(session=session, tournament=name)
    played = sorted(
        ((g.finished_at, g.id), g.table_index, g.game_index, g.seats, tuple(s.points for s in g.results)) for g in games
    )
    return [p[1:] for p in played], table, tournament.stop


def test_it_plays_seat_balanced_rounds_drawn_from_the_seed_until_settled(engine: Engine) -> None:
    create(engine, "settles", StopRule(confidence=0.9))
    started = show(engine, "settles")
    assert started.games.total == ROUND and started.stop is not None and started.stop.rounds == 0
    run(engine, "settles", StrengthReferee(STRENGTH), finished)
    t = show(engine, "settles")
    assert t.stop is not None and t.stop.outcome is StopOutcome.SETTLED
    assert [(p.upper, p.lower, p.settled) for p in t.stop.pairs] == [("ann", "bob", True), ("bob", "cy", True)]
    assert t.stop.rounds > 1 and t.games.total == t.games.finished == t.stop.games == ROUND * t.stop.rounds
    with Session(engine) as session:
        tables = store.show_schedule(session=session, tournament="settles").tables
    for r in range(t.stop.rounds):
        played = tables[r * ROUND : (r + 1) * ROUND]
        if r % MIXED_EVERY == 0:
            drawn = round_robin(sorted(STRENGTH), 3, round_seed(schedule_seed(SEED), r))
            assert played == drawn.tables, f"round {r} is the format's round, drawn from the schedule seed"
        for bot in STRENGTH:
            assert sorted(table.seats.index(bot) for table in played) == [0, 1, 2], f"round {r}: once in each seat"
    assert round_seed(schedule_seed(SEED), 0) == schedule_seed(SEED), "round 0 is the ordinary schedule"


def test_the_same_seed_gives_the_same_tournament(engine: Engine) -> None:
    for name in ("first", "again"):
        create(engine, name, StopRule(confidence=0.9))
        run(engine, name, StrengthReferee(STRENGTH), finished)
    assert outcome(engine, "first") == outcome(engine, "again")


@pytest.mark.parametrize("stops", [[2], [ROUND], [1, 4, 7]], ids=["mid-round", "round-end", "three-times"])
def test_a_runner_stopped_and_started_again_ends_the_same(engine: Engine, stops: list[int]) -> None:
    create(engine, "whole", StopRule(confidence=0.9))
    run(engine, "whole", StrengthReferee(STRENGTH), finished)
    create(engine, "cut", StopRule(confidence=0.9))
    for games in stops:
        run(engine, "cut", StrengthReferee(STRENGTH), lambda t, games=games: t.games.finished >= games or finished(t))
    run(engine, "cut", StrengthReferee(STRENGTH), finished)
    assert outcome(engine, "cut") == outcome(engine, "whole")


def test_a_crash_between_a_rounds_last_commit_and_the_decision_decides_the_same(engine: Engine) -> None:
    create(engine, "whole", StopRule(confidence=0.9))
    run(engine, "whole", StrengthReferee(STRENGTH), finished)
    create(engine, "undecided", StopRule(confidence=0.9))
    referee = StrengthReferee(STRENGTH)
    with Session(engine) as session:
        play_scheduled(session, "undecided", referee)
        waiting_round = store.show_tournament(session=session, tournament="undecided")
        assert waiting_round.status is records.TournamentStatus.RUNNING and waiting_round.games.scheduled == 0
        assert waiting_round.stop is not None and waiting_round.stop.rounds == 1
    run(engine, "undecided", referee, finished)
    assert outcome(engine, "undecided") == outcome(engine, "whole")


def test_deciding_twice_adds_one_round(engine: Engine) -> None:
    create(engine, "twice", StopRule(confidence=0.9))
    referee = StrengthReferee(STRENGTH)
    with Session(engine) as session:
        play_scheduled(session, "twice", referee)
        first = store.advance_stop_rule(session=session, tournament="twice")
        second = store.advance_stop_rule(session=session, tournament="twice")
        counts = store.show_tournament(session=session, tournament="twice").games
    assert first.outcome is StopOutcome.PLAYING and first == second
    assert (counts.finished, counts.scheduled) == (ROUND, ROUND)


def test_equal_bots_stop_at_the_cap_naming_the_open_pairs(engine: Engine) -> None:
    create(engine, "capped", StopRule(confidence=0.95, max_games=4 * ROUND + 1))
    run(engine, "capped", StrengthReferee(EQUAL), finished)
    t = show(engine, "capped")
    assert t.stop is not None and t.stop.outcome is StopOutcome.CAP_REACHED
    assert t.stop.rounds == 4 and t.games.total == 4 * ROUND, "no round starts that would go over the cap"
    assert t.stop.unsettled and all(p.above + p.below <= 4 * ROUND for p in t.stop.pairs)


def test_the_top_places_alone_can_settle_it(engine: Engine) -> None:
    """With top 1 only the leader must be proven above the runner-up."""
    strength = {"ann": 40.0, "bob": 15.0, "cy": 14.0}
    create(engine, "leader", StopRule(confidence=0.9, top=1))
    run(engine, "leader", StrengthReferee(strength), finished)
    t = show(engine, "leader")
    assert t.stop is not None and t.stop.outcome is StopOutcome.SETTLED
    assert [(p.upper, p.settled) for p in t.stop.pairs] == [("ann", True)]


def test_a_tournament_without_the_rule_is_not_advanced(engine: Engine) -> None:
    with Session(engine) as session:
        store.create_tournament(
            session=session, settings=TournamentSettings("plain", 3, 1, datetime.now(UTC), 1000, seed=SEED)
        )
        for bot in STRENGTH:
            store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament="plain", bot=bot)
        store.start_tournament(session=session, tournament="plain")
        with pytest.raises(InvalidSetting, match="tournament 'plain' has no stop rule"):
            store.advance_stop_rule(session=session, tournament="plain")
        assert store.show_tournament(session=session, tournament="plain").stop is None


def test_one_round_must_fit_under_the_cap(engine: Engine) -> None:
    with Session(engine) as session:
        with pytest.raises(
            InvalidSetting, match="even 2 entrants would play 6 games a round, over the stop rule's cap"
        ):
            store.create_tournament(
                session=session,
                settings=TournamentSettings("tiny", 2, 3, datetime.now(UTC), 1000, stop_rule=StopRule(max_games=5)),
            )
        store.create_tournament(
            session=session,
            settings=TournamentSettings("small", 2, 1, datetime.now(UTC), 1000, stop_rule=StopRule(max_games=5)),
        )
        for bot in STRENGTH:
            store.register_bot(session=session, name=bot)
        store.enter_tournament(session=session, tournament="small", bot="ann")
        store.enter_tournament(session=session, tournament="small", bot="bob")
        with pytest.raises(
            TournamentFull, match="3 entrants would play 6 games a round, over the stop rule's cap of 5"
        ):
            store.enter_tournament(session=session, tournament="small", bot="cy")
