"""Tournaments: creation from their settings, entries, the start (the schedule stored with every
game's seed), the stop rule's rounds, failure, and the reads."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from arena.errors import (
    AlreadyEntered,
    DuplicateName,
    EntriesClosed,
    InvalidSetting,
    NotEnoughEntrants,
    TournamentAlreadyStarted,
    TournamentFailed,
)
from arena.names import check_name
from arena.play.spectators import MAX_SPECTATOR_DELAY_S
from arena.ratings.table import arena_env
from arena.records import GameCounts, GameStatus, Tournament, TournamentStatus
from arena.storage.async_store import Transactions, in_steps, on_session
from arena.storage.store.common import (
    SPECTATOR_DELAY,
    STOP_RULE,
    bot_id_of,
    bot_names,
    field_format,
    game_limit,
    json_array,
    keyset,
    stored,
    stored_settings,
    tournament_row,
    utc_now,
)
from arena.storage.store.leases import ScheduleFence, check_fence
from arena.storage.store.prepared import Cursor, Rows, loaded
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    EntryRow,
    GameRow,
    ScheduledTableRow,
    SeatResultRow,
    TournamentRow,
    table_of,
)
from arena.storage.writer import writes
from arena.tournaments import entries as entry_rules
from arena.tournaments.fairness import commitment, new_nonce
from arena.tournaments.schedule import (
    MAX_TABLE_SIZE,
    MIN_TABLE_SIZE,
    Schedule,
    ScheduledTable,
    game_seed,
    round_robin,
    round_seed,
    schedule_seed,
    stop_round,
    table_count,
)
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import Evidence, StopOutcome, StopRule, Verdict, open_pairs

MAX_FAILURE_LENGTH = 300
"""A failed tournament's reason is cut to this many characters."""


_SEED_LIMIT = 1 << 63
"""Seeds are stored in signed 64-bit columns."""


@writes
def create_tournament(*, session: Session, settings: TournamentSettings, now: datetime | None = None) -> Tournament:
    """Create a scheduled tournament from its settings, open for entries until it starts.

    Everything is validated first (the referee's clock ranges included; InvalidSetting, InvalidName
    or DuplicateName say what is wrong). The failure policy is stored written out in full, so a
    later change of the defaults never changes a tournament already created. With a stop rule it
    plays its schedule round after round (`advance_stop_rule`); the rule is kept in the stored
    settings beside the failure policy (key "stop_rule"), so the schema stays, and so is the
    spectator delay (key "spectator_delay_s").

    A start time in the past is allowed: the tournament is due at once. Without a seed one is
    drawn at random; it is stored, so the schedule and every deal can be reproduced, with a
    fresh nonce for its public commitment. `rounds`, `max_entrants` and `entry_code` are as
    `arena.tournaments.entries` describes (None: a full round robin, the arena's largest field,
    open to every bot).
    """
    settings.check()
    name, table_size, games_per_table = settings.name, settings.table_size, settings.games_per_table
    move_limit_ms, concurrency, seed, rounds = (
        settings.move_limit_ms,
        settings.concurrency,
        settings.seed,
        settings.rounds,
    )
    starts_at, stop_rule = settings.starts_at, settings.stop_rule
    check_name(name, "tournament")
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise InvalidSetting(f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} players, not {table_size}")
    if games_per_table < 1:
        raise InvalidSetting(f"games per table must be at least 1, not {games_per_table}")
    if concurrency < 1:
        raise InvalidSetting(f"concurrency must be at least 1 game, not {concurrency}")
    if not 0 <= settings.spectator_delay_s <= MAX_SPECTATOR_DELAY_S:
        raise InvalidSetting(
            f"the spectator delay must be within 0..{MAX_SPECTATOR_DELAY_S} s, not {settings.spectator_delay_s}"
        )
    entry_rules.check_format(table_size, games_per_table, rounds, game_limit(stop_rule))
    cap = entry_rules.resolve_max_entrants(settings.max_entrants, table_size)
    code = entry_rules.code_hash(settings.entry_code)
    if starts_at.tzinfo is None:
        raise InvalidSetting("the start time must include a time zone (e.g. UTC)")
    if seed is None:
        seed = secrets.randbelow(_SEED_LIMIT)
    elif not 0 <= seed < _SEED_LIMIT:
        raise InvalidSetting(f"the seed must be between 0 and 2**63-1, not {seed}")
    nonce = new_nonce()
    kept: dict[str, Any] = dict(settings.policy.to_json())
    if stop_rule is not None:
        kept[STOP_RULE] = stop_rule.to_json()
    kept[SPECTATOR_DELAY] = settings.spectator_delay_s
    if session.exec(select(TournamentRow.id).where(col(TournamentRow.name) == name)).first() is not None:
        raise DuplicateName(f"a tournament named {name!r} already exists")
    row = TournamentRow(
        name=name,
        table_size=table_size,
        games_per_table=games_per_table,
        starts_at=starts_at.astimezone(UTC),
        move_limit_ms=move_limit_ms,
        concurrency=concurrency,
        seed=seed,
        seed_nonce=nonce,
        seed_commitment=commitment(seed, nonce),
        status=TournamentStatus.SCHEDULED,
        settings=kept,
        rounds=rounds,
        max_entrants=cap,
        entry_code_hash=code,
        created_at=utc_now(now),
    )
    try:
        session.add(row)
        session.commit()
    except IntegrityError:
        session.rollback()
        raise DuplicateName(f"a tournament named {name!r} already exists") from None
    return show_tournament(session=session, tournament=name)


