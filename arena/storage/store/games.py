"""Games: the queue the runner plays from, claiming, committing (record, results and ratings in one
transaction), voiding, and the reads."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from arena.errors import (
    GameAlreadyFinished,
    GameNotRunning,
    GameNotScheduled,
    LeaseLost,
    ResultMismatch,
    UnknownGame,
)
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.ratings.table import Rating, Standing, apply_game, arena_env
from arena.records import (
    GameDetail,
    GameInfo,
    GameSeed,
    GameStatus,
    GameToPlay,
    RatingUpdate,
    SeedReveal,
    TournamentStatus,
    VoidedAttempt,
)
from arena.storage.store.common import (
    DATABASE_NOW,
    STOP_RULE,
    VOIDED,
    bot_names,
    held,
    keyset,
    stored,
    tournament_row,
    utc_now,
)
from arena.storage.store.prepared import Cursor, Prepared, Rows, loaded
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    GameRow,
    RatingHistoryRow,
    ScheduledTableRow,
    SeatResultRow,
    TournamentRow,
    VoidedAttemptRow,
    table_of,
)
from arena.storage.writer import writes
from arena.tournaments.fairness import attempt_seed, kept_hands
from sdk.engine import GameRecord, Kept


def _games_at_tables(*columns: Any) -> Any:
    """Games with their table's seats (bot ids) and their tournament's name, then `columns`: the
    join every read of games starts from."""
    return (
        select(GameRow, ScheduledTableRow.seats, TournamentRow.name, *columns)
        .join(TournamentRow, col(GameRow.tournament_id) == TournamentRow.id)
        .join(ScheduledTableRow, col(GameRow.table_id) == ScheduledTableRow.id)
    )


_games = table_of(GameRow)
_tables = table_of(ScheduledTableRow)
_tournaments_t = table_of(TournamentRow)
_ratings = table_of(BotRatingRow)
_bots = table_of(BotRow)

_NEXT_GAMES = (
    sa.select(
        _games.c.id,
        _games.c.table_index,
        _games.c.game_index,
        _games.c.seed,
        _tables.c.seats,
        _tournaments_t.c.name,
        _tournaments_t.c.move_limit_ms,
        VOIDED,
    )
    .join(_tournaments_t, _games.c.tournament_id == _tournaments_t.c.id)
    .join(_tables, _games.c.table_id == _tables.c.id)
    .where(_games.c.status == GameStatus.SCHEDULED, _tournaments_t.c.status == TournamentStatus.RUNNING)
    .order_by(_games.c.tournament_id, _games.c.game_index, _games.c.table_index)
)
"""The games to play, as columns rather than ORM rows: a 1,000-bot field's start hands its runner
50,000 of them at once, which as ORM rows held the interpreter a long while (docs/benchmarks.md)."""


def next_games(*, session: Session, tournament: str | None = None, limit: int | None = None) -> list[GameToPlay]:
    """Games waiting to be played in running tournaments, in the order to play them.

    Each table's first game comes before any table's second, so a tournament stopped part way
    has spread its games evenly. Oldest tournaments first.
    """
    query = _NEXT_GAMES
    if tournament is not None:
        tournament_row(session, tournament)
        query = query.where(_tournaments_t.c.name == tournament)
    if limit is not None:
        query = query.limit(limit)
    rows = session.connection().execute(query).all()
    names = bot_names(session, {bot for row in rows for bot in row.seats})
    return [
        GameToPlay(
            id=game_id,
            tournament=name,
            table_index=table_index,
            game_index=game_index,
            seed=seed,
            seats=tuple(names[b] for b in seats),
            move_limit_ms=limit_ms,
            voided=voided,
        )
        for game_id, table_index, game_index, seed, seats, name, limit_ms, voided in rows
    ]


@writes
def mark_game_running(*, session: Session, game_id: int, now: datetime | None = None) -> GameToPlay:
    """Claim a scheduled game for play: it becomes running, its attempt count goes up, and its
    seed becomes the deal after its voided attempts (`arena.tournaments.fairness.attempt_seed` of deal
    voided + 1), returned with it."""
    try:
        running_tournament = sa.exists().where(
            col(TournamentRow.id) == GameRow.tournament_id, col(TournamentRow.status) == TournamentStatus.RUNNING
        )
        claimed = session.exec(
            sa.update(GameRow)
            .where(col(GameRow.id) == game_id, col(GameRow.status) == GameStatus.SCHEDULED, running_tournament)
            .values(status=GameStatus.RUNNING, started_at=utc_now(now), attempts=GameRow.attempts + 1)
        )
        if claimed.rowcount != 1:
            game = session.get(GameRow, game_id)
            if game is None:
                raise UnknownGame(f"there is no game {game_id}")
            raise GameNotScheduled(f"game {game_id} is {game.status.value}, not waiting to be played")
        to_play = started_game(session, game_id)
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return to_play


def started_game(session: Session, game_id: int) -> GameToPlay:
    """The attempt at game `game_id` that was just claimed (in this transaction), with its seed
    and the hands it keeps; the game's seed column is set to it (committed with the claim)."""
    game, seats, name, limit_ms, voided, tournament_seed = session.exec(
        _games_at_tables(TournamentRow.move_limit_ms, VOIDED, TournamentRow.seed).where(col(GameRow.id) == game_id)
    ).one()
    # After each void the game is dealt afresh, but for the hands of the seats whose failures
    # voided it (`fairness.kept_hands`): what a bot saw of the voided deal tells nothing of this
    # one, and failing on purpose buys no better hand. An interrupted attempt is dealt again.
    game.seed = attempt_seed(tournament_seed, game.table_index, game.game_index, voided + 1)
    return replace(
        _to_play(game, seats, name, limit_ms, voided, bot_names(session, seats)),
        kept=_kept(session, game_id, voided),
    )


