"""Games for storage tests: real engine games with a seeded random policy, or chosen totals."""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from datetime import UTC, datetime

from sqlmodel import Session

from arena import records
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.storage import store
from arena.tournaments.settings import TournamentSettings
from sdk.engine import EndReason, Game, GameRecord, RoundResult, record_of

START = datetime(2026, 1, 1, tzinfo=UTC)


def random_result(
    game: records.GameToPlay,
    forfeits: Collection[int] = (),
    cause: ForfeitCause = ForfeitCause.TIMEOUT,
    policy: PolicyDecision = PolicyDecision.FORFEIT,
) -> GameResult:
    """Play `game` with every seat choosing uniformly at random (seeded by the deal seed); the
    `forfeits` seats failed with `cause` and the failure policy decided `policy`; dealt, as the
    referee deals it, with the hands the attempt keeps."""
    engine_game = Game(len(game.seats), game.seed, kept=game.kept)
    rng = random.Random(game.seed)
    while not engine_game.is_over:
        actions = engine_game.legal_actions()
        engine_game.apply(engine_game.to_move, actions[rng.randrange(len(actions))])
    return result_of(game, record_of(engine_game), forfeits, cause, policy)


def chosen_result(game: records.GameToPlay, totals: Sequence[int], forfeits: Collection[int] = ()) -> GameResult:
    """A result with the given totals, its record reduced to what storage checks."""
    n = len(game.seats)
    rounds = tuple(
        RoundResult(r, EndReason.EMPTY_HAND, tuple(totals) if r == 0 else (0,) * n, (0,) * n, None) for r in range(n)
    )
    record = GameRecord(n, game.seed, (), (), (), rounds, tuple(totals))
    return result_of(game, record, forfeits)


def result_of(
    game: records.GameToPlay,
    record: GameRecord,
    forfeits: Collection[int] = (),
    cause: ForfeitCause = ForfeitCause.TIMEOUT,
    policy: PolicyDecision = PolicyDecision.FORFEIT,
) -> GameResult:
    forfeited = [s in forfeits for s in range(len(game.seats))]
    ranks = final_ranks(record.totals, forfeited)
    failure = (f"{cause.value}: as the test says", cause, policy)
    seats = tuple(
        SeatResult(s, bot, record.totals[s], ranks[s], *(failure if forfeited[s] else ()))
        for s, bot in enumerate(game.seats)
    )
    return GameResult(record, seats)


def running_tournament(
    session: Session,
    bots: int,
    table_size: int,
    games_per_table: int = 1,
    seed: int = 7,
    name: str = "cup",
    concurrency: int = 1,
    schedule: bool = True,
) -> list[str]:
    """Register `bots` bots, enter them in a new tournament and start it; returns the bot names.
    Without `schedule` the start only closes the entries (`store.close_entries`), as a cluster
    node's does before it stores the schedule under its lease."""
    names = [f"bot{i:02d}" for i in range(bots)]
    for bot in names:
        if not any(b.name == bot for b in store.list_bots(session=session)):
            store.register_bot(session=session, name=bot)
    store.create_tournament(
        session=session,
        settings=TournamentSettings(
            name=name,
            table_size=table_size,
            games_per_table=games_per_table,
            starts_at=START,
            move_limit_ms=1000,
            seed=seed,
            concurrency=concurrency,
        ),
    )
    for bot in names:
        store.enter_tournament(session=session, tournament=name, bot=bot)
    if schedule:
        store.start_tournament(session=session, tournament=name)
    else:
        store.close_entries(session=session, tournament=name)
    return names


def play_all(session: Session, tournament: str | None = None) -> int:
    """Play every waiting game with random policies; returns how many were committed."""
    played = 0
    while games := store.next_games(session=session, tournament=tournament, limit=20):
        for waiting in games:
            game = store.mark_game_running(session=session, game_id=waiting.id)
            store.commit_game(session=session, game_id=game.id, result=random_result(game))
            played += 1
    return played
