"""What the JSON API answers, as the OpenAPI document describes it. Rating, crosstable and
stop-rule rows are the read models' own dataclasses; a tournament is copied field by field, so
no field is sent that the store's public read model does not fill (its seed and nonce only once
it is finished, `arena.fairness`), and nothing of an unfinished game is sent but its seats."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from arena.ratings.head_to_head import PairRecord
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameCounts, Tournament
from arena.storage.reads import BotStandings, Forfeit, GameLine, HistoryPoint, TableProgress
from arena.tournaments.stop_rule import StopRule, Verdict
from arena.web.formats import format_of


class Error(BaseModel):
    """Why a request failed: its HTTP status and a message a person can act on."""

    status: int
    message: str


class ErrorBody(BaseModel):
    error: Error


class RatingPage(BaseModel):
    """A page of a rating table (the ladder's or a tournament's), sorted as asked."""

    items: list[RatingRow]
    next_page_token: str | None


class CrosstableOut(BaseModel):
    """Every pair of bots that shared a finished game, once each (`bot` before `other` by name)."""

    pairs: list[PairRecord]


class Progress(BaseModel):
    """How many of a tournament's games are in each state, and in all."""

    counts: GameCounts
    total: int


class TournamentOut(BaseModel):
    """A tournament's format, state, entrants and progress."""

    name: str
    status: str
    format: str
    table_size: int
    games_per_table: int
    rounds: int | None
    move_limit_ms: int
    starts_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entrants: list[str]
    progress: Progress
    seed_commitment: str
    seed: int | None
    """Only once the tournament is finished (then anyone can check it against the commitment)."""
    seed_nonce: str | None
    failure: str | None
    invite_only: bool
    max_entrants: int
    stop_rule: StopRule | None
    stop: Verdict | None

    @classmethod
    def of(cls, t: Tournament) -> TournamentOut:
        return cls(
            name=t.name,
            status=t.status.value,
            format=format_of(t),
            table_size=t.table_size,
            games_per_table=t.games_per_table,
            rounds=t.rounds,
            move_limit_ms=t.move_limit_ms,
            starts_at=t.starts_at,
            started_at=t.started_at,
            finished_at=t.finished_at,
            entrants=list(t.entrants),
            progress=Progress(counts=t.games, total=t.games.total),
            seed_commitment=t.seed_commitment,
            seed=t.seed,
            seed_nonce=t.seed_nonce,
            failure=t.failure,
            invite_only=t.invite_only,
            max_entrants=t.max_entrants,
            stop_rule=t.stop_rule,
            stop=t.stop,
        )


class TournamentPage(BaseModel):
    items: list[TournamentOut]
    next_page_token: str | None


class BotPage(BaseModel):
    items: list[BotRecord]
    next_page_token: str | None


class GamePage(BaseModel):
    """Games in play order; a finished game's `results` are its seats' points and ranks."""

    items: list[GameLine]
    next_page_token: str | None


class ForfeitList(BaseModel):
    """The latest forfeits (at most `arena.storage.reads.MAX_FORFEITS`) and how many there are in all."""

    items: list[Forfeit]
    total: int


class ScheduleOut(BaseModel):
    """A started tournament's tables, each with its seats and how many of its games are finished."""

    tables: list[TableProgress]


class History(BaseModel):
    """A bot's rating after each of its games, in the order they were rated."""

    bot: str
    tournament: str | None
    items: list[HistoryPoint]


class BotOut(BaseModel):
    """A bot, its ladder row and its row of each tournament it played in (latest first)."""

    bot: BotRecord
    ladder: RatingRow | None
    tournaments: dict[str, RatingRow]

    @classmethod
    def of(cls, standings: BotStandings) -> BotOut:
        return cls(bot=standings.bot, ladder=standings.ladder, tournaments=dict(standings.tournaments))
