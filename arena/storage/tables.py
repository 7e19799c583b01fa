"""The database tables (SQLModel). Only arena.storage.store reads and writes them; callers get domain types.

Times are stored as naive UTC and come back UTC-aware (`UTCDateTime`), the same on SQLite and
PostgreSQL. Statuses are stored as short strings, not native enums, so the schema is identical on
both databases. A rating row with `tournament_id` NULL belongs to the global ladder.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel

from arena.records import GameStatus, TournamentStatus

SCHEMA_VERSION = 7
"""The schema version of these tables: bump it with a new revision in `arena/storage/migrations` (whose
docstring says how) whenever they change; `arena.storage.database` refuses a database of another version."""


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime in a plain (naive) column; naive input is refused."""

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("datetimes stored by the arena must be timezone-aware")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def table_of(row: type[SQLModel]) -> sa.Table:
    """The Core table of a table class, for statements written in SQLAlchemy Core: SQLModel sets
    `__table__` on every `table=True` class but does not declare it, so it is checked here."""
    table = getattr(row, "__table__", None)
    if not isinstance(table, sa.Table):
        raise TypeError(f"{row.__name__} is not a table class")
    return table


def _status(enum: type[StrEnum]) -> sa.Enum:
    return sa.Enum(enum, native_enum=False, length=16, values_callable=lambda e: [m.value for m in e])


class SchemaInfo(SQLModel, table=True):
    """One row: the version of the schema the database was created with."""

    __tablename__ = "schema_info"

    id: int = Field(default=1, primary_key=True)
    version: int


class BotRow(SQLModel, table=True):
    """A registered bot. Only the SHA-256 of its token is kept, never the token."""

    __tablename__ = "bots"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(sa_type=UTCDateTime)


class AdminTokenRow(SQLModel, table=True):
    """The arena's admin token: at most one row, holding only its SHA-256 (`arena.storage.credentials`)."""

    __tablename__ = "admin_token"

    id: int = Field(default=1, primary_key=True)
    token_hash: str = Field(max_length=64)
    created_at: datetime = Field(sa_type=UTCDateTime)


class TournamentRow(SQLModel, table=True):
    """A tournament's format and state; `seed` determines its schedule and every deal. The seed is
    secret until the tournament finishes; `seed_commitment` (`arena.tournaments.fairness.commitment`), public
    from the start, is kept as it was published, and `seed_nonce` makes it reveal nothing."""

    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=64, unique=True)
    table_size: int
    games_per_table: int
    starts_at: datetime = Field(sa_type=UTCDateTime)
    move_limit_ms: int
    concurrency: int
    seed: int = Field(sa_type=sa.BigInteger)
    seed_nonce: str = Field(max_length=64)
    seed_commitment: str = Field(max_length=64)
    status: TournamentStatus = Field(sa_type=_status(TournamentStatus), index=True)
    settings: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    """The settings kept as one JSON object (`arena.storage.store.common.stored_settings`): the
    failure policy's, the stop rule (`stop_rule`) and the spectator delay (`spectator_delay_s`)."""
    rounds: int | None = None
    """None: a full round robin; N: the bounded format of N rounds (`arena.tournaments.schedule`)."""
    max_entrants: int
    entry_code_hash: str | None = Field(default=None, max_length=64)
    """SHA-256 of the entry code of an invite-only tournament, never the code."""
    failure: str | None = Field(default=None, sa_type=sa.Text)
    """Why a failed tournament stopped: one line."""
    created_at: datetime = Field(sa_type=UTCDateTime)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class EntryRow(SQLModel, table=True):
    """A bot entered in a tournament."""

    __tablename__ = "entries"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    bot_id: int = Field(foreign_key="bots.id", primary_key=True, index=True)
    entered_at: datetime = Field(sa_type=UTCDateTime)