def _kept(session: Session, game_id: int, voided: int) -> Kept:
    """The hands the next attempt at game `game_id`, after `voided` voided ones, keeps."""
    if not voided:
        return {}
    rows = session.exec(
        select(VoidedAttemptRow.record, VoidedAttemptRow.seats)
        .where(col(VoidedAttemptRow.game_id) == game_id)
        .order_by(col(VoidedAttemptRow.attempt))
    ).all()
    return kept_hands([_voided_result(record, seats) for record, seats in rows])


def _voided_result(record: str, seats: Iterable[dict[str, Any]]) -> GameResult:
    """A voided attempt's result from its stored record and seats."""
    return GameResult(GameRecord.from_json(record), tuple(SeatResult.from_json(s) for s in seats))


@writes
def commit_game(
    *, session: Session, game_id: int, result: GameResult, now: datetime | None = None, lease: str | None = None
) -> list[RatingUpdate]:
    """Store a finished game in ONE transaction: record, per-seat results, both ratings, history.

    The game must be running (`mark_game_running`); committing it again raises
    GameAlreadyFinished and changes nothing. A result that does not fit the scheduled game raises
    ResultMismatch. Ranks are recomputed from points and forfeits (forfeiters last) and must
    agree with the result's; every forfeited seat carries the failure policy's decision (FORFEIT
    or CAP_REACHED; a voided attempt goes to `void_attempt`), stored beside its cause so the game
    can be re-rated later. When it is the tournament's last game, the tournament finishes.
    Returns the rating changes, tournament scope first, each in seat order.

    With `lease` (a cluster node's claim token, `arena.storage.store.leases`), the game commits
    only while that claim holds: its first statement requires the token and an unexpired lease,
    so a node that lost the game commits nothing (LeaseLost). A retry of a commit of this claim
    that did take effect raises GameAlreadyFinished, as without a lease.

    Run on the session's DB-API cursor as statements compiled once (`prepared`): SQLAlchemy's
    per-statement overhead would otherwise be most of the time (docs/benchmarks.md).
    """
    moment = utc_now(now)
    record = result.record
    cursor = Cursor(session.connection())
    claim = {
        "game": game_id,
        "finished_at": moment,
        "record": record.to_json(),
        "end_reasons": [r.reason.name for r in record.results],
    }
    named = {f"bot{i}": s.bot for i, s in enumerate(result.seats)}
    try:
        # On PostgreSQL two round trips in all: BEGIN, the claim and the two locks are sent at once
        # (the locks find the game's tournament and bots without the claim's answer), then the
        # writes and COMMIT. The locks are taken in the same order as before (game, tournament,
        # ratings by id), so concurrent commits cannot deadlock. Under a lease, the wait between
        # the two is bounded by what is left of the lease (`_END_WITH_LEASE`).
        with cursor.pipeline():
            bounded = () if lease is None else ((_END_WITH_LEASE, {"game": game_id, "lease": lease}),)
            *_, claimed, locked, rating_rows = cursor.fetch_together(
                *bounded,
                (_CLAIM_GAME, claim) if lease is None else (_CLAIM_LEASED_GAME, {**claim, "lease": lease}),
                (_LOCK_TOURNAMENT, {"game": game_id}),
                (_lock_ratings(len(result.seats)), {"game": game_id, **named}),
                synced=lease is not None,
            )
            names = {row[_BOT]: row[_NAME] for row in rating_rows}
            seat_ids: list[int] = loaded(claimed[0][2]) if claimed else []
            seated = set(seat_ids) <= names.keys()
            if claimed and seated:
                tournament_id, seed, _ = claimed[0]
                ranks = _checked_ranks(game_id, result, tuple(names[b] for b in seat_ids), seed)
                _check_decisions(
                    game_id,
                    result,
                    (PolicyDecision.FORFEIT, PolicyDecision.CAP_REACHED, PolicyDecision.BOT_VOID_CAP_REACHED),
                )
                tournament_name, settings = locked[0]
                updates, rating_params, history_params = _rated(
                    game_id, result, ranks, rating_rows, (tournament_id, tournament_name)
                )
                cursor.execute(_NUMBER_GAME, {"game": game_id})
                cursor.write_rows(_UPDATE_RATINGS, rating_params)
                cursor.write_rows(_INSERT_HISTORY, history_params)
                cursor.write_rows(_INSERT_SEATS, _seat_rows(game_id, result, seat_ids))
                if STOP_RULE not in (loaded(settings) or {}):  # a stop-rule tournament finishes by `advance_stop_rule`
                    cursor.execute(_FINISH_TOURNAMENT, {"tournament": tournament_id, "finished_at": moment})
                cursor.commit_in_pipeline()
        if not claimed:
            raise _not_committable(session, game_id, lease)
        if not seated:  # the result names a bot that is not at the table
            session.rollback()
            raise _misseated(game_id, result, tuple(bot_names(session, seat_ids)[b] for b in seat_ids))
        cursor.close()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return updates


