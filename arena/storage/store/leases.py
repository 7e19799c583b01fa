"""Leases: how the nodes of a cluster share one PostgreSQL database's games without a coordinator.

* **Games are claimed, not assigned.** A node with a free referee claims a game (`claim_game`):
  in one transaction it locks a window of the next claimable games with `SELECT ... FOR UPDATE
  SKIP LOCKED` (concurrent claimers skip each other's rows, so they never wait on each other and
  never get the same game), picks the one whose bots are most its own, and marks it running with
  a lease: its name, a fresh random token and an expiry on the database's clock. It renews its
  leases (`renew_leases`) well before they expire.
* **Fencing.** Every later write of the attempt (`commit_game`, `void_attempt`,
  `mark_game_played`, given the token as `lease`) requires the token and an unexpired lease in
  its first statement, so the record, the seats' results, the fixture's state and both ratings
  commit together or, once the lease is lost, not at all (`arena.errors.LeaseLost`).
* **An expired lease is an interrupted attempt.** Its game is claimable again by any node; the
  claim deals it as an interrupted attempt is dealt in a single arena: the same deal (the attempt
  after its voided ones, with their kept hands: `games.started_game`). Nothing of the lost attempt
  was stored, so it is simply played again.
* **Fixture generation.** One node at a time stores a running tournament's schedule: it takes the
  tournament's row in `schedule_leases` (`take_schedule_lease`), a lease whose `epoch` goes up at
  every taking over; each chunk it stores (`store_tables` with `fence`) requires that epoch and
  renews the lease, and `finish_schedule_lease` marks the schedule done. No node claims a game of
  a tournament before its schedule is done, so a tournament whose generating node died part way
  is taken over by another node (after the lease expires), never finished on part of its tables.

PostgreSQL only (`DATABASE_NOW`): a cluster shares one server; a single arena, on SQLite or
PostgreSQL, uses none of this.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlmodel import Session, col, select

from arena.errors import LeaseLost
from arena.records import GameStatus, GameToPlay, TournamentStatus
from arena.storage.store.common import DATABASE_NOW, bot_names, stored, tournament_row
from arena.storage.store.games import started_game
from arena.storage.tables import GameRow, ScheduledTableRow, ScheduleLeaseRow, TournamentRow, table_of
from arena.storage.writer import writes

CLAIM_WINDOW = 32
"""How many of the next claimable games a claim looks at (and locks for the moment of its
transaction) to pick the one whose bots are most the claiming node's own."""


@dataclass(frozen=True)
class ClaimedGame:
    """A game a node claimed: the attempt to play, the lease token its writes must give, and
    whether it was taken over from an expired lease (an interrupted attempt)."""

    game: GameToPlay
    lease: str
    interrupted: bool


@dataclass(frozen=True)
class ScheduleFence:
    """What a chunk of a schedule must give to be stored by a node: the tournament's schedule
    lease at `epoch` (renewed by `ttl_s` as it is stored)."""

    tournament_id: int
    epoch: int
    ttl_s: float


def _expiry(ttl_s: float) -> sa.ColumnElement[object]:
    return DATABASE_NOW + sa.func.make_interval(0, 0, 0, 0, 0, 0, ttl_s)


def _live_lease() -> sa.ColumnElement[bool]:
    return col(GameRow.lease_expires) > DATABASE_NOW