_ENTRIES = table_of(EntryRow)
_ENTRANTS = (
    sa.select(sa.func.count()).select_from(_ENTRIES).where(_ENTRIES.c.tournament_id == sa.bindparam("tournament"))
)
_IS_ENTERED = sa.select(_ENTRIES.c.bot_id).where(
    _ENTRIES.c.tournament_id == sa.bindparam("tournament"), _ENTRIES.c.bot_id == sa.bindparam("bot")
)
_ENTER = (
    sa.insert(_ENTRIES)
    .from_select(
        ["tournament_id", "bot_id", "entered_at"],
        sa.select(
            sa.bindparam("tournament", type_=sa.Integer),
            sa.bindparam("bot", type_=sa.Integer),
            sa.bindparam("entered_at", type_=_ENTRIES.c.entered_at.type),
        ).where(
            # One statement, so SQLite cannot let a start or another entry slip in between the
            # checks and the insert.
            sa.exists().where(
                col(TournamentRow.id) == sa.bindparam("tournament"),
                col(TournamentRow.status) == TournamentStatus.SCHEDULED,
            ),
            _ENTRANTS.scalar_subquery() < sa.bindparam("capacity", type_=sa.Integer),
        ),
    )
    .returning(_ENTRIES.c.bot_id)
)
"""An entry's statements, built once, like those of `arena.storage.store.bots`."""


@writes
def enter_tournament(
    *, session: Session, tournament: str, bot: str, entry_code: str | None = None, now: datetime | None = None
) -> None:
    """Enter `bot` in `tournament`; only while the tournament has not started, with its entry code
    if it is invite-only (EntryCodeRefused), and while its field has room (TournamentFull)."""
    try:
        row = tournament_row(session, tournament, lock=True, exclusive=True)
        bot_id = bot_id_of(session, bot)
        if row.status is TournamentStatus.FAILED:
            raise TournamentFailed(f"tournament {tournament!r} failed: {row.failure}")
        if row.status is not TournamentStatus.SCHEDULED:
            raise EntriesClosed(f"tournament {tournament!r} has started: entries are closed")
        connection = session.connection()
        keys = {"tournament": row.id, "bot": bot_id}
        if connection.execute(_IS_ENTERED, keys).first() is not None:
            raise AlreadyEntered(f"bot {bot!r} is already entered in tournament {tournament!r}")
        entry_rules.check_code(tournament, row.entry_code_hash, entry_code)
        field = field_format(row)
        entrants = {"tournament": row.id}
        entry_rules.check_room(tournament, connection.execute(_ENTRANTS, entrants).scalar_one() + 1, **field)
        inserted = connection.execute(
            _ENTER, {**keys, "entered_at": utc_now(now), "capacity": entry_rules.capacity(**field)}
        ).first()
        if inserted is None:
            if tournament_row(session, tournament).status is TournamentStatus.SCHEDULED:  # filled meanwhile
                entry_rules.check_room(tournament, connection.execute(_ENTRANTS, entrants).scalar_one() + 1, **field)
            raise EntriesClosed(f"tournament {tournament!r} has started: entries are closed")
        session.commit()
    except IntegrityError:
        session.rollback()
        raise AlreadyEntered(f"bot {bot!r} is already entered in tournament {tournament!r}") from None
    except BaseException:
        session.rollback()
        raise


