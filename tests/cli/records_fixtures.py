"""Read models for the view tests: a finished game played by the engine, and a tournament."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.records import GameCounts, GameDetail, GameInfo, GameStatus, Tournament, TournamentStatus, VoidedAttempt
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from sdk.engine import Game, GameRecord, deal_rounds, record_of

SEATS = ("ann", "bob", "cy")
STARTED = datetime(2030, 1, 4, 18, 0, tzinfo=UTC)


def played(seed: int = 7, players: int = 3, kept_seat: int | None = None) -> GameRecord:
    """A whole game, every seat choosing at random (seeded); with `kept_seat`, a replay's, that
    seat keeping its hands of the deal of seed + 1 (docs/engine.md, "The deal")."""
    kept = None if kept_seat is None else {kept_seat: tuple(d[kept_seat] for d in deal_rounds(players, seed + 1))}
    game = Game(players, seed, kept=kept)
    rng = random.Random(seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(game.to_move, actions[rng.randrange(len(actions))])
    return record_of(game)


def finished_detail(
    record: GameRecord, forfeit: int | None = None, voided: tuple[VoidedAttempt, ...] = ()
) -> GameDetail:
    """`record` as the store shows a finished game of tournament "cup", with `forfeit` the seat that timed out."""
    names = SEATS[: record.players]
    lost = [s == forfeit for s in range(record.players)]
    ranks = final_ranks(record.totals, lost)
    results = tuple(
        SeatResult(
            s,
            bot,
            record.totals[s],
            ranks[s],
            *(("timeout: no legal answer in time", ForfeitCause.TIMEOUT, PolicyDecision.FORFEIT) if lost[s] else ()),
        )
        for s, bot in enumerate(names)
    )
    info = GameInfo(
        id=12,
        tournament="cup",
        table_index=1,
        game_index=0,
        seed=record.seed,
        status=GameStatus.FINISHED,
        attempts=1 + len(voided),
        seats=names,
        started_at=STARTED,
        finished_at=STARTED,
        end_reasons=tuple(r.reason.name for r in record.results),
        results=results,
    )
    return GameDetail(info, record, voided)


def voided_attempt(record: GameRecord) -> VoidedAttempt:
    """An attempt voided because bob disconnected."""
    seats = tuple(
        SeatResult(s, bot, record.totals[s], 1)
        if bot != "bob"
        else SeatResult(s, bot, record.totals[s], 3, "disconnected: gone", ForfeitCause.DISCONNECT, PolicyDecision.VOID)
        for s, bot in enumerate(SEATS[: record.players])
    )
    return VoidedAttempt(1, STARTED, GameResult(record, seats), 99)


def tournament(**changes: object) -> Tournament:
    values: dict[str, object] = dict(
        id=1,
        name="cup",
        table_size=3,
        games_per_table=2,
        starts_at=STARTED,
        move_limit_ms=1500,
        concurrency=2,
        seed=None,
        status=TournamentStatus.RUNNING,
        failure_policy=FailurePolicy(on_timeout=FailureAction.VOID, max_replays=4),
        created_at=STARTED,
        started_at=STARTED,
        finished_at=None,
        entrants=SEATS,
        games=GameCounts(scheduled=3, running=1, finished=2),
        seed_commitment="c0ffee",
    )
    values.update(changes)
    return Tournament(**values)  # type: ignore[arg-type]