def _rated(
    game_id: int,
    result: GameResult,
    ranks: Mapping[str, int],
    rating_rows: Sequence[Any],
    tournament: tuple[int, str],
) -> tuple[list[RatingUpdate], list[dict[str, Any]], list[dict[str, Any]]]:
    """The game's rating changes, tournament scope then ladder, each in seat order, with the
    rating rows' new values and the history rows that record them."""
    seated = [s.bot for s in result.seats]
    points = {s.bot: s.points for s in result.seats}
    names = {row[_BOT]: row[_NAME] for row in rating_rows}
    env = arena_env()
    updates: list[RatingUpdate] = []
    rating_params: list[dict[str, Any]] = []
    history_params: list[dict[str, Any]] = []
    for scope_id, scope_name in (tournament, (None, None)):
        rows = {names[r[_BOT]]: r for r in rating_rows if r[_SCOPE] == scope_id}
        before = {name: Standing(name, *rows[name][_MU : _PLACING + 1]) for name in seated}
        after = apply_game(env, before, points, ranks)
        for name in seated:
            row, old, new = rows[name], before[name], after[name]
            rating_params.append(
                {
                    "rating": row[_ID],
                    "mu": new.mu,
                    "sigma": new.sigma,
                    "games": new.games,
                    "wins": new.wins,
                    "points": new.points,
                    "placings": new.placings,
                }
            )
            history_params.append(
                {
                    "game_id": game_id,
                    "bot_id": row[_BOT],
                    "tournament_id": scope_id,
                    "mu_before": old.mu,
                    "sigma_before": old.sigma,
                    "mu_after": new.mu,
                    "sigma_after": new.sigma,
                }
            )
            updates.append(RatingUpdate(name, scope_name, Rating(old.mu, old.sigma), Rating(new.mu, new.sigma)))
    return updates, rating_params, history_params


