"""The read layer beside the store (`arena.storage.store`): the aggregates the web pages and their
JSON API show besides the store's public read models (a bot's games and rating history, forfeits,
a schedule's progress per table), each one SQL query that never selects a seed or an unfinished
game's record. They live with the store, not the web, so that every query on the tables is in
`arena.storage` and the web runs none of its own (a contract of `lint-imports`).

`CachedReads` runs them off the event loop (`arena.storage.async_store.AsyncStore`) and keeps the figures
that change only when a game is committed (ratings, crosstables, forfeits, schedules' progress)
until one is: `commit_version` tells, from indexes alone, so a ladder or tournament page of 10,000
games costs a few indexed reads, not a pass over every game.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from cachetools import LRUCache
from sqlmodel import Session, col, select

from arena.errors import UnknownBot, UnknownTournament
from arena.names import shown
from arena.ratings.head_to_head import Crosstable
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameStatus, Tournament
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    EntryRow,
    GameRow,
    RatingHistoryRow,
    ScheduledTableRow,
    SeatResultRow,
    TournamentRow,
    VoidedAttemptRow,
)
from arena.storage.tallies import Games, PairSums, RunningTally, crosstable_of, crosstable_tally, finished_tally

T = TypeVar("T")

RECENT_GAMES = 10
"""Games a bot's page lists (its latest finished ones)."""
MAX_FORFEITS = 500
"""Forfeits one page or answer lists at most (the latest); `Forfeits.total` tells how many there are."""


@dataclass(frozen=True, slots=True)
class SeatLine:
    """One seat of a finished game as a list shows it."""

    bot: str
    points: int
    rank: int
    forfeit_cause: str | None


@dataclass(frozen=True, slots=True)
class GameLine:
    """A game as a list shows it: `results` (seat order) and `finished_at` only once finished."""

    id: int
    tournament: str
    table_index: int
    game_index: int
    status: GameStatus
    seats: tuple[str, ...]
    finished_at: datetime | None
    results: tuple[SeatLine, ...]


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A forfeited seat of a finished game: of the game that counted (`attempt` None) or of one of
    its attempts the failure policy voided (`attempt` N)."""

    game_id: int
    tournament: str
    bot: str
    seat: int
    cause: str
    reason: str
    decision: str | None
    attempt: int | None


@dataclass(frozen=True, slots=True)
class Forfeits:
    """The latest forfeits of a scope (at most MAX_FORFEITS) and how many it has in all."""

    items: tuple[Forfeit, ...]
    total: int


ForfeitTally = RunningTally[list[Forfeit]]
"""A running tally of a scope's forfeits (`add_forfeits`)."""
PairTally = RunningTally[PairSums]
"""A running tally of a scope's crosstable (`arena.storage.tallies.add_pairs`)."""


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A bot's rating after one of its games, in one scope."""

    game_id: int
    tournament: str
    finished_at: datetime | None
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class TableProgress:
    """One table of a schedule: who sits where, and how many of its games are finished."""

    table_index: int
    seats: tuple[str, ...]
    finished: int
    games: int


@dataclass(frozen=True, slots=True)
class BotStandings:
    """A bot, its row of the global ladder and its rows of the tournaments it entered (latest first)."""

    bot: BotRecord
    ladder: RatingRow | None
    tournaments: tuple[tuple[str, RatingRow], ...]


@dataclass(frozen=True, slots=True)
class TournamentView:
    """Everything a tournament's page shows."""

    tournament: Tournament
    rows: list[RatingRow]
    crosstable: Crosstable
    forfeits: Forfeits
    tables: list[TableProgress]


# -- queries (each takes the session, like arena.store) ----------------------------------------------


def _scope(session: Session, tournament: str | None) -> Any:
    """The condition on GameRow of a scope: every game, or one tournament's."""
    return sa.true() if tournament is None else col(GameRow.tournament_id) == _tournament_id(session, tournament)


