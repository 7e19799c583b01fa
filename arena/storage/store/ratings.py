"""Ratings as stored: the tables of a tournament and of the ladder, the games they are computed from,
the crosstable, and their recomputation from the records alone."""

from __future__ import annotations

from itertools import groupby

import sqlalchemy as sa
from sqlmodel import Session, col, select

from arena.errors import (
    InvalidBootstrap,
)
from arena.play.results import final_ranks
from arena.ratings.head_to_head import Crosstable, crosstable
from arena.ratings.played_games import PlayedGame
from arena.ratings.rank_confidence import RankStatistics, max_resamples, with_confidence
from arena.ratings.table import RatingRow, Standing, apply_game, arena_env
from arena.ratings.table import rating_table as _table
from arena.records import GameStatus
from arena.storage.store.common import bot_names, stored, tournament_row
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    GameRow,
    ScheduledTableRow,
    SeatResultRow,
)
from sdk.engine import GameRecord


def rating_table(
    *,
    session: Session,
    tournament: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    bootstrap: int = 0,
    statistics: RankStatistics | None = None,
) -> list[RatingRow]:
    """The stored rating table of a tournament, or of the global ladder (every registered bot):
    all of it, or `limit` rows from `offset` (ranks are the whole table's). Each row carries its
    rank interval and confidence (`arena.ratings.rank_confidence`), and with `bootstrap` resamples its
    bootstrap confidence, computed over the whole table; InvalidBootstrap if that is too much. A
    reader that asks again and again passes its `statistics`, which remember the figures."""
    statistics = statistics or RankStatistics()
    scope_id = None if tournament is None else tournament_row(session, tournament).id
    rows = session.exec(
        select(BotRatingRow, BotRow.name)
        .join(BotRow, col(BotRatingRow.bot_id) == BotRow.id)
        .where(
            col(BotRatingRow.tournament_id).is_(None)
            if scope_id is None
            else col(BotRatingRow.tournament_id) == scope_id
        )
    ).all()
    table = statistics.with_confidence(_table(_standing(row, name) for row, name in rows))
    if bootstrap:
        games = played_games(session=session, tournament=tournament)
        allowed = max_resamples(len(games))
        if not 0 < bootstrap <= allowed:
            raise InvalidBootstrap(
                f"a bootstrap takes 1 to {allowed} resamples over this table's {len(games)} games, not {bootstrap}"
                if allowed
                else f"this table's {len(games)} games are too many to bootstrap in one call"
            )
        table = statistics.with_bootstrap(table, games, resamples=bootstrap)
    return table[offset:] if limit is None else table[offset : offset + limit]


def played_games(*, session: Session, tournament: str | None = None) -> list[PlayedGame]:
    """Every finished game of a tournament, or of all of them (the ladder's), in the order their
    ratings were applied: what the bootstrap and the crosstable read."""
    names = bot_names(session)
    scope = sa.true() if tournament is None else col(GameRow.tournament_id) == tournament_row(session, tournament).id
    seats = session.exec(
        select(SeatResultRow.game_id, SeatResultRow.bot_id, SeatResultRow.points, SeatResultRow.rank)
        .join(GameRow, col(SeatResultRow.game_id) == GameRow.id)
        .where(col(GameRow.status) == GameStatus.FINISHED, scope)
        .order_by(col(GameRow.commit_seq), col(SeatResultRow.seat))
    ).all()
    return [
        PlayedGame(
            *(
                tuple(column)
                for column in zip(*((names[bot], points, rank) for _, bot, points, rank in game), strict=True)
            )
        )
        for _, game in groupby(seats, key=lambda seat: seat[0])
    ]


def head_to_head(*, session: Session, tournament: str | None = None) -> Crosstable:
    """The head-to-head record of every pair of bots that shared a game of the tournament (or of
    any tournament, for the ladder)."""
    return crosstable(played_games(session=session, tournament=tournament))


def recompute_ratings(*, session: Session, tournament: str | None = None) -> list[RatingRow]:
    """The rating table rebuilt from the stored game records alone, in the order they committed.

    Points come from each record's totals, forfeits from the stored seat results, and ranks are
    derived again from them; nothing of the stored ratings is read. A tournament's bots are those
    of its stored schedule (none before it starts), the ladder's every registered bot. Equal to
    `rating_table` unless the database was tampered with.
    """
    names = bot_names(session)
    if tournament is None:
        bots = list(names.values())
        scope_filter: sa.ColumnElement[bool] = sa.true()
    else:
        row = tournament_row(session, tournament)
        tables = session.exec(select(ScheduledTableRow.seats).where(col(ScheduledTableRow.tournament_id) == row.id))
        bots = sorted({names[b] for seats in tables for b in seats})
        scope_filter = col(GameRow.tournament_id) == row.id
    env = arena_env()
    standings = {name: Standing(name, env.mu, env.sigma) for name in bots}
    games = session.exec(
        select(GameRow.id, GameRow.record, ScheduledTableRow.seats)
        .join(ScheduledTableRow, col(GameRow.table_id) == ScheduledTableRow.id)
        .where(col(GameRow.status) == GameStatus.FINISHED, scope_filter)
        .order_by(col(GameRow.commit_seq))
    ).all()
    forfeits: dict[int, set[int]] = {}
    for forfeit_game, seat in session.exec(
        select(SeatResultRow.game_id, SeatResultRow.seat)
        .join(GameRow, col(SeatResultRow.game_id) == GameRow.id)
        .where(
            col(GameRow.status) == GameStatus.FINISHED,
            scope_filter,
            col(SeatResultRow.forfeit).is_not(None),
        )
    ):
        forfeits.setdefault(forfeit_game, set()).add(seat)
    for game_id, record_json, seat_ids in games:
        totals = GameRecord.from_json(stored(record_json, "record of a finished game")).totals
        seated = [names[b] for b in seat_ids]
        lost = forfeits.get(stored(game_id, "game id"), set())
        game_ranks = final_ranks(totals, [s in lost for s in range(len(seated))])
        before = {name: standings[name] for name in seated}
        after = apply_game(
            env, before, dict(zip(seated, totals, strict=True)), dict(zip(seated, game_ranks, strict=True))
        )
        standings.update(after)
    return with_confidence(_table(standings.values()))


def _standing(row: BotRatingRow, name: str) -> Standing:
    return Standing(name, row.mu, row.sigma, row.games, row.wins, row.total_points, row.total_placing)