def due_tournaments(*, session: Session, now: datetime | None = None) -> list[str]:
    """Names of scheduled tournaments whose start time has come, earliest first.

    One that cannot start yet (too few entrants) stays scheduled, open for entries, and due.
    """
    rows = session.exec(
        select(TournamentRow.name)
        .where(col(TournamentRow.status) == TournamentStatus.SCHEDULED, col(TournamentRow.starts_at) <= utc_now(now))
        .order_by(col(TournamentRow.starts_at), col(TournamentRow.id))
    )
    return list(rows)


SCHEDULE_CHUNK_GAMES = 500
"""Games a start stores per transaction (with their tables), so the writes of other tournaments,
commands and registrations take their turns between the chunks of a 50,000-game schedule instead
of waiting for all of it. A game's commit waits for at most one chunk: at four times this size it
waited long enough to slow the tournaments playing beside a field's start (docs/benchmarks.md)."""


DRAWN_APART_TABLES = 5_000
"""A schedule of more tables than this is drawn in a child process, at a lower priority: the
49,000 tables of 769 entrants take seconds of pure Python, which in the arena's process would hold
the interpreter lock that every game in play needs, and on a small machine the core they run on."""


@dataclass(frozen=True)
class PendingSchedule:
    """A running tournament's first round (its whole schedule, but for a stop-rule tournament's
    later rounds) not yet stored in full: what storing the rest takes."""

    tournament_id: int
    seed: int
    table_size: int
    games_per_table: int
    rounds: int | None
    entrants: dict[str, int]
    """Name to bot id."""
    stored: int
    """Tables stored so far."""


def _start_steps(db: Transactions, *, tournament: str, now: datetime | None = None) -> Tournament:
    db(close_entries, tournament=tournament, now=now)
    db(store_schedule, tournament=tournament)
    return db(show_tournament, tournament=tournament)


@in_steps(_start_steps)
def start_tournament(*, session: Session, tournament: str, now: datetime | None = None) -> Tournament:
    """Close entries, generate and store the schedule and every game with its seed.

    Needs at least `table_size` entrants. The schedule is drawn from a hash of the tournament
    seed (`arena.tournaments.schedule.schedule_seed`), each game's seed from the tournament seed and its place
    in the schedule (`arena.tournaments.schedule.game_seed`).

    In short transactions: the entries close in one (`close_entries`), the schedule is drawn
    outside any, and stored `SCHEDULE_CHUNK_GAMES` games at a time (`store_schedule`). Until the
    last chunk is stored the tournament is running with part of its schedule; whoever plays it
    stores the rest first (`store_schedule` again: it goes on from where the stored tables end).
    """
    return _start_steps(on_session(session), tournament=tournament, now=now)


