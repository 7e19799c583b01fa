"""The failure policy per cause (issue #6): the tournament runner, on a real database, judges each
finished game by its forfeits' causes. A cause the policy voids stores the attempt as voided and
plays the same game again from a new deal, in its place in the schedule; a cause it forfeits
commits the game with the cause and the decision on the seat; after `max_replays` voids a voiding
cause forfeits (void-cap-reached), so a tournament always ends. The referee here is scripted (its
results are seeded random games with chosen forfeits), so every case is exact and fast; real bot
processes failing inside a tournament are in tests/reliability/test_zoo_db.py."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import ClassVar

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.play.referee import Limits
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.play.spectators import Watch
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.fairness import attempt_seed
from arena.tournaments.runner import TournamentRunner
from arena.tournaments.settings import TournamentSettings
from sdk.engine import Game, Kept, record_of

BOTS = ("ann", "bob", "cy")
FIRST = 1
"""The first scheduled game's id (the database is fresh)."""
Script = Mapping[tuple[int, int], Mapping[int, ForfeitCause]]
"""(game id, attempt number) -> the seats that fail in that attempt, with their cause."""


@dataclass
class ScriptedReferee:
    """Plays each game as a seeded random game, forfeiting the seats the script names. The replay
    of a voided game is slowed down, so later games finish first and must wait for it."""

    script: Script
    replay_delay_s: float = 0.3
    plays: list[tuple[int, int]] = field(default_factory=list)
    """(game id, seed) of every attempt, in the order they started."""
    finished: list[int] = field(default_factory=list)
    """The game id of every attempt, in the order they finished."""

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
        game = int(game_id.split("-")[0])
        self.plays.append((game, seed))
        attempt = sum(1 for g, _ in self.plays if g == game)
        await asyncio.sleep(self.replay_delay_s if attempt > 1 else 0.01)
        failing = self.script.get((game, attempt), {})
        engine_game = Game(len(seat_bots), seed, kept=kept)
        rng = random.Random(seed)
        while not engine_game.is_over:
            actions = engine_game.legal_actions()
            engine_game.apply(engine_game.to_move, actions[rng.randrange(len(actions))])
        ranks = final_ranks(engine_game.totals, [s in failing for s in range(len(seat_bots))])
        seats = tuple(
            SeatResult(
                s,
                bot,
                engine_game.totals[s],
                ranks[s],
                *((f"{failing[s].value}: scripted", failing[s]) if s in failing else ()),
            )
            for s, bot in enumerate(seat_bots)
        )
        self.finished.append(game)
        return GameResult(record_of(engine_game), seats)


class _Connected:
    connected = True
    capacity = 8
    live_games: ClassVar[dict[str, object]] = {}
    held = 0


class EveryoneConnected:
    def get(self, bot: str) -> _Connected:
        return _Connected()

    def watching(self) -> bool:
        """No bot stream waits to hear that a tournament is over."""
        return False


def play_tournament(engine: Engine, name: str, policy: FailurePolicy, script: Script) -> ScriptedReferee:
    """Create, enter and start a 2-seat tournament of BOTS (6 games), and run the tournament
    runner with a scripted referee until it finishes."""
    settings = TournamentSettings(
        name,
        table_size=2,
        games_per_table=1,
        starts_at=datetime.now(UTC),
        move_limit_ms=1000,
        concurrency=3,
        seed=17,
        policy=policy,
    )
    with Session(engine) as session:
        store.create_tournament(session=session, settings=settings)
        for bot in BOTS:
            if bot not in {b.name for b in store.list_bots(session=session)}:
                store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament=name, bot=bot)
        store.start_tournament(session=session, tournament=name)
    referee = ScriptedReferee(script)
    runner = TournamentRunner(AsyncStore(engine), referee, EveryoneConnected())  # type: ignore[arg-type]

    async def run() -> None:
        task = asyncio.create_task(runner.run())
        try:
            for _ in range(300):
                with Session(engine) as session:
                    if store.show_tournament(session=session, tournament=name).finished_at is not None:
                        return
                await asyncio.sleep(0.05)
            pytest.fail(f"tournament {name} did not finish in 15 s")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())
    return referee


@pytest.fixture
def engine(database_url: str) -> Engine:
    return open_database(database_url)


def games(engine: Engine, name: str) -> list[records.GameDetail]:
    with Session(engine) as session:
        return [
            store.show_game(session=session, game_id=g.id) for g in store.list_games(session=session, tournament=name)
        ]