class ScheduledTableRow(SQLModel, table=True):
    """One table of the stored schedule: `seats` lists bot ids in seat order."""

    __tablename__ = "scheduled_tables"
    __table_args__ = (sa.UniqueConstraint("tournament_id", "table_index"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    table_index: int
    seats: list[int] = Field(sa_type=sa.JSON)
    games_per_table: int


class GameRow(SQLModel, table=True):
    """One game of a scheduled table. `record` (the engine's JSON) is set when it finishes.

    `attempts` counts how often it was started: more than one means an earlier attempt was
    interrupted, or voided by the failure policy (`voided_attempts`), and the game replayed.
    `seed` is the deal seed of its latest attempt (`arena.tournaments.fairness.attempt_seed`). `commit_seq`
    orders finished games as their ratings were applied. `finished_at` is set when the game
    finishes playing: a running game with it waits for its commit (`arena.records.GameCounts.played`).
    """

    __tablename__ = "games"
    __table_args__ = (
        sa.UniqueConstraint("tournament_id", "table_index", "game_index"),
        sa.Index("ix_games_tournament_status", "tournament_id", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    table_id: int = Field(foreign_key="scheduled_tables.id")
    table_index: int
    game_index: int
    seed: int = Field(sa_type=sa.BigInteger)
    status: GameStatus = Field(sa_type=_status(GameStatus), index=True)
    attempts: int = 0
    record: str | None = Field(default=None, sa_type=sa.Text)
    end_reasons: list[str] | None = Field(default=None, sa_type=sa.JSON)
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    commit_seq: int | None = Field(default=None, index=True)
    lease_owner: str | None = Field(default=None, max_length=64)
    """In a cluster (`arena.storage.store.leases`), the node whose referee plays the running game;
    NULL in a single arena, which holds its database alone."""
    lease_token: str | None = Field(default=None, max_length=32)
    """The claim's random token: the node's writes of the game count only while it still matches."""
    lease_expires: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """Until when the claim holds (the database's clock) unless its node renews it; after that the
    game may be claimed again by any node, as an interrupted attempt."""


class ScheduleLeaseRow(SQLModel, table=True):
    """Who stores a running tournament's schedule in a cluster (`arena.storage.store.leases`): one
    node at a time, fenced by `epoch` (one more at every taking over), until `done`. A cluster node
    claims no game of a tournament before its row says done, so a tournament whose generating node
    died part way never finishes on part of its schedule."""

    __tablename__ = "schedule_leases"

    tournament_id: int = Field(foreign_key="tournaments.id", primary_key=True)
    owner: str = Field(max_length=64)
    epoch: int
    expires_at: datetime = Field(sa_type=UTCDateTime)
    done: bool = False


class SeatResultRow(SQLModel, table=True):
    """One seat of a finished game. `forfeit` is why the seat was forfeited, or NULL;
    `forfeit_cause` (an `arena.play.results.ForfeitCause` value) classifies it, and `policy` (an
    `arena.play.results.PolicyDecision` value) is what the tournament's failure policy did with it."""

    __tablename__ = "seat_results"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bots.id", index=True)
    points: int
    rank: int
    forfeit: str | None = Field(default=None, sa_type=sa.Text)
    forfeit_cause: str | None = Field(default=None, max_length=16)
    policy: str | None = Field(default=None, max_length=24)


class VoidedAttemptRow(SQLModel, table=True):
    """An attempt at a game that the failure policy voided: not rated, kept so the tournament can
    be re-rated under another policy. `seats` holds every seat's result in seat order, as JSON
    objects with `seat`, `bot`, `points`, `rank`, `forfeit`, `cause` and `policy`; `attempt` is
    the game's attempt number (`games.attempts` when it was voided) and `seed` its deal seed."""

    __tablename__ = "voided_attempts"
    __table_args__ = (sa.UniqueConstraint("game_id", "attempt"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    attempt: int
    seed: int = Field(sa_type=sa.BigInteger)
    record: str = Field(sa_type=sa.Text)
    seats: list[dict[str, Any]] = Field(sa_type=sa.JSON)
    voided_at: datetime = Field(sa_type=UTCDateTime)


class BotRatingRow(SQLModel, table=True):
    """A bot's current TrueSkill rating and tallies in one tournament, or globally (NULL)."""

    __tablename__ = "ratings"
    __table_args__ = (
        sa.UniqueConstraint("tournament_id", "bot_id"),
        sa.Index(
            "ux_ratings_global_bot",
            "bot_id",
            unique=True,
            sqlite_where=sa.text("tournament_id IS NULL"),
            postgresql_where=sa.text("tournament_id IS NULL"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id")
    bot_id: int = Field(foreign_key="bots.id")
    mu: float
    sigma: float
    games: int = 0
    wins: float = 0.0
    total_points: int = 0
    total_placing: int = 0


class RatingHistoryRow(SQLModel, table=True):
    """One bot's rating before and after one game, in one scope (tournament, or global: NULL)."""

    __tablename__ = "rating_history"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    bot_id: int = Field(foreign_key="bots.id", index=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournaments.id")
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


class CasualGameRow(SQLModel, table=True):
    """A finished casual game: a person against house bots or connected bots on the Play page.

    Apart from `games` on purpose: a casual game is in no tournament and its seats are not all
    registered bots, so no rating, ladder, crosstable or forfeit list can count it by mistake.
    `seats` holds each seat's result in seat order (`arena.play.results.SeatResult.to_json`),
    `seat_kinds` whose each seat was ("person", "house" or "bot"), `record` the engine's JSON.
    """

    __tablename__ = "casual_games"

    id: int | None = Field(default=None, primary_key=True)
    seed: int = Field(sa_type=sa.BigInteger)
    move_ms: int
    players: list[str] = Field(sa_type=sa.JSON)
    seat_kinds: list[str] = Field(sa_type=sa.JSON)
    seats: list[dict[str, Any]] = Field(sa_type=sa.JSON)
    end_reasons: list[str] = Field(sa_type=sa.JSON)
    record: str = Field(sa_type=sa.Text)
    started_at: datetime = Field(sa_type=UTCDateTime)
    finished_at: datetime = Field(sa_type=UTCDateTime, index=True)