@writes
def close_entries(*, session: Session, tournament: str, now: datetime | None = None) -> None:
    """The start's first transaction: the tournament becomes running (its entries close) if its
    field can play, and every entrant gets its tournament rating. The schedule is not stored yet.
    A start before `starts_at` (`tournament start`, the demo) moves `starts_at` to the moment it
    started: the time it was scheduled for no longer comes, and every list and page would show a
    start after the tournament began."""
    moment = utc_now(now)
    try:
        claimed = session.exec(
            sa.update(TournamentRow)
            .where(col(TournamentRow.name) == tournament, col(TournamentRow.status) == TournamentStatus.SCHEDULED)
            .values(status=TournamentStatus.RUNNING, started_at=moment)
        )
        if claimed.rowcount != 1:
            row = tournament_row(session, tournament)
            if row.status is TournamentStatus.FAILED:
                raise TournamentFailed(f"tournament {tournament!r} failed: {row.failure}")
            raise TournamentAlreadyStarted(f"tournament {tournament!r} is already {row.status.value}")
        session.exec(
            sa.update(TournamentRow)
            .where(col(TournamentRow.name) == tournament, col(TournamentRow.starts_at) > moment)
            .values(starts_at=moment)
        )
        row = tournament_row(session, tournament)
        assert row.id is not None
        entrants = _entrants(session, row)
        if len(entrants) < row.table_size:
            raise NotEnoughEntrants(
                f"tournament {tournament!r} has {len(entrants)} entrants; "
                f"a {row.table_size}-seat table needs at least {row.table_size}"
            )
        entry_rules.check_room(tournament, len(entrants), **field_format(row))
        env = arena_env()
        session.exec(
            sa.insert(BotRatingRow),
            params=[
                {"tournament_id": row.id, "bot_id": bot_id, "mu": env.mu, "sigma": env.sigma}
                for bot_id in entrants.values()
            ],
        )
        session.commit()
    except BaseException:
        session.rollback()
        raise


def pending_schedule(*, session: Session, tournament: str) -> PendingSchedule | None:
    """What a running tournament's first round still needs stored (all of it before the first
    chunk), None if it is stored whole. A stop-rule tournament's later rounds are stored whole by
    `advance_stop_rule`, in its transaction (each within the rule's game cap). Reads only."""
    row = tournament_row(session, tournament)
    if row.status is not TournamentStatus.RUNNING:
        return None
    assert row.id is not None
    entrants = _entrants(session, row)
    stored = _stored_tables(session, row.id)
    if stored >= table_count(len(entrants), row.table_size, row.rounds):
        return None
    return PendingSchedule(row.id, row.seed, row.table_size, row.games_per_table, row.rounds, entrants, stored)


_storing: dict[str, threading.Lock] = {}
"""A lock per tournament whose schedule this process stores now: a start and the runner's play
of the same tournament draw its schedule once, not each their own."""
_storing_lock = threading.Lock()


def _store_schedule_steps(db: Transactions, *, tournament: str, fence: ScheduleFence | None = None) -> int:
    with _storing_lock:
        lock = _storing.setdefault(tournament, threading.Lock())
    with lock:
        try:
            return _store_pending(db, tournament, fence)
        finally:
            with _storing_lock:
                _storing.pop(tournament, None)


def _store_pending(db: Transactions, tournament: str, fence: ScheduleFence | None) -> int:
    pending = db(pending_schedule, tournament=tournament)
    if pending is None:
        return 0
    seats = _drawn(pending)
    chunk = max(1, SCHEDULE_CHUNK_GAMES // pending.games_per_table)
    for first in range(pending.stored, len(seats), chunk):
        db(
            store_tables,
            tournament_id=pending.tournament_id,
            first=first,
            seats=seats[first : first + chunk],
            games_per_table=pending.games_per_table,
            seed=pending.seed,
            fence=fence,
        )
    return len(seats) - pending.stored


@in_steps(_store_schedule_steps)
def store_schedule(*, session: Session, tournament: str, fence: ScheduleFence | None = None) -> int:
    """Store what is missing of the running tournament's schedule (`pending_schedule`),
    `SCHEDULE_CHUNK_GAMES` games a transaction; returns how many tables that took (0: nothing
    was missing). The tables are drawn again from the seed, the same ones: storing the rest after
    a crash, or twice at once, stores each table once. With `fence` (a cluster node's schedule
    lease, `arena.storage.store.leases`) every chunk requires the lease: LeaseLost once it is lost."""
    return _store_schedule_steps(on_session(session), tournament=tournament, fence=fence)


def _drawn(pending: PendingSchedule) -> list[list[int]]:
    """The tables of the pending schedule, drawn in a child process when there are more than
    `DRAWN_APART_TABLES`."""
    args = (pending.entrants, pending.table_size, pending.seed, 0, pending.rounds)
    if table_count(len(pending.entrants), pending.table_size, pending.rounds) <= DRAWN_APART_TABLES:
        return round_seats(*args)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context, initializer=_lower_priority) as pool:
        return pool.submit(round_seats, *args).result()