@writes
def claim_game(
    *,
    session: Session,
    node: str,
    ttl_s: float,
    prefer: Collection[str] = (),
    avoid: Collection[str] = (),
    window: int = CLAIM_WINDOW,
) -> ClaimedGame | None:
    """Claim the next game for `node`, leased for `ttl_s` seconds; None if there is none to claim.

    Claimable, of a running tournament whose schedule is stored whole (`finish_schedule_lease`): a
    running game whose lease expired (or that has none: left by a single arena that was killed),
    and a scheduled game while the tournament has fewer than its `concurrency` games running,
    expired leases included: an interrupted game keeps its place for its replay (no new game
    takes it, even from a claim that finds the game locked by another), and its replay adds none.
    Of the first `window` of them, interrupted ones (an expired lease: the game held a place of
    `concurrency` and is played again first, not left waiting behind new games that take its
    place) before the rest, each in play order (each table's first game before any second, oldest
    tournaments first), locked with SKIP LOCKED, it takes the first interrupted one, else the
    first with the most seats of bots in `prefer` (connected to this node); never one with a bot
    in `avoid` (bots with no free seat): None if every one has such a bot. Under concurrent claims
    the cap on `concurrency` can be passed by a game per claiming node for the moment."""
    try:
        game_t, tables, tournaments = table_of(GameRow), table_of(ScheduledTableRow), table_of(TournamentRow)
        other = game_t.alias("playing")
        # Each tournament's running games, counted once per claim: counted again for each
        # candidate game, three nodes claimed ~5 games a second with 500 in play, ~60 once counted
        # once (benchmarks/cluster.py, docs/benchmarks.md).
        playing = (
            sa.select(other.c.tournament_id, sa.func.count().label("running"))
            .where(other.c.status == GameStatus.RUNNING.value)
            .group_by(other.c.tournament_id)
            .subquery("playing_count")
        )
        running = sa.func.coalesce(playing.c.running, 0)
        stored_whole = sa.exists().where(
            col(ScheduleLeaseRow.tournament_id) == game_t.c.tournament_id, col(ScheduleLeaseRow.done)
        )
        candidates = session.execute(
            sa.select(game_t.c.id, game_t.c.status, tables.c.seats)
            .join(tournaments, tournaments.c.id == game_t.c.tournament_id)
            .join(tables, tables.c.id == game_t.c.table_id)
            .outerjoin(playing, playing.c.tournament_id == game_t.c.tournament_id)
            .where(
                tournaments.c.status == TournamentStatus.RUNNING.value,
                sa.or_(
                    sa.and_(game_t.c.status == GameStatus.SCHEDULED.value, running < tournaments.c.concurrency),
                    sa.and_(
                        game_t.c.status == GameStatus.RUNNING.value,
                        sa.or_(game_t.c.lease_expires.is_(None), game_t.c.lease_expires <= DATABASE_NOW),
                    ),
                ),
                stored_whole,
            )
            .order_by(
                (game_t.c.status == GameStatus.RUNNING.value).desc(),
                game_t.c.tournament_id,
                game_t.c.game_index,
                game_t.c.table_index,
            )
            .limit(window)
            .with_for_update(of=game_t, skip_locked=True)
        ).all()
        names = bot_names(session, {bot for _, _, seats in candidates for bot in seats})
        best: tuple[int, bool, int] | None = None
        for game_id, status, seats in candidates:
            bots = [names[b] for b in seats]
            if any(b in avoid for b in bots):
                continue
            rank = (status == GameStatus.RUNNING.value, sum(b in prefer for b in bots))
            if best is None or rank > best[1:]:
                best = (game_id, *rank)
        if best is None:
            session.rollback()
            return None
        game_id, interrupted, _ = best
        token = secrets.token_hex(16)
        session.execute(
            sa.update(game_t)
            .where(game_t.c.id == game_id)
            .values(
                status=GameStatus.RUNNING.value,
                started_at=DATABASE_NOW,
                finished_at=None,
                attempts=game_t.c.attempts + 1,
                lease_owner=node,
                lease_token=token,
                lease_expires=_expiry(ttl_s),
            )
        )
        to_play = started_game(session, game_id)
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return ClaimedGame(to_play, token, interrupted)


@writes
def renew_leases(
    *, session: Session, games: Mapping[int, str], ttl_s: float, schedules: Mapping[int, int] | None = None
) -> tuple[set[int], set[int]]:
    """Renew, for `ttl_s` from now, the leases of `games` (game id to token) and of `schedules`
    (tournament id to epoch) that still hold; returns the game ids and tournament ids renewed. A
    lease that expired is lost even if nobody took it over yet: its node must stop (its writes
    would be refused anyway)."""
    try:
        renewed: set[int] = set()
        if games:
            renewed = set(
                session.exec(
                    sa.update(GameRow)
                    .where(
                        sa.tuple_(col(GameRow.id), col(GameRow.lease_token)).in_(list(games.items())),
                        col(GameRow.status) == GameStatus.RUNNING,
                        _live_lease(),
                    )
                    .values(lease_expires=_expiry(ttl_s))
                    .returning(col(GameRow.id))
                ).scalars()
            )
        kept: set[int] = set()
        if schedules:
            kept = set(
                session.exec(
                    sa.update(ScheduleLeaseRow)
                    .where(
                        sa.tuple_(col(ScheduleLeaseRow.tournament_id), col(ScheduleLeaseRow.epoch)).in_(
                            list(schedules.items())
                        ),
                        col(ScheduleLeaseRow.expires_at) > DATABASE_NOW,
                    )
                    .values(expires_at=_expiry(ttl_s))
                    .returning(col(ScheduleLeaseRow.tournament_id))
                ).scalars()
            )
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return {stored(g, "game id") for g in renewed}, kept