def test_a_voiding_cause_stores_the_attempt_and_replays_the_game_in_its_place(engine: Engine) -> None:
    """Default policy: a disconnect voids. The voided attempt is kept with its record and causes,
    the game is played again from a fresh deal (the next attempt's seed) and commits in schedule
    order."""
    script = {(FIRST, 1): {1: ForfeitCause.DISCONNECT, 0: ForfeitCause.TIMEOUT}}
    referee = play_tournament(engine, "voided", FailurePolicy(), script)
    played = games(engine, "voided")
    first = played[0]
    assert first.info.id == FIRST and first.info.attempts == 2
    seeds = [seed for game, seed in referee.plays if game == FIRST]
    assert seeds == [attempt_seed(17, 0, 0, 1), attempt_seed(17, 0, 0, 2)] and seeds[1] == first.info.seed
    (voided,) = first.voided
    assert voided.attempt == 1 and voided.result.record.seed == voided.seed == seeds[0]
    assert [(s.seat, s.cause, s.policy) for s in voided.result.seats if s.forfeit] == [
        (0, ForfeitCause.TIMEOUT, PolicyDecision.FORFEIT),
        (1, ForfeitCause.DISCONNECT, PolicyDecision.VOID),
    ]
    assert all(s.forfeit is None for g in played for s in g.info.results)
    assert [g.info.attempts for g in played[1:]] == [1] * 5 and all(g.voided == () for g in played[1:])
    # The replay finished last but was committed first: the schedule's order, as without a void.
    assert referee.finished[-1] == FIRST
    assert sorted(played, key=lambda g: g.info.finished_at) == played  # type: ignore[arg-type, return-value]

    with Session(engine) as session:
        assert store.recompute_ratings(session=session, tournament="voided") == store.rating_table(
            session=session, tournament="voided"
        )
    # The same tournament without the failure deals the voided attempt's cards, then the same games.
    play_tournament(engine, "calm", FailurePolicy(), {})
    calm = games(engine, "calm")
    assert calm[0].record == voided.result.record and [g.record for g in calm[1:]] == [g.record for g in played[1:]]


@pytest.mark.parametrize("max_replays", [0, 2])
def test_after_max_replays_a_voiding_cause_forfeits(engine: Engine, max_replays: int) -> None:
    """A bot that drops out of every attempt: voided `max_replays` times, then the next attempt
    counts with the seat forfeited as void-cap-reached, so the tournament ends."""
    script = {(FIRST, attempt): {0: ForfeitCause.DISCONNECT} for attempt in range(1, 10)}
    referee = play_tournament(engine, "capped", FailurePolicy(max_replays=max_replays), script)
    first = games(engine, "capped")[0]
    assert Counter(game for game, _ in referee.plays)[FIRST] == max_replays + 1
    assert [v.attempt for v in first.voided] == list(range(1, max_replays + 1))
    seat = first.info.results[0]
    assert (seat.cause, seat.policy, seat.rank) == (ForfeitCause.DISCONNECT, PolicyDecision.CAP_REACHED, 2)


@pytest.mark.parametrize(
    ("cause", "policy", "voids"),
    [
        (ForfeitCause.TIMEOUT, FailurePolicy(), False),
        (ForfeitCause.ILLEGAL, FailurePolicy(), False),
        (ForfeitCause.ABSENT, FailurePolicy(), False),
        (ForfeitCause.DISCONNECT, FailurePolicy(), True),
        (ForfeitCause.TIMEOUT, FailurePolicy(on_timeout=FailureAction.VOID), True),
        (ForfeitCause.DISCONNECT, FailurePolicy(on_disconnect=FailureAction.FORFEIT), False),
    ],
    ids=["timeout", "illegal", "absent", "disconnect", "timeout-set-to-void", "disconnect-set-to-forfeit"],
)
def test_each_cause_gets_the_policys_choice(
    engine: Engine, cause: ForfeitCause, policy: FailurePolicy, voids: bool
) -> None:
    play_tournament(engine, "per-cause", policy, {(FIRST, 1): {1: cause}})
    first = games(engine, "per-cause")[0]
    if voids:
        assert [(s.cause, s.policy) for v in first.voided for s in v.result.seats if s.forfeit] == [
            (cause, PolicyDecision.VOID)
        ]
        assert all(s.forfeit is None for s in first.info.results)
    else:
        assert first.voided == () and first.info.attempts == 1
        seat = first.info.results[1]
        assert (seat.forfeit, seat.cause, seat.policy, seat.rank) == (
            f"{cause.value}: scripted",
            cause,
            PolicyDecision.FORFEIT,
            2,
        )