def _lower_priority() -> None:
    """Give way to the arena's process (where the OS can: not on Windows)."""
    if hasattr(os, "nice"):
        os.nice(10)


def round_seats(
    entrants: Mapping[str, int], table_size: int, seed: int, round_index: int, rounds: int | None
) -> list[list[int]]:
    """The tables of round `round_index` of the schedule (the whole schedule, but for a stop-rule
    tournament's later rounds), each as its seats' bot ids."""
    schedule = round_robin(list(entrants), table_size, round_seed(schedule_seed(seed), round_index), rounds)
    return [[entrants[name] for name in table.seats] for table in schedule.tables]


@writes
def store_tables(
    *,
    session: Session,
    tournament_id: int,
    first: int,
    seats: Sequence[Sequence[int]],
    games_per_table: int,
    seed: int,
    fence: ScheduleFence | None = None,
) -> int:
    """Store tables `first`, `first + 1`, ... of a running tournament's schedule (their seats'
    bot ids) and their games with their seeds, in one transaction; tables already stored are
    skipped, so a chunk stored twice is stored once. Returns how many tables were stored (none if
    the tournament is no longer running). With `fence`, only while that schedule lease holds
    (`arena.storage.store.leases.check_fence`, its first statement), else LeaseLost."""
    try:
        if fence is not None:
            check_fence(session, fence)
        claimed = session.exec(  # a write first: the transaction holds the tournament row (and SQLite its lock)
            sa.update(TournamentRow)
            .where(col(TournamentRow.id) == tournament_id, col(TournamentRow.status) == TournamentStatus.RUNNING)
            .values(status=TournamentStatus.RUNNING)
        )
        stored = _stored_tables(session, tournament_id)
        if claimed.rowcount != 1 or stored >= first + len(seats):
            session.rollback()
            return 0
        if stored < first:
            raise ValueError(f"tables {stored} to {first - 1} of tournament {tournament_id} are not stored yet")
        _insert_tables(session, tournament_id, stored, seats[stored - first :], games_per_table, seed)
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return first + len(seats) - stored


def _stored_tables(session: Session, tournament_id: int) -> int:
    """How many tables a tournament has stored: one past the highest index (they are stored in order)."""
    highest = sa.func.max(col(ScheduledTableRow.table_index))
    return int(
        session.exec(
            select(sa.func.coalesce(highest + 1, 0)).where(col(ScheduledTableRow.tournament_id) == tournament_id)
        ).one()
    )


def _entrants(session: Session, row: TournamentRow) -> dict[str, int]:
    """The tournament's entrants: name to bot id."""
    query = select(BotRow.name, BotRow.id).join(EntryRow).where(col(EntryRow.tournament_id) == row.id)
    return {name: stored(bot_id, "bot id") for name, bot_id in session.exec(query)}