def _seat_rows(game_id: int, result: GameResult, seat_ids: list[int]) -> list[dict[str, Any]]:
    """The seat-result rows of a finished game."""
    return [
        {
            "game_id": game_id,
            "seat": s.seat,
            "bot_id": seat_ids[s.seat],
            "points": s.points,
            "rank": s.rank,
            "forfeit": s.forfeit,
            "forfeit_cause": None if s.cause is None else s.cause.value,
            "policy": None if s.policy is None else s.policy.value,
        }
        for s in result.seats
    ]


@writes
def void_attempt(
    *, session: Session, game_id: int, result: GameResult, now: datetime | None = None, lease: str | None = None
) -> int:
    """Store an attempt the failure policy voided (some seat's decision is VOID), with its seed,
    and put the game back to scheduled, to be played again (`mark_game_running` deals the replay),
    in ONE transaction.
    Nothing is rated. Returns how many attempts of the game are voided now.

    The game must be running; a result that does not fit it raises ResultMismatch. With `lease`
    (a cluster node's claim) only while the claim holds (else LeaseLost, nothing stored); the
    game is then claimable by any node.
    """
    try:
        claimed = session.exec(
            sa.update(GameRow)
            .where(col(GameRow.id) == game_id, col(GameRow.status) == GameStatus.RUNNING, *held(lease))
            .values(status=GameStatus.SCHEDULED, started_at=None, lease_expires=None)
            .returning(col(GameRow.attempts), col(GameRow.seed), col(GameRow.table_id))
        ).first()
        if claimed is None:
            raise _not_committable(session, game_id, lease)
        attempt, seed, table_id = claimed
        seats = session.exec(select(ScheduledTableRow.seats).where(col(ScheduledTableRow.id) == table_id)).one()
        names = bot_names(session, seats)
        _checked_ranks(game_id, result, tuple(names[b] for b in seats), seed)
        _check_decisions(
            game_id, result, (PolicyDecision.FORFEIT, PolicyDecision.VOID, PolicyDecision.BOT_VOID_CAP_REACHED)
        )
        if not result.voided:
            raise ResultMismatch(f"game {game_id}: no seat's failure voids the attempt: commit it instead")
        session.add(
            VoidedAttemptRow(
                game_id=game_id,
                attempt=attempt,
                seed=seed,
                record=result.record.to_json(),
                seats=[s.to_json() for s in result.seats],
                voided_at=utc_now(now),
            )
        )
        session.flush()
        voided = session.exec(select(sa.func.count()).where(col(VoidedAttemptRow.game_id) == game_id)).one()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return int(voided)


@writes
def mark_game_played(*, session: Session, game_id: int, now: datetime | None = None, lease: str | None = None) -> None:
    """Note that a running game finished playing and waits for its commit (`GameCounts.played`):
    its `finished_at` is set, its status stays running until `commit_game`. With `lease` (a
    cluster node's claim), LeaseLost if the claim no longer holds."""
    marked = session.exec(
        sa.update(GameRow)
        .where(col(GameRow.id) == game_id, col(GameRow.status) == GameStatus.RUNNING, *held(lease))
        .values(finished_at=utc_now(now))
    )
    session.commit()
    if lease is not None and marked.rowcount != 1:
        raise LeaseLost(f"game {game_id}: this node's lease on it is lost: it is not marked played")