def games(
    *,
    session: Session,
    tournament: str | None = None,
    bot: str | None = None,
    status: GameStatus | None = None,
    after: int | None = None,
    limit: int = 100,
    latest_first: bool = False,
) -> list[GameLine]:
    """Games in play order (or the latest finished first), of one tournament and/or bot and/or
    state, at most `limit` after the game with id `after`."""
    query = (
        sa.select(
            col(GameRow.id),
            col(TournamentRow.name),
            col(GameRow.table_index),
            col(GameRow.game_index),
            col(GameRow.status),
            col(GameRow.finished_at),
            col(ScheduledTableRow.seats),
        )
        .join(TournamentRow, col(GameRow.tournament_id) == col(TournamentRow.id))
        .join(ScheduledTableRow, col(GameRow.table_id) == col(ScheduledTableRow.id))
    )
    if tournament is not None:
        query = query.where(_scope(session, tournament))
    if bot is not None:
        query = query.where(col(GameRow.table_id).in_(_tables_of(session, bot)))
    if status is not None:
        query = query.where(col(GameRow.status) == status)
    if latest_first:
        query = query.where(col(GameRow.status) == GameStatus.FINISHED).order_by(col(GameRow.commit_seq).desc())
    else:
        query = query.order_by(col(GameRow.id))
        if after is not None:
            query = query.where(col(GameRow.id) > after)
    rows = session.execute(query.limit(limit)).all()
    names = _bot_names(session)
    finished = [row[0] for row in rows if row[4] is GameStatus.FINISHED]
    results: dict[int, list[SeatLine]] = {}
    for game_id, bot_id, points, rank, cause in session.execute(
        sa.select(
            col(SeatResultRow.game_id),
            col(SeatResultRow.bot_id),
            col(SeatResultRow.points),
            col(SeatResultRow.rank),
            col(SeatResultRow.forfeit_cause),
        )
        .where(col(SeatResultRow.game_id).in_(finished))
        .order_by(col(SeatResultRow.game_id), col(SeatResultRow.seat))
    ):
        results.setdefault(game_id, []).append(SeatLine(names[bot_id], points, rank, cause))
    return [
        GameLine(
            game_id,
            name,
            table,
            index,
            state,
            tuple(names[s] for s in seats),
            finished_at if state is GameStatus.FINISHED else None,
            tuple(results.get(game_id, ())),
        )
        for game_id, name, table, index, state, finished_at, seats in rows
    ]


def add_forfeits(session: Session, found: list[Forfeit], games: Games) -> None:
    """Add the forfeited seats of `games` (finished ones), and of their voided attempts, to `found`
    (a running tally of a scope's forfeits, `tallies`)."""
    names = _bot_names(session)
    counted = (
        sa.select(
            col(SeatResultRow.game_id),
            col(TournamentRow.name),
            col(SeatResultRow.bot_id),
            col(SeatResultRow.seat),
            col(SeatResultRow.forfeit_cause),
            col(SeatResultRow.forfeit),
            col(SeatResultRow.policy),
        )
        .join(GameRow, col(SeatResultRow.game_id) == col(GameRow.id))
        .join(TournamentRow, col(GameRow.tournament_id) == col(TournamentRow.id))
        .where(games, col(SeatResultRow.forfeit_cause).is_not(None))
    )
    found.extend(
        Forfeit(game_id, name, names[seated], seat, cause, reason, policy, None)
        for game_id, name, seated, seat, cause, reason, policy in session.execute(counted).all()
    )
    for game_id, name, attempt, seats in session.execute(
        sa.select(
            col(VoidedAttemptRow.game_id),
            col(TournamentRow.name),
            col(VoidedAttemptRow.attempt),
            col(VoidedAttemptRow.seats),
        )
        .join(GameRow, col(VoidedAttemptRow.game_id) == col(GameRow.id))
        .join(TournamentRow, col(GameRow.tournament_id) == col(TournamentRow.id))
        .where(games)
    ):
        found.extend(
            Forfeit(game_id, name, seat["bot"], seat["seat"], seat["cause"], seat["forfeit"], seat["policy"], attempt)
            for seat in seats
            if seat["cause"] is not None
        )


def forfeits(
    *, session: Session, tournament: str | None = None, bot: str | None = None, kept: ForfeitTally | None = None
) -> Forfeits:
    """The forfeited seats of finished games (and of their voided attempts) in `tournament` (None:
    every one), of every bot or of `bot`, latest first: from the running tally `kept` (brought up
    to date), or from one pass over the scope's games."""
    if bot is not None:
        _bot(session, bot)
    scope = None if tournament is None else _tournament_id(session, tournament)
    tally = RunningTally(list, add_forfeits) if kept is None else kept
    return tally.read(session, scope, lambda found: latest_forfeits(found, bot))