def _schedule_stop_round(
    session: Session, row: TournamentRow, entrants: Mapping[str, int], verdict: Verdict, rule: StopRule
) -> None:
    """Store a stop-rule tournament's next round (`stop_round`), drawn from the rule's order and
    open pairs after the rounds before and every entrant's seat counts so far."""
    assert row.id is not None
    names = {bot_id: name for name, bot_id in entrants.items()}
    seats_so_far = {name: [0] * row.table_size for name in entrants}
    for seats in session.exec(select(ScheduledTableRow.seats).where(col(ScheduledTableRow.tournament_id) == row.id)):
        for seat, bot_id in enumerate(seats):
            seats_so_far[names[bot_id]][seat] += 1
    round_index = verdict.rounds
    schedule = stop_round(
        list(entrants),
        row.table_size,
        round_seed(schedule_seed(row.seed), round_index),
        round_index,
        row.rounds,
        verdict.order,
        open_pairs(verdict, rule),
        seats_so_far,
    )
    tables = [[entrants[name] for name in table.seats] for table in schedule.tables]
    _insert_tables(session, row.id, round_index * len(tables), tables, row.games_per_table, row.seed)


_SCHEDULED_TABLES = table_of(ScheduledTableRow)
_INSERT_TABLES = Rows(_SCHEDULED_TABLES, {c: c for c in ("tournament_id", "table_index", "seats", "games_per_table")})
_INSERT_GAMES = Rows(
    table_of(GameRow),
    {c: c for c in ("tournament_id", "table_id", "table_index", "game_index", "seed", "status", "attempts")},
)
_TABLE_IDS = (
    sa.select(_SCHEDULED_TABLES.c.id)
    .where(
        _SCHEDULED_TABLES.c.tournament_id == sa.bindparam("tournament"),
        _SCHEDULED_TABLES.c.table_index >= sa.bindparam("first"),
    )
    .order_by(_SCHEDULED_TABLES.c.table_index)
)
"""The ids of the tables just stored, in order (the last stored are the tournament's highest):
read back rather than returned, since SQLite can return a many-row insert's ids in parameter
order only by inserting one row a statement."""


def _insert_tables(
    session: Session, tournament_id: int, first: int, seats: Sequence[Sequence[int]], games_per_table: int, seed: int
) -> None:
    """Insert tables `first`, ... with `seats` and their games, as statements built once on the
    session's DB-API cursor (`prepared`): through the ORM's bulk insert a 500-game chunk cost
    the interpreter, which every game in play waits for, about twice the CPU (docs/benchmarks.md,
    "A large field")."""
    connection = session.connection()
    cursor = Cursor(connection)
    cursor.write_rows(
        _INSERT_TABLES,
        [
            {
                "tournament_id": tournament_id,
                "table_index": first + index,
                "seats": list(table),
                "games_per_table": games_per_table,
            }
            for index, table in enumerate(seats)
        ],
    )
    table_ids = connection.execute(_TABLE_IDS, {"tournament": tournament_id, "first": first}).scalars().all()
    cursor.write_rows(
        _INSERT_GAMES,
        [
            {
                "tournament_id": tournament_id,
                "table_id": table_id,
                "table_index": first + index,
                "game_index": game,
                "seed": game_seed(seed, first + index, game),
                "status": GameStatus.SCHEDULED,
                "attempts": 0,
            }
            for game in range(games_per_table)
            for index, table_id in enumerate(table_ids)
        ],
    )
    cursor.close()


@writes
def advance_stop_rule(*, session: Session, tournament: str, now: datetime | None = None) -> Verdict:
    """After the last game of a stop-rule tournament's round is committed: finish it if the rule
    says settled or cap reached, else store its next round (`arena.tournaments.stop_rule`). Returns the verdict.

    The verdict is a pure function of the committed complete rounds, so calling this again, after
    a crash between the commit and the call, or twice, decides the same. It first claims the
    tournament row (a write that changes nothing), so two callers cannot both add the round; one
    whose round has unfinished games changes nothing.
    """
    try:
        claimed = session.exec(
            sa.update(TournamentRow)
            .where(col(TournamentRow.name) == tournament, col(TournamentRow.status) == TournamentStatus.RUNNING)
            .values(status=TournamentStatus.RUNNING)
        )
        row = tournament_row(session, tournament)
        rule = stored_settings(row)[1]
        if rule is None:
            raise InvalidSetting(f"tournament {tournament!r} has no stop rule")
        if claimed.rowcount != 1:
            raise TournamentAlreadyStarted(f"tournament {tournament!r} is {row.status.value}, not running")
        verdict, entrants, open_games = _stop_verdict(session, row, rule)
        if open_games:
            session.rollback()
            return verdict
        if verdict.outcome is StopOutcome.PLAYING:
            _schedule_stop_round(session, row, entrants, verdict, rule)
        else:
            session.exec(
                sa.update(TournamentRow)
                .where(col(TournamentRow.id) == row.id)
                .values(status=TournamentStatus.FINISHED, finished_at=utc_now(now))
            )
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return verdict