@writes
def void_interrupted_games(*, session: Session, tournament: str | None = None) -> int:
    """Put every running game (of one tournament, if named) back to scheduled. Call it when nothing
    can be playing them: at start-up, or before a tournament's games are picked up again.

    An interrupted game left no record, results or ratings (they commit together), so it is
    simply played again, from the same deal. Returns how many games were voided.
    """
    query = sa.update(GameRow).where(col(GameRow.status) == GameStatus.RUNNING)
    if tournament is not None:
        query = query.where(col(GameRow.tournament_id) == tournament_row(session, tournament).id)
    try:
        voided = session.exec(query.values(status=GameStatus.SCHEDULED, started_at=None, finished_at=None))
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return int(voided.rowcount)


def list_games(
    *,
    session: Session,
    tournament: str | None = None,
    status: GameStatus | None = None,
    after: int | None = None,
    limit: int | None = None,
) -> list[GameInfo]:
    """Games, optionally of one tournament and in one state, in play order: every one, or at most
    `limit` after the game with id `after`."""
    query = keyset(
        session,
        _games_at_tables(),
        GameRow,
        (GameRow.tournament_id, GameRow.game_index, GameRow.table_index),
        after,
        limit,
    )
    if tournament is not None:
        tournament_row(session, tournament)
        query = query.where(col(TournamentRow.name) == tournament)
    if status is not None:
        query = query.where(col(GameRow.status) == status)
    return _game_infos(session, session.exec(query).all())


def show_game(*, session: Session, game_id: int) -> GameDetail:
    """One game with its record, for a replay or an export; its voided attempts once it is finished."""
    rows = session.exec(_games_at_tables().where(col(GameRow.id) == game_id)).all()
    if not rows:
        raise UnknownGame(f"there is no game {game_id}")
    game = rows[0][0]
    record = None if game.record is None else GameRecord.from_json(game.record)
    voided = (
        tuple(
            VoidedAttempt(
                row.attempt,
                row.voided_at,
                _voided_result(row.record, row.seats),
                row.seed,
            )
            for row in session.exec(
                select(VoidedAttemptRow)
                .where(col(VoidedAttemptRow.game_id) == game_id)
                .order_by(col(VoidedAttemptRow.attempt))
            )
        )
        if game.status is GameStatus.FINISHED
        else ()
    )
    return GameDetail(_game_infos(session, rows)[0], record, voided)


def voids_by_bot(*, session: Session, tournament: str) -> dict[str, int]:
    """How many voided attempts of `tournament` each bot caused (its seat's decision was VOID):
    what the failure policy's `max_voids_per_bot` counts, kept in the database so a restart
    does not reset it."""
    row = tournament_row(session, tournament)
    voided = session.exec(
        select(ScheduledTableRow.seats, VoidedAttemptRow.seats)
        .join(GameRow, col(VoidedAttemptRow.game_id) == GameRow.id)
        .join(ScheduledTableRow, col(GameRow.table_id) == ScheduledTableRow.id)
        .where(col(GameRow.tournament_id) == row.id)
    ).all()
    names = bot_names(session, (bot for table, _ in voided for bot in table))
    counts: dict[str, int] = {}
    for table, seats in voided:
        for seat in seats:
            if seat["policy"] == PolicyDecision.VOID.value:
                bot = names[table[seat["seat"]]]
                counts[bot] = counts.get(bot, 0) + 1
    return counts


def reveal_seeds(*, session: Session, tournament: str) -> SeedReveal:
    """The tournament's seed, nonce and commitment, and every game attempt's seed, whatever its
    state: for the organiser (an admin call), never a public read."""
    row = tournament_row(session, tournament)
    games = session.exec(
        select(GameRow.id, GameRow.table_index, GameRow.game_index, VOIDED)
        .where(col(GameRow.tournament_id) == row.id)
        .order_by(col(GameRow.game_index), col(GameRow.table_index))
    ).all()
    seeds = tuple(
        GameSeed(stored(game_id, "game id"), table, game, deal, attempt_seed(row.seed, table, game, deal))
        for game_id, table, game, voided in games
        for deal in range(1, voided + 2)
    )
    return SeedReveal(row.name, row.seed, row.seed_nonce, row.seed_commitment, seeds)


