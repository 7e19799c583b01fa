"""The arena's read models: what the store returns and the CLI, the Arena service and the demo show.

Frozen dataclasses free of SQLModel and SQLAlchemy (`arena.storage.store` builds them from its rows), so
terminal views, replays and exports import no database code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from arena.play.results import GameResult, SeatResult
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.ratings.table import Rating
from arena.tournaments import entries as entry_rules
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.stop_rule import StopRule, Verdict
from sdk.engine import GameRecord, Kept


class TournamentStatus(StrEnum):
    """scheduled: entries open, waiting for its start; running: games being played; finished;
    failed: stopped by an error it cannot recover from (`TournamentRow.failure` says which)."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class GameStatus(StrEnum):
    """scheduled: waiting to be played (again, after an interruption); running; finished."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class BotRecord:
    """A registered bot, as the arena keeps it (not `sdk.BotRecord`, the class a bot program subclasses)."""

    id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Registration:
    """A new bot and its token: the only time the plaintext token is available."""

    bot: BotRecord
    token: str


@dataclass(frozen=True, slots=True)
class GameCounts:
    """How many of a tournament's games are in each state. `running` counts the games being
    played; `played` those that finished playing and wait for an earlier game of the schedule to
    be committed (`arena.tournaments.runner`): they count as `finished` once committed, and are played
    again if the arena stops first."""

    scheduled: int = 0
    running: int = 0
    finished: int = 0
    played: int = 0

    @property
    def total(self) -> int:
        return self.scheduled + self.running + self.played + self.finished


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's format, state, entrants (sorted by name) and progress.

    `seed` and `seed_nonce` are None until the tournament is finished: until then only
    `seed_commitment` is public (`arena.tournaments.fairness`), so no deal can be foreseen
    (docs/architecture.md, boundary 2). `reveal_seeds` gives them to the organiser earlier.
    """

    id: int
    name: str
    table_size: int
    games_per_table: int
    starts_at: datetime
    move_limit_ms: int
    concurrency: int
    seed: int | None
    status: TournamentStatus
    failure_policy: FailurePolicy
    """The stored policy, written out in full at creation (the defaults if none was stored)."""
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entrants: tuple[str, ...]
    games: GameCounts
    seed_commitment: str = ""
    seed_nonce: str | None = None
    failure: str | None = None
    """Why a FAILED tournament stopped."""
    max_entrants: int = entry_rules.MAX_ENTRANTS
    invite_only: bool = False
    """Entering needs the tournament's entry code."""
    rounds: int | None = None
    """None: a full round robin; N: N rounds of the bounded format."""
    stop_rule: StopRule | None = None
    """Set for a stop-rule tournament (`arena.tournaments.stop_rule`): it plays that schedule round after round."""
    stop: Verdict | None = None
    """A started stop-rule tournament's standing after its complete rounds (`show_tournament`
    only; None in lists)."""
    spectator_delay_s: int = DEFAULT_SPECTATOR_DELAY_S
    """How long after a move spectators of its live games see it (`arena.play.spectators`)."""


@dataclass(frozen=True, slots=True)
class GameToPlay:
    """What the referee needs to play one scheduled game: the bots by seat and the deal seed (of
    the attempt `mark_game_running` started; arena-internal, never a read call's)."""

    id: int
    tournament: str
    table_index: int
    game_index: int
    seed: int
    seats: tuple[str, ...]
    move_limit_ms: int
    voided: int = 0
    """How many of its attempts the failure policy voided so far (its `max_replays` caps them)."""
    kept: Kept = field(default_factory=dict)
    """The hands this attempt deals in advance (`arena.tournaments.fairness.kept_hands`)."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as listed; `results` (seat order) is empty and `seed` (the seed of the attempt
    that counted) None until the game is finished."""

    id: int
    tournament: str
    table_index: int
    game_index: int
    seed: int | None
    status: GameStatus
    attempts: int
    seats: tuple[str, ...]
    started_at: datetime | None
    finished_at: datetime | None
    end_reasons: tuple[str, ...]
    """Each round's `sdk.engine.EndReason` name."""
    results: tuple[SeatResult, ...]


@dataclass(frozen=True, slots=True)
class VoidedAttempt:
    """An attempt at a game voided by the failure policy: its record and every seat's result,
    the failing ones with their cause and the policy's decision, and its deal seed. Not rated."""

    attempt: int
    voided_at: datetime
    result: GameResult
    seed: int


@dataclass(frozen=True, slots=True)
class GameDetail:
    """A game with its full record (None until it is finished), for replays and export, and its
    attempts voided by the failure policy, oldest first (none shown until it is finished: each
    holds every hand it dealt)."""

    info: GameInfo
    record: GameRecord | None
    voided: tuple[VoidedAttempt, ...] = ()


@dataclass(frozen=True, slots=True)
class GameSeed:
    """The seed of one deal of a game: `attempt` 1 is its first, each voided attempt is followed
    by one dealt afresh (`arena.tournaments.fairness.attempt_seed`), but for the hands the failing
    seats keep (`arena.tournaments.fairness.kept_hands`)."""

    game_id: int
    table_index: int
    game_index: int
    attempt: int
    seed: int


@dataclass(frozen=True, slots=True)
class SeedReveal:
    """A tournament's secret seed, its commitment's nonce and every game attempt's seed: for the
    organiser only (`reveal_seeds`)."""

    tournament: str
    seed: int
    seed_nonce: str
    seed_commitment: str
    games: tuple[GameSeed, ...]
    """Every deal of every game so far: one, and one more after each voided attempt (the last
    of an unfinished game is the deal it is, or will be, played with)."""


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """One bot's rating change from one game; `tournament` None is the global ladder."""

    bot: str
    tournament: str | None
    before: Rating
    after: Rating