def _stop_verdict(session: Session, row: TournamentRow, rule: StopRule) -> tuple[Verdict, dict[str, int], int]:
    """The stop rule's verdict after the tournament's complete rounds, the entrants (name to id)
    and how many of its games are not finished. The order is the rule's own, from the results of
    those rounds alone (`Evidence.order`), so a round in play changes nothing."""
    entrants = _entrants(session, row)
    per_round = table_count(len(entrants), row.table_size, row.rounds)
    round_games = per_round * row.games_per_table
    names = {bot_id: name for name, bot_id in entrants.items()}
    games: dict[int, dict[str, int]] = {}
    tables: dict[int, int] = {}
    for game_id, table_index, bot_id, rank in session.exec(
        select(GameRow.id, GameRow.table_index, SeatResultRow.bot_id, SeatResultRow.rank)
        .join(SeatResultRow, col(SeatResultRow.game_id) == GameRow.id)
        .where(col(GameRow.tournament_id) == row.id, col(GameRow.status) == GameStatus.FINISHED)
    ):
        game = stored(game_id, "game id")
        games.setdefault(game, {})[names[bot_id]] = rank
        tables[game] = table_index
    open_games = session.exec(
        select(sa.func.count())
        .select_from(GameRow)
        .where(col(GameRow.tournament_id) == row.id, col(GameRow.status) != GameStatus.FINISHED)
    ).one()
    by_round: dict[int, list[dict[str, int]]] = {}
    for game_id, ranks in games.items():
        by_round.setdefault(tables[game_id] // per_round, []).append(ranks)
    evidence = Evidence(rule, list(entrants))
    while len(by_round.get(evidence.rounds, ())) == round_games:
        evidence.add_round(by_round[evidence.rounds])
    return evidence.verdict(None, round_games), entrants, int(open_games)


@writes
def fail_tournament(*, session: Session, tournament: str, reason: str, now: datetime | None = None) -> bool:
    """Mark a scheduled or running tournament failed, with `reason` (one line, kept short): it is
    neither started nor played again. False if it had already finished or failed."""
    line = " ".join(reason.split())[:MAX_FAILURE_LENGTH] or "unknown error"
    failed = session.exec(
        sa.update(TournamentRow)
        .where(
            col(TournamentRow.name) == tournament,
            col(TournamentRow.status).in_((TournamentStatus.SCHEDULED, TournamentStatus.RUNNING)),
        )
        .values(status=TournamentStatus.FAILED, failure=line, finished_at=utc_now(now))
    )
    session.commit()
    return bool(failed.rowcount)


def list_tournaments(*, session: Session, after: int | None = None, limit: int | None = None) -> list[Tournament]:
    """Tournaments by start time: every one, or at most `limit` after the one with id `after`."""
    order = (TournamentRow.starts_at, TournamentRow.id)
    rows = session.exec(keyset(session, select(TournamentRow), TournamentRow, order, after, limit)).all()
    return _tournaments(session, rows)


def show_tournament(*, session: Session, tournament: str) -> Tournament:
    """One tournament with its entrants and progress, and a started stop-rule tournament's verdict."""
    row = tournament_row(session, tournament)
    shown_ = _tournaments(session, [row])[0]
    if shown_.stop_rule is None or row.status is TournamentStatus.SCHEDULED:
        return shown_
    return replace(shown_, stop=_stop_verdict(session, row, shown_.stop_rule)[0])


def show_schedule(*, session: Session, tournament: str) -> Schedule:
    """The stored schedule of a started tournament (no tables before it starts)."""
    row = tournament_row(session, tournament)
    names = bot_names(session)
    seats = session.exec(
        select(ScheduledTableRow.seats)
        .where(col(ScheduledTableRow.tournament_id) == row.id)
        .order_by(col(ScheduledTableRow.table_index))
    ).all()
    entrants = session.exec(
        select(BotRow.name).join(EntryRow).where(col(EntryRow.tournament_id) == row.id).order_by(col(BotRow.name))
    ).all()
    return Schedule(row.table_size, tuple(entrants), tuple(ScheduledTable(tuple(names[b] for b in s)) for s in seats))


_IDS: sa.BindParameter[list[int]] = sa.bindparam("ids", expanding=True)
_ENTRANT_NAMES = (
    sa.select(_ENTRIES.c.tournament_id, json_array(col(BotRow.name)))
    .join(BotRow, _ENTRIES.c.bot_id == col(BotRow.id))
    .where(_ENTRIES.c.tournament_id.in_(_IDS))
    .group_by(_ENTRIES.c.tournament_id)
)
"""Each tournament's entrants as one JSON array: every entry's answer lists them all, and fetched a
row each they cost a 1,000-bot field's entering more than the entries themselves
(docs/benchmarks.md, "A large field")."""
# Counted from the (tournament, status) index alone; then, of the running games (few), those
# played and waiting to be counted: one pass reading every game's row cost 70 ms at 10,000.
_BY_STATUS = (
    sa.select(col(GameRow.tournament_id), col(GameRow.status), sa.func.count())
    .where(col(GameRow.tournament_id).in_(_IDS))
    .group_by(col(GameRow.tournament_id), col(GameRow.status))
)
_PLAYED = (
    sa.select(col(GameRow.tournament_id), sa.func.count())
    .where(
        col(GameRow.tournament_id).in_(_IDS),
        col(GameRow.status) == GameStatus.RUNNING,
        col(GameRow.finished_at).is_not(None),
    )
    .group_by(col(GameRow.tournament_id))
)
"""A tournament's entrants and game counts, built once: every entry's answer shows its tournament."""


def _tournaments(session: Session, rows: Sequence[TournamentRow]) -> list[Tournament]:
    connection = session.connection()
    ids = {"ids": [row.id for row in rows]}
    entrants = {
        tournament_id: sorted(loaded(names)) for tournament_id, names in connection.execute(_ENTRANT_NAMES, ids)
    }
    counts: dict[int, dict[str, int]] = {}
    for tournament_id, status, count in connection.execute(_BY_STATUS, ids):
        counts.setdefault(tournament_id, {})[status.value] = count
    for tournament_id, count in connection.execute(_PLAYED, ids):
        counts[tournament_id]["running"] -= count
        counts[tournament_id]["played"] = count
    out = []
    for row in rows:
        assert row.id is not None
        policy, rule, delay = stored_settings(row)
        out.append(
            Tournament(
                id=row.id,
                name=row.name,
                table_size=row.table_size,
                games_per_table=row.games_per_table,
                starts_at=row.starts_at,
                move_limit_ms=row.move_limit_ms,
                concurrency=row.concurrency,
                seed=row.seed if row.status is TournamentStatus.FINISHED else None,
                status=row.status,
                failure_policy=policy,
                created_at=row.created_at,
                started_at=row.started_at,
                finished_at=row.finished_at,
                entrants=tuple(entrants.get(row.id, ())),
                games=GameCounts(**counts.get(row.id, {})),
                seed_commitment=row.seed_commitment,
                seed_nonce=row.seed_nonce if row.status is TournamentStatus.FINISHED else None,
                failure=row.failure,
                max_entrants=row.max_entrants,
                invite_only=row.entry_code_hash is not None,
                rounds=row.rounds,
                stop_rule=rule,
                spectator_delay_s=delay,
            )
        )
    return out