_CLAIM_GAME = Prepared(
    sa.update(_games)
    .where(_games.c.id == sa.bindparam("game"), _games.c.status == GameStatus.RUNNING)
    .values(
        status=GameStatus.FINISHED,
        finished_at=sa.bindparam("finished_at"),
        record=sa.bindparam("record"),
        end_reasons=sa.bindparam("end_reasons"),
    )
    .returning(
        _games.c.tournament_id,
        _games.c.seed,
        sa.select(_tables.c.seats).where(_tables.c.id == _games.c.table_id).scalar_subquery(),
    )
)


_CLAIM_LEASED_GAME = Prepared(
    sa.update(_games)
    .where(
        _games.c.id == sa.bindparam("game"),
        _games.c.status == GameStatus.RUNNING,
        _games.c.lease_token == sa.bindparam("lease"),
        _games.c.lease_expires > DATABASE_NOW,
    )
    .values(
        status=GameStatus.FINISHED,
        finished_at=sa.bindparam("finished_at"),
        record=sa.bindparam("record"),
        end_reasons=sa.bindparam("end_reasons"),
        lease_expires=None,
    )
    .returning(
        _games.c.tournament_id,
        _games.c.seed,
        sa.select(_tables.c.seats).where(_tables.c.id == _games.c.table_id).scalar_subquery(),
    )
)
"""`_CLAIM_GAME` for a cluster node: only while its lease holds (`arena.storage.store.leases`)."""

MIN_IDLE_MS = 1000
"""The least a leased commit may sit idle between its round trips (`_END_WITH_LEASE`), however little
of its lease is left."""

_END_WITH_LEASE = Prepared(
    sa.select(
        sa.func.set_config(
            "idle_in_transaction_session_timeout",
            sa.cast(
                sa.func.greatest(
                    MIN_IDLE_MS,
                    sa.cast(sa.extract("epoch", _games.c.lease_expires - DATABASE_NOW) * 1000, sa.Integer),
                ),
                sa.Text,
            ),
            True,
        )
    ).where(
        _games.c.id == sa.bindparam("game"),
        _games.c.lease_token == sa.bindparam("lease"),
        _games.c.lease_expires > DATABASE_NOW,
    )
)
"""Sent just before `_CLAIM_LEASED_GAME`, in the same round trip: the transaction may sit idle between
its two round trips only until the lease runs out, or MIN_IDLE_MS (the setting is the transaction's
own). A node frozen in between (SIGSTOP, a stalled host) has its session ended by PostgreSQL then,
which rolls the commit back and frees the game's row for the node that claims it next; without it,
the frozen node would hold the row locked, and commit after its lease had run out once it woke.
An expired lease sets nothing: its claim finds no row and the commit ends LeaseLost at once. The
floor is for a lease with milliseconds left: a timeout that short ended the session while the
client was still reading the first round trip's answers (CI under load), a connection error where
LeaseLost was due; a second more of the row lock only delays the next claim by that much."""

_GAME_TOURNAMENT = sa.select(_games.c.tournament_id).where(_games.c.id == sa.bindparam("game")).scalar_subquery()
"""The tournament of game `game`: what the commit's locks find it by, without the claim's answer."""

_LOCK_TOURNAMENT = Prepared(
    sa.select(_tournaments_t.c.name, _tournaments_t.c.settings)
    .where(_tournaments_t.c.id == _GAME_TOURNAMENT)
    .with_for_update()
)