def crosstable(*, session: Session, tournament: str | None = None, kept: PairTally | None = None) -> Crosstable:
    """Head-to-head in `tournament` (None: every game), as `arena.storage.store.head_to_head`
    counts it: from the running tally `kept` (brought up to date), or from one pass."""
    scope = None if tournament is None else _tournament_id(session, tournament)
    return (kept or crosstable_tally()).read(session, scope, lambda sums: crosstable_of(session, sums))


def latest_forfeits(found: list[Forfeit], bot: str | None) -> Forfeits:
    """The latest MAX_FORFEITS of `found` (all of them, or `bot`'s), latest first, and how many."""
    mine = sorted(
        (f for f in found if bot is None or f.bot == bot),
        key=lambda f: (f.game_id, f.attempt is None, f.attempt or 0, f.seat),
        reverse=True,
    )
    return Forfeits(tuple(mine[:MAX_FORFEITS]), len(mine))


def rating_history(*, session: Session, bot: str, tournament: str | None = None) -> list[HistoryPoint]:
    """A bot's rating after each of its games, in the order they were rated: on the global ladder,
    or in one tournament."""
    bot_id = _bot(session, bot).id
    scope = (
        col(RatingHistoryRow.tournament_id).is_(None)
        if tournament is None
        else col(RatingHistoryRow.tournament_id) == _tournament_id(session, tournament)
    )
    rows = session.execute(
        sa.select(
            col(RatingHistoryRow.game_id),
            col(TournamentRow.name),
            col(GameRow.finished_at),
            col(RatingHistoryRow.mu_after),
            col(RatingHistoryRow.sigma_after),
        )
        .join(GameRow, col(RatingHistoryRow.game_id) == col(GameRow.id))
        .join(TournamentRow, col(GameRow.tournament_id) == col(TournamentRow.id))
        .where(col(RatingHistoryRow.bot_id) == bot_id, scope, col(GameRow.status) == GameStatus.FINISHED)
        .order_by(col(GameRow.commit_seq))
    ).all()
    return [HistoryPoint(*row) for row in rows]


def bot_standings(*, session: Session, bot: str) -> BotStandings:
    """A bot with its ladder row and its row of each tournament it entered."""
    found = _bot(session, bot)
    ladder = next((r for r in store.rating_table(session=session) if r.bot == bot), None)
    entered = (
        session.execute(
            sa.select(col(TournamentRow.name))
            .join(EntryRow, col(EntryRow.tournament_id) == col(TournamentRow.id))
            .join(
                BotRatingRow,
                sa.and_(col(BotRatingRow.tournament_id) == col(TournamentRow.id), col(BotRatingRow.bot_id) == found.id),
            )
            .where(col(EntryRow.bot_id) == found.id)
            .order_by(col(TournamentRow.starts_at).desc(), col(TournamentRow.id).desc())
        )
        .scalars()
        .all()
    )
    rows = []
    for name in entered:
        row = next((r for r in store.rating_table(session=session, tournament=name) if r.bot == bot), None)
        if row is not None:
            rows.append((name, row))
    return BotStandings(found, ladder, tuple(rows))


def _bot(session: Session, name: str) -> BotRecord:
    row = session.exec(select(BotRow).where(col(BotRow.name) == name)).first()
    if row is None or row.id is None:
        raise UnknownBot(f"there is no bot named {shown(name)}")
    return BotRecord(row.id, row.name, row.created_at)


def _tournament_id(session: Session, name: str) -> int:
    found = session.exec(select(TournamentRow.id).where(col(TournamentRow.name) == name)).first()
    if found is None:
        raise UnknownTournament(f"there is no tournament named {shown(name)}")
    return found


def _bot_names(session: Session) -> dict[int, str]:
    return {bot_id: name for bot_id, name in session.execute(sa.select(col(BotRow.id), col(BotRow.name)))}


def _tables_of(session: Session, bot: str) -> list[int]:
    """The ids of the scheduled tables `bot` sits at."""
    bot_id = _bot(session, bot).id
    return [
        table_id
        for table_id, seats in session.execute(
            sa.select(col(ScheduledTableRow.id), col(ScheduledTableRow.seats))
            .join(EntryRow, col(EntryRow.tournament_id) == col(ScheduledTableRow.tournament_id))
            .where(col(EntryRow.bot_id) == bot_id)
        )
        if bot_id in seats
    ]


# -- the async face, with the cache ------------------------------------------------------------------

CACHED_READS = 256
"""Answers `CachedReads.cached` keeps, the least recently used dropped first."""


