"""Figures over a tournament's committed games kept as running tallies: each new committed game is
added to them, so a tournament committing game after game costs its pages the few games since
the last look, not a pass over all of its 10,000. Two are kept: the crosstable (the pairs of
seats of each game) and a schedule's progress (the finished games of each table).

A committed game gets the next `commit_seq` and never changes after (arena.storage.store.games),
so a scope's tally is its sums over the games committed up to the highest `commit_seq` it has
seen. Each look reads only the games above that (by the commit order's index alone), and checks
that the tally's game count is the scope's count of finished games (from an index alone): if
anything else ever changed, or a game was committed between the two reads, the scope is counted
again from nothing: slower, never wrong.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import sqlalchemy as sa
from cachetools import LRUCache
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from arena.ratings.head_to_head import Crosstable, PairRecord, sign_test
from arena.records import GameStatus
from arena.storage.tables import BotRow, GameRow, SeatResultRow

S = TypeVar("S")
R = TypeVar("R")

KEPT_SCOPES = 64
"""Tallies kept of each kind (the global one and one per tournament), the least recently read dropped first."""

Games = sa.ColumnElement[bool]
"""A condition on GameRow: the games a tally adds."""


@dataclass(slots=True)
class _Kept(Generic[S]):
    sums: S
    upto: int = 0
    """The highest `commit_seq` counted."""
    games: int = 0


class RunningTally(Generic[S]):
    """Sums `S` over each scope's committed games: `fresh()` makes empty ones, `add(session, sums,
    games)` adds the games meeting a condition to them."""

    def __init__(self, fresh: Callable[[], S], add: Callable[[Session, S, Games], None]) -> None:
        self._fresh = fresh
        self._add = add
        self._kept: LRUCache[int | None, _Kept[S]] = LRUCache(KEPT_SCOPES)
        self._lock = threading.Lock()

    def read(self, session: Session, tournament_id: int | None, view: Callable[[S], R]) -> R:
        """`view` of the sums over every game committed in the tournament `tournament_id` (None:
        in all), brought up to date first."""
        scope = col(GameRow.status) == GameStatus.FINISHED
        if tournament_id is not None:
            scope = sa.and_(scope, col(GameRow.tournament_id) == tournament_id)
        with self._lock:
            kept = self._kept.pop(tournament_id, None)
            top = session.execute(sa.select(sa.func.coalesce(sa.func.max(col(GameRow.commit_seq)), 0))).scalar_one()
            new = None if kept is None or not kept.upto else _committed(session, tournament_id, kept.upto, top)
            if kept is None or new is None or kept.games + len(new) != _count(session, scope):
                counted = sa.and_(scope, col(GameRow.commit_seq) <= top)
                kept = _Kept(self._fresh(), games=_count(session, counted))
                self._add(session, kept.sums, counted)
            elif new:
                kept.games += len(new)
                self._add(session, kept.sums, col(GameRow.id).in_(new))
            kept.upto = top
            self._kept[tournament_id] = kept
            return view(kept.sums)


def _committed(session: Session, tournament_id: int | None, after: int, upto: int) -> list[int]:
    """The ids of the games of a scope committed after `after`, up to `upto`: read by the commit
    order's index alone and sorted into the scope here, so that no database plans the read over
    the scope's index instead (SQLite did: 60 ms at 10,000 games, for none)."""
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


def _count(session: Session, games: Games) -> int:
    counted = session.execute(sa.select(sa.func.count()).where(games)).scalar_one()
    return int(counted)


# -- the crosstable ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Pair:
    """Two bots' sums over their shared games, from the side of the lower bot id."""

    games: int = 0
    above: int = 0
    below: int = 0
    difference: int = 0


@dataclass(slots=True)
class PairSums:
    """A crosstable's tally: by (lower bot id, higher bot id)."""

    pairs: dict[tuple[int, int], _Pair] = field(default_factory=dict)


def add_pairs(session: Session, sums: PairSums, games: Games) -> None:
    """Add the pairs of seats of `games`: one row per pair of bots, summed by the database."""
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
        pair = sums.pairs.setdefault((bot_a, bot_b), _Pair())
        pair.games += shared
        pair.above += up
        pair.below += down
        pair.difference += difference


def crosstable_of(session: Session, sums: PairSums) -> Crosstable:
    """The crosstable of a tally, as `arena.storage.store.head_to_head` gives it."""
    names = {bot_id: name for bot_id, name in session.execute(sa.select(col(BotRow.id), col(BotRow.name)))}
    records = []
    for (bot_a, bot_b), p in sums.pairs.items():
        ties, mean = p.games - p.above - p.below, p.difference / p.games
        record = PairRecord(
            names[bot_a], names[bot_b], p.games, p.above, p.below, ties, mean, sign_test(p.above, p.below)
        )
        records.append(record if record.bot < record.other else record.flipped())
    return Crosstable(tuple(sorted(records, key=lambda r: (r.bot, r.other))))


def crosstable_tally() -> RunningTally[PairSums]:
    return RunningTally(PairSums, add_pairs)


# -- a schedule's progress ---------------------------------------------------------------------------


def add_finished(session: Session, sums: dict[int, int], games: Games) -> None:
    """Add `games` to the finished games of their tables (by scheduled table id)."""
    for table_id, finished in session.execute(
        sa.select(col(GameRow.table_id), sa.func.count()).where(games).group_by(col(GameRow.table_id))
    ):
        sums[table_id] = sums.get(table_id, 0) + finished


def finished_tally() -> RunningTally[dict[int, int]]:
    return RunningTally(dict, add_finished)
