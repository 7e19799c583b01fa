"""Tournaments in which one entrant drops its connection whenever it is dealt a weak hand, played
by the real tournament runner, failure policy and store, for tests/security/test_void_gain.py and
benchmarks/void_gain.py.

Every seat is a greedy bot (bots.greedy) seeing only its own observation. The cheater is the same
greedy bot, except that at a round's start, seeing a dealt hand worth less than `WEAK` (the worst
sixth of 3-player hands), it disconnects: its seat is forfeited with cause DISCONNECT and the
referee's fallback plays it out, exactly what the arena does when a stream drops. The honest twin
plays every hand out. Both meet the same opponents in the same schedule from the same tournament
seed (entrants sort alike), so the only difference is the cheating.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena import records
from arena.play.referee import Limits, fallback_action
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.play.spectators import Watch
from arena.ratings.table import RatingRow
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.runner import TournamentRunner
from arena.tournaments.settings import TournamentSettings
from bots.greedy import GreedyBot, hand_value
from sdk.engine import Card, Flip, Game, Kept, Phase, observe, record_of

WEAK = -27.0
"""A hand this bad or worse (`hand_value` of its better side) is dropped: about 1 in 6 hands."""
OPPONENTS = ("a-greedy-1", "a-greedy-2", "a-greedy-3")
CHEATER, HONEST = "x-cheater", "x-honest"
"""Both sort after the opponents, so the two tournaments share one schedule."""
DROPPED = "disconnected: dropped its stream on a weak hand"


def weak(hand: Sequence[Card]) -> bool:
    return max(hand_value(tuple(c.top for c in hand)), hand_value(tuple(c.bottom for c in hand))) <= WEAK


class GreedyReferee:
    """Plays each game with greedy bots; a seat of CHEATER's disconnects on a weak dealt hand. A
    thrifty cheater (`budget`) drops only while it has voids to spend, never twice in one game:
    it spends the voids its tournament allows on weak hands and plays every other hand out."""

    def __init__(self, budget: int | None = None) -> None:
        self.bot = GreedyBot()
        self.drops = 0
        self.budget = budget
        self._dropped: set[str] = set()

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
        game = Game(len(seat_bots), seed, kept=kept)
        gone: set[int] = set()
        while not game.is_over:
            seat = game.awaiting[0]
            if (
                seat not in gone
                and game.phase is Phase.FLIP
                and seat_bots[seat] == CHEATER
                and weak(game.hands[seat])
                and self._may_drop(game_id)
            ):
                gone.add(seat)
                self.drops += 1
            if seat in gone:
                game.apply(seat, fallback_action(game, seat))
                continue
            obs = observe(game, seat)
            game.apply(seat, Flip(self.bot.flip(obs)) if game.phase is Phase.FLIP else self.bot.choose(obs))
        ranks = final_ranks(game.totals, [s in gone for s in range(len(seat_bots))])
        seats = tuple(
            SeatResult(s, bot, game.totals[s], ranks[s], *((DROPPED, ForfeitCause.DISCONNECT) if s in gone else ()))
            for s, bot in enumerate(seat_bots)
        )
        return GameResult(record_of(game), seats)

    def _may_drop(self, attempt: str) -> bool:
        if self.budget is None:
            return True
        game = attempt.split("-")[0]
        if self.drops >= self.budget or game in self._dropped:
            return False
        self._dropped.add(game)
        return True


class _Connected:
    connected = True
    capacity = 64
    live_games: ClassVar[dict[str, object]] = {}
    held = 0


class _EveryoneConnected:
    def get(self, bot: str) -> _Connected:
        return _Connected()

    def watching(self) -> bool:
        """No bot stream waits to hear that a tournament is over."""
        return False


@dataclass(frozen=True)
class Outcome:
    """One tournament's result for its subject (the cheater or the honest twin)."""

    subject: str
    rating: RatingRow
    games: list[records.GameDetail]
    drops: int

    @property
    def voids(self) -> int:
        """Voided attempts the subject caused."""
        return sum(
            1
            for g in self.games
            for v in g.voided
            for s in v.result.seats
            if s.bot == self.subject and s.policy is PolicyDecision.VOID
        )

    def forfeits(self, decision: PolicyDecision) -> int:
        """Counted games in which the subject forfeited with `decision`."""
        return sum(1 for g in self.games for s in g.info.results if s.bot == self.subject and s.policy is decision)

    @property
    def points(self) -> int:
        return sum(s.points for g in self.games for s in g.info.results if s.bot == self.subject)


def play(
    engine: Engine,
    name: str,
    subject: str,
    games_per_table: int,
    seed: int,
    policy: FailurePolicy,
    timeout_s: float = 600.0,
    thrifty: bool = False,
) -> Outcome:
    """Play a 3-seat tournament of `subject` and OPPONENTS to its end with the real runner; a
    `thrifty` cheater spends only the voids `policy` allows it (`GreedyReferee`)."""
    settings = TournamentSettings(
        name, 3, games_per_table, datetime.now(UTC), 1000, concurrency=4, seed=seed, policy=policy
    )
    with Session(engine) as session:
        store.create_tournament(session=session, settings=settings)
        known = {b.name for b in store.list_bots(session=session)}
        for bot in (subject, *OPPONENTS):
            if bot not in known:
                store.register_bot(session=session, name=bot)
            store.enter_tournament(session=session, tournament=name, bot=bot)
        store.start_tournament(session=session, tournament=name)
    referee = GreedyReferee(policy.max_voids_per_bot if thrifty else None)
    runner = TournamentRunner(AsyncStore(engine), referee, _EveryoneConnected())  # type: ignore[arg-type]

    async def run() -> None:
        task = asyncio.create_task(runner.run())
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    with Session(engine) as session:
                        if store.show_tournament(session=session, tournament=name).finished_at is not None:
                            return
                    await asyncio.sleep(0.05)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())
    with Session(engine) as session:
        (rating,) = [r for r in store.rating_table(session=session, tournament=name) if r.bot == subject]
        games = [
            store.show_game(session=session, game_id=g.id) for g in store.list_games(session=session, tournament=name)
        ]
    return Outcome(subject, rating, games, referee.drops)