def commit_version(*, session: Session) -> tuple[Any, ...]:
    """A value that changes whenever what the cached reads show may change: a game committed (the
    latest commit), a schedule made (the latest game), a bot registered, a bot entered. Each part
    is read from an index, so asking costs the same at 10 or 10,000 games."""
    latest = [
        select(sa.func.max(GameRow.commit_seq)).scalar_subquery(),
        select(sa.func.max(GameRow.id)).scalar_subquery(),
        select(sa.func.max(BotRow.id)).scalar_subquery(),
        select(sa.func.count()).select_from(EntryRow).scalar_subquery(),
    ]
    return tuple(session.exec(select(*latest)).one())


def play_version(*, session: Session) -> tuple[Any, ...]:
    """`commit_version`, and also how many games are being played, how many of those wait to be
    counted, and how many tournaments there are, started and ended (finished or failed): what a
    tournament's progress, facts or seed show changes with one of them (a stop-rule tournament
    finishes after its last commit). The running games are few and found by the status index, and
    the tournaments are few, so this too costs the same at any number of games."""
    playing = session.execute(
        sa.select(sa.func.count(), sa.func.count(col(GameRow.finished_at))).where(
            col(GameRow.status) == GameStatus.RUNNING
        )
    ).one()
    tournaments = session.execute(
        sa.select(
            sa.func.count(),
            sa.func.count(col(TournamentRow.started_at)),
            sa.func.count(col(TournamentRow.finished_at)),
            sa.func.count(col(TournamentRow.failure)),
        )
    ).one()
    return (*commit_version(session=session), *playing, *tournaments)


def tournament_version(*, session: Session, tournament: str) -> tuple[Any, ...]:
    """`play_version` of one tournament: its state, entries, and its games by state (played and
    waiting to be counted apart): what its reads show changes only with one of them, so another
    tournament's commits leave them kept. From the (tournament, status) index, and the running
    games; UnknownTournament if there is no such tournament."""
    row = session.execute(
        sa.select(
            col(TournamentRow.id), col(TournamentRow.status), col(TournamentRow.finished_at), col(TournamentRow.failure)
        ).where(col(TournamentRow.name) == tournament)
    ).first()
    if row is None:
        raise UnknownTournament(f"there is no tournament named {shown(tournament)}")
    games = col(GameRow.tournament_id) == row[0]
    by_status = session.execute(
        sa.select(col(GameRow.status), sa.func.count()).where(games).group_by(col(GameRow.status))
    ).all()
    played = session.execute(
        sa.select(sa.func.count()).where(
            games, col(GameRow.status) == GameStatus.RUNNING, col(GameRow.finished_at).is_not(None)
        )
    ).scalar_one()
    entries = session.execute(
        sa.select(sa.func.count()).select_from(EntryRow).where(col(EntryRow.tournament_id) == row[0])
    ).scalar_one()
    return (*row, tuple(sorted((s.value, n) for s, n in by_status)), played, entries)