@writes
def release_leases(*, session: Session, games: Mapping[int, str]) -> int:
    """Hand back the leases of `games` (game id to token) that still hold, as a node that stops
    does: they expire now, so any node claims the games at once, as interrupted attempts. Returns
    how many were handed back."""
    try:
        released = session.exec(
            sa.update(GameRow)
            .where(
                sa.tuple_(col(GameRow.id), col(GameRow.lease_token)).in_(list(games.items())),
                col(GameRow.status) == GameStatus.RUNNING,
                _live_lease(),
            )
            .values(lease_expires=DATABASE_NOW)
        )
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return int(released.rowcount)


@writes
def take_schedule_lease(*, session: Session, tournament: str, node: str, ttl_s: float) -> ScheduleFence | None:
    """Take the lease on storing running `tournament`'s schedule for `node`: the first taker gets
    epoch 1, a node taking over an expired lease the next epoch. None if another node's lease is
    live, the schedule is done, or the tournament is not running."""
    try:
        row = tournament_row(session, tournament)
        if row.status is not TournamentStatus.RUNNING:
            session.rollback()
            return None
        leases = table_of(ScheduleLeaseRow)
        insert = postgresql.insert(leases).values(
            tournament_id=row.id, owner=node, epoch=1, expires_at=_expiry(ttl_s), done=False
        )
        epoch = session.execute(
            insert.on_conflict_do_update(
                index_elements=[leases.c.tournament_id],
                set_={"owner": node, "epoch": leases.c.epoch + 1, "expires_at": _expiry(ttl_s)},
                where=sa.and_(~leases.c.done, leases.c.expires_at <= DATABASE_NOW),
            ).returning(leases.c.epoch)
        ).scalar()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return None if epoch is None else ScheduleFence(stored(row.id, "tournament id"), epoch, ttl_s)


def check_fence(session: Session, fence: ScheduleFence) -> None:
    """The first statement of a fenced chunk: the schedule lease holds at the fence's epoch (it is
    renewed), else LeaseLost and the chunk stores nothing."""
    renewed = session.exec(
        sa.update(ScheduleLeaseRow)
        .where(
            col(ScheduleLeaseRow.tournament_id) == fence.tournament_id,
            col(ScheduleLeaseRow.epoch) == fence.epoch,
            ~col(ScheduleLeaseRow.done),
            col(ScheduleLeaseRow.expires_at) > DATABASE_NOW,
        )
        .values(expires_at=_expiry(fence.ttl_s))
    )
    if renewed.rowcount != 1:
        raise LeaseLost(
            f"tournament {fence.tournament_id}: this node's lease on storing its schedule (epoch {fence.epoch}) is "
            "lost: another node stores it"
        )


@writes
def finish_schedule_lease(*, session: Session, fence: ScheduleFence) -> None:
    """The schedule is stored whole (`store_schedule` with the fence returned): mark it done, so
    its games can be claimed; LeaseLost if the lease is no longer this one."""
    try:
        check_fence(session, fence)
        session.exec(
            sa.update(ScheduleLeaseRow)
            .where(col(ScheduleLeaseRow.tournament_id) == fence.tournament_id)
            .values(done=True)
        )
        session.commit()
    except BaseException:
        session.rollback()
        raise


def schedule_owners(*, session: Session) -> dict[str, tuple[str, int, bool]]:
    """Each running tournament's schedule lease: its node, epoch and whether the schedule is done
    (for the operator and the tests). Reads only."""
    rows = session.exec(
        select(TournamentRow.name, ScheduleLeaseRow.owner, ScheduleLeaseRow.epoch, ScheduleLeaseRow.done).join(
            ScheduleLeaseRow, col(ScheduleLeaseRow.tournament_id) == TournamentRow.id
        )
    ).all()
    return {name: (owner, epoch, done) for name, owner, epoch, done in rows}