_RATING_COLUMNS = (
    _ratings.c.id,
    _ratings.c.tournament_id,
    _ratings.c.bot_id,
    _ratings.c.mu,
    _ratings.c.sigma,
    _ratings.c.games,
    _ratings.c.wins,
    _ratings.c.total_points,
    _ratings.c.total_placing,
    _bots.c.name,
)
_ID, _SCOPE, _BOT, _MU, _SIGMA, _GAMES, _WINS, _POINTS, _PLACING, _NAME = range(len(_RATING_COLUMNS))
"""Where each of `_RATING_COLUMNS` is in a row of `_lock_ratings`."""


@cache
def _lock_ratings(seats: int) -> Prepared:
    """The rating rows, game `game`'s tournament's and the ladder's, of the bots a result names at
    a table of `seats` (parameters bot0, bot1, ... by name: one statement per table size, so it
    compiles once), locked in id order."""
    return Prepared(
        sa.select(*_RATING_COLUMNS)
        .join(_bots, _ratings.c.bot_id == _bots.c.id)
        .where(
            _bots.c.name.in_([sa.bindparam(f"bot{i}") for i in range(seats)]),
            sa.or_(_ratings.c.tournament_id == _GAME_TOURNAMENT, _ratings.c.tournament_id.is_(None)),
        )
        .order_by(_ratings.c.id)
        .with_for_update(of=_ratings)
    )


_NUMBER_GAME = Prepared(
    sa.update(_games)
    .where(_games.c.id == sa.bindparam("game"))
    .values(commit_seq=sa.select(sa.func.coalesce(sa.func.max(_games.c.commit_seq), 0) + 1).scalar_subquery())
)


_UPDATE_RATINGS = Rows(
    _ratings,
    {
        "mu": "mu",
        "sigma": "sigma",
        "games": "games",
        "wins": "wins",
        "points": "total_points",
        "placings": "total_placing",
    },
    key=("rating", "id"),
)

_history = table_of(RatingHistoryRow)
_INSERT_HISTORY = Rows(_history, {c.name: c.name for c in _history.c if c.name != "id"})

_seats = table_of(SeatResultRow)
_INSERT_SEATS = Rows(_seats, {c.name: c.name for c in _seats.c})


_FINISH_TOURNAMENT = Prepared(
    sa.update(_tournaments_t)
    .where(
        _tournaments_t.c.id == sa.bindparam("tournament"),
        _tournaments_t.c.status == TournamentStatus.RUNNING,
        # The unfinished states by name, not "!= finished": two seeks of the (tournament, status)
        # index instead of a walk over every finished game of the tournament.
        ~sa.exists().where(
            _games.c.tournament_id == _tournaments_t.c.id,
            sa.or_(_games.c.status == GameStatus.SCHEDULED, _games.c.status == GameStatus.RUNNING),
        ),
    )
    .values(status=TournamentStatus.FINISHED, finished_at=sa.bindparam("finished_at"))
)


def _to_play(
    game: GameRow, seats: list[int], tournament: str, limit_ms: int, voided: int, names: Mapping[int, str]
) -> GameToPlay:
    assert game.id is not None
    return GameToPlay(
        id=game.id,
        tournament=tournament,
        table_index=game.table_index,
        game_index=game.game_index,
        seed=game.seed,
        seats=tuple(names[b] for b in seats),
        move_limit_ms=limit_ms,
        voided=voided,
    )