class CachedReads:
    """The queries above and the store's read models, run off the loop. `cached` keeps what only
    changes with the committed games (ratings, crosstables, forfeits, histories) until
    `commit_version` changes, so a page of a 10,000-game tournament is a few indexed reads; a read
    of one tournament (`tournament=` given) is kept until that tournament changes
    (`tournament_version`), however many games the others commit."""

    def __init__(self, db: AsyncStore) -> None:
        self._db = db
        self._cache: LRUCache[Hashable, tuple[tuple[Any, ...], Any]] = LRUCache(CACHED_READS)
        self._lock = threading.Lock()
        self._pairs = crosstable_tally()
        self._finished = finished_tally()
        self._forfeits: ForfeitTally = RunningTally(list, add_forfeits)
        self._table_sizes: LRUCache[int, tuple[int, dict[int, int]]] = LRUCache(CACHED_READS)

    async def __call__(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """`fn(session=..., **kwargs)` in a worker thread."""
        return await self._db(fn, **kwargs)

    async def cached(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """`fn(session=..., **kwargs)`, or its last answer if no game was committed (nor schedule
        made, bot registered or entered) since (`commit_version`). Only for reads of committed games."""
        return await self._db(self._cached, fn=fn, version=commit_version, kwargs=kwargs)

    async def crosstable(self, tournament: str | None = None) -> Crosstable:
        """Head-to-head in `tournament` (None: every game), `cached`, and counted from a running
        tally when a game was committed (`tallies`): the new games only."""
        return await self.cached(self._crosstable, tournament=tournament)

    def _crosstable(self, *, session: Session, tournament: str | None) -> Crosstable:
        return crosstable(session=session, tournament=tournament, kept=self._pairs)

    async def forfeits(self, tournament: str | None = None, bot: str | None = None) -> Forfeits:
        """The forfeited seats of finished games (and of their voided attempts) in `tournament`
        (None: every one), of every bot or of `bot`, latest first: `cached`, and from a running
        tally of the scope's forfeits (`tallies`) when a game was committed."""
        return await self.cached(self._latest_forfeits, tournament=tournament, bot=bot)

    def _latest_forfeits(self, *, session: Session, tournament: str | None, bot: str | None) -> Forfeits:
        return forfeits(session=session, tournament=tournament, bot=bot, kept=self._forfeits)

    async def table_progress(self, tournament: str) -> list[TableProgress]:
        """Each table of a started tournament's schedule with its finished and scheduled games,
        `cached`; the finished ones from a running tally (`tallies`), the scheduled ones counted
        again only when the tournament's number of games changes (a stop rule's next round)."""
        return await self.cached(self._table_progress, tournament=tournament)

    def _table_progress(self, *, session: Session, tournament: str) -> list[TableProgress]:
        tournament_id = _tournament_id(session, tournament)
        finished = self._finished.read(session, tournament_id, dict)
        of_tournament = col(GameRow.tournament_id) == tournament_id
        total = session.execute(sa.select(sa.func.count()).where(of_tournament)).scalar_one()
        with self._lock:
            sizes = self._table_sizes.pop(tournament_id, None)
        if sizes is None or sizes[0] != total:
            counted = sa.select(col(GameRow.table_id), sa.func.count()).where(of_tournament)
            rows = session.execute(counted.group_by(col(GameRow.table_id)))
            sizes = (total, {table_id: games for table_id, games in rows})
        with self._lock:
            self._table_sizes[tournament_id] = sizes
        names = _bot_names(session)
        return [
            TableProgress(index, tuple(names[s] for s in seats), finished.get(table_id, 0), sizes[1].get(table_id, 0))
            for table_id, index, seats in session.execute(
                sa.select(col(ScheduledTableRow.id), col(ScheduledTableRow.table_index), col(ScheduledTableRow.seats))
                .where(col(ScheduledTableRow.tournament_id) == tournament_id)
                .order_by(col(ScheduledTableRow.table_index))
            )
        ]

    async def tournament_view(self, tournament: str) -> TournamentView:
        """What a tournament's page shows, read in one session and kept until the tournament
        changes (`tournament_version`, asked once for all of it): its facts, its rating table, and
        its crosstable, forfeits and schedule's progress from their running tallies. One read
        rather than one per part: each would open its session and ask the version again, which
        cost more than the new games' sums (profiled at 10,000 games, a commit between loads)."""
        return await self._db(
            self._cached, fn=self._tournament_view, version=play_version, kwargs={"tournament": tournament}
        )

    def _tournament_view(self, *, session: Session, tournament: str) -> TournamentView:
        return TournamentView(
            store.show_tournament(session=session, tournament=tournament),
            store.rating_table(session=session, tournament=tournament),
            self._crosstable(session=session, tournament=tournament),
            self._latest_forfeits(session=session, tournament=tournament, bot=None),
            self._table_progress(session=session, tournament=tournament),
        )

    async def live(self, fn: Callable[..., T], /, **kwargs: Any) -> T:
        """`cached`, also read again whenever a game starts, finishes playing or a tournament
        fails (`play_version`): for what shows a tournament's progress."""
        return await self._db(self._cached, fn=fn, version=play_version, kwargs=kwargs)

    def _cached(
        self, *, session: Session, fn: Callable[..., T], version: Callable[..., tuple[Any, ...]], kwargs: dict[str, Any]
    ) -> T:
        key = (fn.__module__, fn.__qualname__, version.__qualname__, tuple(sorted(kwargs.items())))
        scope = kwargs.get("tournament")
        now = version(session=session) if scope is None else tournament_version(session=session, tournament=scope)
        with self._lock:
            held = self._cache.get(key)
            if held is not None and held[0] == now:
                value: T = held[1]
                return value
        value = fn(session=session, **kwargs)
        with self._lock:
            self._cache[key] = (now, value)
        return value
