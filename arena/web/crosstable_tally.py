"""The crosstables kept as running tallies: each new committed game adds its pairs of seats, so a
tournament committing game after game costs the pages the few games since the last look, not a
pass over all of its 10,000.

A committed game gets the next `commit_seq` and never changes after (arena.storage.store.games),
so a scope's tally is its pair sums over the games committed up to the highest `commit_seq` it has
seen. Each look reads only the games above that, and checks that the tally's game count is the
scope's count of finished games: if anything else ever changed (or a game was committed between
the two reads), the scope is counted again from nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from arena.ratings.head_to_head import Crosstable, PairRecord, sign_test
from arena.records import GameStatus
from arena.storage.tables import BotRow, GameRow, SeatResultRow

KEPT_SCOPES = 64
"""Tallies kept (the global one and one per tournament), the least recently read dropped first."""


@dataclass(slots=True)
class _Pair:
    """Two bots' sums over their shared games, from the side of the lower bot id."""

    games: int = 0
    above: int = 0
    below: int = 0
    difference: int = 0


@dataclass(slots=True)
class _Tally:
    upto: int = 0
    """The highest `commit_seq` counted."""
    games: int = 0
    pairs: dict[tuple[int, int], _Pair] = field(default_factory=dict)


class CrosstableTally:
    """The crosstables of every tournament and of all games, each read as `crosstable`."""

    def __init__(self) -> None:
        self._tallies: OrderedDict[int | None, _Tally] = OrderedDict()
        self._lock = threading.Lock()

    def crosstable(self, *, session: Session, tournament_id: int | None = None) -> Crosstable:
        """Head-to-head in the tournament `tournament_id` (None: over every tournament) after every
        committed game, as `arena.storage.store.head_to_head` counts it."""
        scope = col(GameRow.status) == GameStatus.FINISHED
        if tournament_id is not None:
            scope = sa.and_(scope, col(GameRow.tournament_id) == tournament_id)
        with self._lock:
            tally = self._tallies.pop(tournament_id, None) or _Tally()
            top = session.execute(sa.select(sa.func.coalesce(sa.func.max(col(GameRow.commit_seq)), 0))).scalar_one()
            new = _committed(session, tournament_id, tally.upto, top) if tally.upto else None
            if new is None or tally.games + len(new) != _count(session, scope):
                tally = _Tally()
                counted = sa.and_(scope, col(GameRow.commit_seq) <= top)
                tally.games = _count(session, counted)
                _add(session, tally, counted)
            elif new:
                tally.games += len(new)
                _add(session, tally, col(GameRow.id).in_(new))
            tally.upto = top
            self._tallies[tournament_id] = tally
            while len(self._tallies) > KEPT_SCOPES:
                self._tallies.popitem(last=False)
            return _crosstable(session, tally)


def _committed(session: Session, tournament_id: int | None, after: int, upto: int) -> list[int]:
    """The ids of the games of a scope committed after `after`, up to `upto`: read by the commit
    order's index alone (the few games since the last look) and sorted into the scope here, so
    that no database plans the read over the scope's index instead."""
    rows = session.execute(
        sa.select(col(GameRow.id), col(GameRow.tournament_id), col(GameRow.status)).where(
            col(GameRow.commit_seq) > after, col(GameRow.commit_seq) <= upto
        )
    )
    return [
        game_id
        for game_id, of, status in rows
        if status is GameStatus.FINISHED and (tournament_id is None or of == tournament_id)
    ]


def _count(session: Session, games: sa.ColumnElement[bool]) -> int:
    """How many games meet the condition (a whole scope: from an index alone)."""
    counted = session.execute(sa.select(sa.func.count()).where(games)).scalar_one()
    return int(counted)


def _add(session: Session, tally: _Tally, games: sa.ColumnElement[bool]) -> None:
    """Add the pairs of seats of the games that meet the condition: one row per pair of bots,
    summed by the database."""
    a, b = aliased(SeatResultRow), aliased(SeatResultRow)
    above = sa.func.sum(sa.case((col(a.rank) < col(b.rank), 1), else_=0))
    below = sa.func.sum(sa.case((col(a.rank) > col(b.rank), 1), else_=0))
    rows = session.execute(
        sa.select(
            col(a.bot_id), col(b.bot_id), sa.func.count(), above, below, sa.func.sum(col(a.points) - col(b.points))
        )
        .select_from(a)
        .join(b, sa.and_(col(a.game_id) == col(b.game_id), col(a.bot_id) < col(b.bot_id)))
        .join(GameRow, col(GameRow.id) == col(a.game_id))
        .where(games)
        .group_by(col(a.bot_id), col(b.bot_id))
    ).all()
    for bot_a, bot_b, shared, up, down, difference in rows:
        pair = tally.pairs.setdefault((bot_a, bot_b), _Pair())
        pair.games += shared
        pair.above += up
        pair.below += down
        pair.difference += difference


def _crosstable(session: Session, tally: _Tally) -> Crosstable:
    names = {bot_id: name for bot_id, name in session.execute(sa.select(col(BotRow.id), col(BotRow.name)))}
    records = []
    for (bot_a, bot_b), p in tally.pairs.items():
        ties, mean = p.games - p.above - p.below, p.difference / p.games
        record = PairRecord(
            names[bot_a], names[bot_b], p.games, p.above, p.below, ties, mean, sign_test(p.above, p.below)
        )
        records.append(record if record.bot < record.other else record.flipped())
    return Crosstable(tuple(sorted(records, key=lambda r: (r.bot, r.other))))