def _game_infos(session: Session, rows: Iterable[tuple[GameRow, list[int], str]]) -> list[GameInfo]:
    rows = list(rows)
    names = bot_names(session)
    finished = [game.id for game, _, _ in rows if game.status is GameStatus.FINISHED]
    results: dict[int, list[SeatResult]] = {}
    for seat in session.exec(
        select(SeatResultRow)
        .where(col(SeatResultRow.game_id).in_(finished))
        .order_by(col(SeatResultRow.game_id), col(SeatResultRow.seat))
    ):
        results.setdefault(seat.game_id, []).append(
            SeatResult(
                seat.seat,
                names[seat.bot_id],
                seat.points,
                seat.rank,
                seat.forfeit,
                None if seat.forfeit_cause is None else ForfeitCause(seat.forfeit_cause),
                None if seat.policy is None else PolicyDecision(seat.policy),
            )
        )
    out = []
    for game, seats, tournament in rows:
        assert game.id is not None
        out.append(
            GameInfo(
                id=game.id,
                tournament=tournament,
                table_index=game.table_index,
                game_index=game.game_index,
                seed=game.seed if game.status is GameStatus.FINISHED else None,
                status=game.status,
                attempts=game.attempts,
                seats=tuple(names[b] for b in seats),
                started_at=game.started_at,
                finished_at=game.finished_at if game.status is GameStatus.FINISHED else None,
                end_reasons=tuple(game.end_reasons or ()),
                results=tuple(results.get(game.id, ())),
            )
        )
    return out


def _not_committable(session: Session, game_id: int, lease: str | None = None) -> Exception:
    """Why `commit_game` (or `void_attempt`) could not claim the game (read after rolling the
    claim back). With a `lease`, anything but this claim's own earlier commit is a lost lease."""
    session.rollback()
    found = session.exec(select(GameRow.status, GameRow.lease_token).where(col(GameRow.id) == game_id)).first()
    if found is None:
        return UnknownGame(f"there is no game {game_id}")
    status, token = GameStatus(found[0]), found[1]
    if lease is not None and not (status is GameStatus.FINISHED and token == lease):
        return LeaseLost(
            f"game {game_id} is {status.value} and this node's lease on it is lost: nothing was stored, "
            "another node plays it"
        )
    if status is GameStatus.FINISHED:
        return GameAlreadyFinished(f"game {game_id} is already finished: refused, so nothing counts twice")
    return GameNotRunning(f"game {game_id} is {status.value}: mark it running before committing it")


def _checked_ranks(game_id: int, result: GameResult, seated: tuple[str, ...], seed: int) -> dict[str, int]:
    """The ranks the result must have, by bot; ResultMismatch names the first thing that is off."""
    record = result.record
    if tuple(s.bot for s in result.seats) != seated:
        raise _misseated(game_id, result, seated)
    problem = None
    if tuple(s.seat for s in result.seats) != tuple(range(len(seated))):
        problem = "results must list seats 0.. in order"
    elif record.players != len(seated):
        problem = f"the record is of a {record.players}-player game at a {len(seated)}-seat table"
    elif record.seed != seed:
        # No seed in the text: a failed tournament's reason is public while its deals are secret.
        problem = "the record was not dealt from the game's seed"
    elif len(record.results) != record.players:
        problem = f"the record has {len(record.results)} of {record.players} rounds: the game is unfinished"
    elif tuple(s.points for s in result.seats) != record.totals:
        points = tuple(s.points for s in result.seats)
        problem = f"points {points} differ from the record's totals {record.totals}"
    if problem is None:
        expected = final_ranks(record.totals, [s.forfeit is not None for s in result.seats])
        if tuple(s.rank for s in result.seats) != expected:
            problem = f"ranks {tuple(s.rank for s in result.seats)} should be {expected}"
        else:
            return dict(zip(seated, expected, strict=True))
    raise ResultMismatch(f"game {game_id}: {problem}")


def _misseated(game_id: int, result: GameResult, seated: tuple[str, ...]) -> ResultMismatch:
    return ResultMismatch(f"game {game_id}: seats {tuple(s.bot for s in result.seats)} are not the scheduled {seated}")


def _check_decisions(game_id: int, result: GameResult, allowed: tuple[PolicyDecision, ...]) -> None:
    """ResultMismatch unless every forfeited seat carries one of the `allowed` policy decisions."""
    for s in result.seats:
        if s.forfeit is not None and s.policy not in allowed:
            expected = " or ".join(d.value for d in allowed)
            raise ResultMismatch(
                f"game {game_id}: forfeited seat {s.seat} needs the failure policy's decision ({expected}), "
                f"not {None if s.policy is None else s.policy.value}"
            )
