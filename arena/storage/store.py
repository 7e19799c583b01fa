"""Everything the arena keeps: bots, tournaments, the schedule, games, results and ratings.

Every function is keyword-only, takes the `Session` to work in, commits its own transaction (or
rolls it back and raises a specific `arena.errors.ArenaError`), and returns frozen domain values,
never table rows. `now` parameters default to the current UTC time; pass an aware datetime.

Concurrency: state changes start with a conditional UPDATE that claims the row ("scheduled ->
running", "running -> finished"), so two callers can never both succeed, and it is the first
statement of its transaction, so SQLite takes its write lock (waiting out the busy timeout) before
reading anything. On PostgreSQL, `commit_game` also locks the tournament row and the rating rows
it updates (in id order), so concurrent commits neither lose an update nor deadlock, and its
`commit_seq` numbers games in the order their ratings were applied: `recompute_ratings` replays
that order.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from arena.api.pages import InvalidPage
from arena.directory import new_token, token_hash
from arena.errors import (
    AlreadyEntered,
    DuplicateName,
    EntriesClosed,
    GameAlreadyFinished,
    GameNotRunning,
    GameNotScheduled,
    InvalidBootstrap,
    InvalidSetting,
    NotEnoughEntrants,
    ResultMismatch,
    TournamentAlreadyStarted,
    TournamentFailed,
    UnknownBot,
    UnknownGame,
    UnknownTournament,
)
from arena.names import check_name, shown
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult, final_ranks
from arena.ratings.head_to_head import Crosstable, crosstable
from arena.ratings.played_games import PlayedGame
from arena.ratings.rank_confidence import max_resamples, with_bootstrap, with_confidence
from arena.ratings.table import Rating, RatingRow, Standing, apply_game, arena_env
from arena.ratings.table import rating_table as _table
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    EntryRow,
    GameRow,
    GameStatus,
    RatingHistoryRow,
    ScheduledTableRow,
    SeatResultRow,
    TournamentRow,
    TournamentStatus,
    VoidedAttemptRow,
)
from arena.tournaments import entries as entry_rules
from arena.tournaments.fairness import attempt_seed, commitment, new_nonce
from arena.tournaments.schedule import (
    MAX_TABLE_SIZE,
    MIN_TABLE_SIZE,
    Schedule,
    Table,
    game_seed,
    round_robin,
    round_seed,
    schedule_seed,
    table_count,
)
from arena.tournaments.stop_rule import Evidence, Outcome, StopRule, Verdict
from sdk.engine import GameRecord

__all__ = [
    "Bot",
    "GameCounts",
    "GameDetail",
    "GameInfo",
    "GameSeed",
    "GameStatus",
    "GameToPlay",
    "RatingUpdate",
    "Registration",
    "SeedReveal",
    "Tournament",
    "TournamentStatus",
    "VoidedAttempt",
    "advance_stop_rule",
    "authenticate",
    "commit_game",
    "create_tournament",
    "due_tournaments",
    "enter_tournament",
    "fail_tournament",
    "head_to_head",
    "list_bots",
    "list_games",
    "list_tournaments",
    "mark_game_running",
    "next_games",
    "played_games",
    "rating_table",
    "recompute_ratings",
    "register_bot",
    "reveal_seeds",
    "show_game",
    "show_schedule",
    "show_tournament",
    "start_tournament",
    "void_attempt",
    "void_interrupted_games",
    "voids_by_bot",
]

MAX_FAILURE_LENGTH = 300
"""A failed tournament's reason is cut to this many characters."""
_SEED_LIMIT = 1 << 63
"""Seeds are stored in signed 64-bit columns."""


# -- domain values ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot."""

    id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Registration:
    """A new bot and its token: the only time the plaintext token is available."""

    bot: Bot
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
    `seed_commitment` is public (`arena.tournaments.fairness`), so no deal can be foreseen (DESIGN.md
    boundary 2). `reveal_seeds` gives them to the organiser earlier.
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
    failure_policy: dict[str, Any] | None
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
    by one dealt afresh (`arena.tournaments.fairness.attempt_seed`)."""

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


# -- bots -----------------------------------------------------------------------------------------


def register_bot(*, session: Session, name: str, now: datetime | None = None) -> Registration:
    """Register a bot and return its token, once: only the token's SHA-256 is stored."""
    check_name(name, "bot")
    if session.exec(select(BotRow.id).where(BotRow.name == name)).first() is not None:
        raise DuplicateName(f"a bot named {name!r} already exists")
    token = new_token()
    env = arena_env()
    row = BotRow(name=name, token_hash=token_hash(token), created_at=_now(now))
    try:
        session.add(row)
        session.flush()
        assert row.id is not None
        session.add(BotRatingRow(tournament_id=None, bot_id=row.id, mu=env.mu, sigma=env.sigma))
        session.commit()
    except IntegrityError:
        session.rollback()
        raise DuplicateName(f"a bot named {name!r} already exists") from None
    return Registration(_bot(row), token)


def authenticate(*, session: Session, token: str) -> Bot | None:
    """The bot whose token this is, or None."""
    row = session.exec(select(BotRow).where(BotRow.token_hash == token_hash(token))).first()
    return None if row is None else _bot(row)


def list_bots(*, session: Session, after: int | None = None, limit: int | None = None) -> list[Bot]:
    """Registered bots, by name: every one, or at most `limit` after the bot with id `after`."""
    query = _keyset(session, select(BotRow), BotRow, (BotRow.name,), after, limit)
    return [_bot(row) for row in session.exec(query)]


# -- tournaments ----------------------------------------------------------------------------------


def create_tournament(
    *,
    session: Session,
    name: str,
    table_size: int,
    games_per_table: int,
    starts_at: datetime,
    move_limit_ms: int,
    concurrency: int = 1,
    seed: int | None = None,
    failure_policy: Mapping[str, Any] | None = None,
    rounds: int | None = None,
    max_entrants: int | None = None,
    entry_code: str | None = None,
    stop_rule: StopRule | None = None,
    now: datetime | None = None,
) -> Tournament:
    """Create a scheduled tournament, open for entries until it starts.

    With a `stop_rule` it plays its schedule round after round (`advance_stop_rule`); the rule is
    kept in the stored settings beside the failure policy (key "stop_rule"), so the schema stays.

    A start time in the past is allowed: the tournament is due at once. Without a seed one is
    drawn at random; it is stored, so the schedule and every deal can be reproduced, with a
    fresh nonce for its public commitment. `rounds`,
    `max_entrants` and `entry_code` are as `arena.tournaments.entries` describes (None: a full round robin,
    the arena's largest field, open to every bot).
    """
    check_name(name, "tournament")
    if not MIN_TABLE_SIZE <= table_size <= MAX_TABLE_SIZE:
        raise InvalidSetting(f"table size must be {MIN_TABLE_SIZE} to {MAX_TABLE_SIZE} players, not {table_size}")
    if games_per_table < 1:
        raise InvalidSetting(f"games per table must be at least 1, not {games_per_table}")
    if move_limit_ms <= 0:
        raise InvalidSetting(f"the per-move time limit must be positive, not {move_limit_ms} ms")
    if concurrency < 1:
        raise InvalidSetting(f"concurrency must be at least 1 game, not {concurrency}")
    entry_rules.check_format(table_size, games_per_table, rounds, _game_limit(stop_rule))
    cap = entry_rules.resolve_max_entrants(max_entrants, table_size)
    code = entry_rules.code_hash(entry_code)
    if starts_at.tzinfo is None:
        raise InvalidSetting("the start time must include a time zone (e.g. UTC)")
    if seed is None:
        seed = secrets.randbelow(_SEED_LIMIT)
    elif not 0 <= seed < _SEED_LIMIT:
        raise InvalidSetting(f"the seed must be between 0 and 2**63-1, not {seed}")
    nonce = new_nonce()
    policy = None if failure_policy is None else dict(failure_policy)
    if stop_rule is not None:
        policy = {**(policy or {}), _STOP_RULE: stop_rule.to_json()}
    try:
        json.dumps(policy)
    except (TypeError, ValueError) as exc:
        raise InvalidSetting(f"the failure policy must be plain JSON: {exc}") from None
    if session.exec(select(TournamentRow.id).where(TournamentRow.name == name)).first() is not None:
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
        failure_policy=policy,
        rounds=rounds,
        max_entrants=cap,
        entry_code_hash=code,
        created_at=_now(now),
    )
    try:
        session.add(row)
        session.commit()
    except IntegrityError:
        session.rollback()
        raise DuplicateName(f"a tournament named {name!r} already exists") from None
    return show_tournament(session=session, tournament=name)


def enter_tournament(
    *, session: Session, tournament: str, bot: str, entry_code: str | None = None, now: datetime | None = None
) -> None:
    """Enter `bot` in `tournament`; only while the tournament has not started, with its entry code
    if it is invite-only (EntryCodeRefused), and while its field has room (TournamentFull)."""
    try:
        row = _tournament_row(session, tournament, lock=True, exclusive=True)
        bot_id = _bot_id(session, bot)
        if row.status is TournamentStatus.FAILED:
            raise TournamentFailed(f"tournament {tournament!r} failed: {row.failure}")
        if row.status is not TournamentStatus.SCHEDULED:
            raise EntriesClosed(f"tournament {tournament!r} has started: entries are closed")
        if session.get(EntryRow, (row.id, bot_id)) is not None:
            raise AlreadyEntered(f"bot {bot!r} is already entered in tournament {tournament!r}")
        entry_rules.check_code(tournament, row.entry_code_hash, entry_code)
        field = dict(
            table_size=row.table_size,
            games_per_table=row.games_per_table,
            rounds=row.rounds,
            max_entrants=row.max_entrants,
            limit=_game_limit(_settings(row)[1]),
        )
        entered = sa.select(sa.func.count()).select_from(EntryRow).where(EntryRow.tournament_id == row.id)
        entry_rules.check_room(tournament, session.exec(entered).one()[0] + 1, **field)
        # One statement, so SQLite cannot let a start or another entry slip in between the checks
        # and the insert.
        still_open = sa.exists().where(
            TournamentRow.id == row.id, TournamentRow.status == TournamentStatus.SCHEDULED
        ) & (entered.scalar_subquery() < entry_rules.capacity(**field))
        entered_at = sa.literal(_now(now), EntryRow.__table__.c.entered_at.type)  # type: ignore[attr-defined]
        inserted = session.exec(
            sa.insert(EntryRow)
            .from_select(
                ["tournament_id", "bot_id", "entered_at"],
                sa.select(sa.literal(row.id), sa.literal(bot_id), entered_at).where(still_open),
            )
            .returning(EntryRow.bot_id)
        ).first()
        if inserted is None:
            if _tournament_row(session, tournament).status is TournamentStatus.SCHEDULED:  # filled meanwhile
                entry_rules.check_room(tournament, session.exec(entered).one()[0] + 1, **field)
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
        .where(TournamentRow.status == TournamentStatus.SCHEDULED, TournamentRow.starts_at <= _now(now))
        .order_by(TournamentRow.starts_at, TournamentRow.id)
    )
    return list(rows)


def start_tournament(*, session: Session, tournament: str, now: datetime | None = None) -> Tournament:
    """Close entries, generate and store the schedule and every game with its seed.

    Needs at least `table_size` entrants. The schedule is drawn from a hash of the tournament
    seed (`arena.tournaments.schedule.schedule_seed`), each game's seed from the tournament seed and its place
    in the schedule (`arena.tournaments.schedule.game_seed`).
    """
    moment = _now(now)
    try:
        claimed = session.exec(
            sa.update(TournamentRow)
            .where(TournamentRow.name == tournament, TournamentRow.status == TournamentStatus.SCHEDULED)
            .values(status=TournamentStatus.RUNNING, started_at=moment)
        )
        if claimed.rowcount != 1:
            row = _tournament_row(session, tournament)
            if row.status is TournamentStatus.FAILED:
                raise TournamentFailed(f"tournament {tournament!r} failed: {row.failure}")
            raise TournamentAlreadyStarted(f"tournament {tournament!r} is already {row.status.value}")
        row = _tournament_row(session, tournament)
        assert row.id is not None
        entrants = dict(
            session.exec(select(BotRow.name, BotRow.id).join(EntryRow).where(EntryRow.tournament_id == row.id)).all()
        )
        if len(entrants) < row.table_size:
            raise NotEnoughEntrants(
                f"tournament {tournament!r} has {len(entrants)} entrants; "
                f"a {row.table_size}-seat table needs at least {row.table_size}"
            )
        entry_rules.check_room(
            tournament,
            len(entrants),
            table_size=row.table_size,
            games_per_table=row.games_per_table,
            rounds=row.rounds,
            max_entrants=row.max_entrants,
            limit=_game_limit(_settings(row)[1]),
        )
        _schedule_round(session, row, entrants, 0)
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
    return show_tournament(session=session, tournament=tournament)


def _schedule_round(session: Session, row: TournamentRow, entrants: Mapping[str, int], round_index: int) -> None:
    """Store round `round_index` of the schedule (the whole schedule, but for a stop-rule
    tournament's later rounds) and its games with their seeds; table indices go on from the
    rounds before, so every game's seed (`game_seed`) is fresh."""
    schedule = round_robin(list(entrants), row.table_size, round_seed(schedule_seed(row.seed), round_index), row.rounds)
    first = round_index * len(schedule.tables)
    table_ids = (
        session.exec(
            sa.insert(ScheduledTableRow).returning(ScheduledTableRow.id, sort_by_parameter_order=True),
            params=[
                {
                    "tournament_id": row.id,
                    "table_index": first + index,
                    "seats": [entrants[name] for name in table.seats],
                    "games_per_table": row.games_per_table,
                }
                for index, table in enumerate(schedule.tables)
            ],
        )
        .scalars()
        .all()
    )
    session.exec(
        sa.insert(GameRow),
        params=[
            {
                "tournament_id": row.id,
                "table_id": table_id,
                "table_index": first + index,
                "game_index": game,
                "seed": game_seed(row.seed, first + index, game),
                "status": GameStatus.SCHEDULED,
                "attempts": 0,
            }
            for game in range(row.games_per_table)
            for index, table_id in enumerate(table_ids)
        ],
    )


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
            .where(TournamentRow.name == tournament, TournamentRow.status == TournamentStatus.RUNNING)
            .values(status=TournamentStatus.RUNNING)
        )
        row = _tournament_row(session, tournament)
        rule = _settings(row)[1]
        if rule is None:
            raise InvalidSetting(f"tournament {tournament!r} has no stop rule")
        if claimed.rowcount != 1:
            raise TournamentAlreadyStarted(f"tournament {tournament!r} is {row.status.value}, not running")
        verdict, entrants, open_games = _stop_verdict(session, row, rule)
        if open_games:
            session.rollback()
            return verdict
        if verdict.outcome is Outcome.PLAYING:
            _schedule_round(session, row, entrants, verdict.rounds)
        else:
            session.exec(
                sa.update(TournamentRow)
                .where(TournamentRow.id == row.id)
                .values(status=TournamentStatus.FINISHED, finished_at=_now(now))
            )
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return verdict


def _stop_verdict(session: Session, row: TournamentRow, rule: StopRule) -> tuple[Verdict, dict[str, int], int]:
    """The stop rule's verdict after the tournament's complete rounds, the entrants (name to id)
    and how many of its games are not finished. The rating order is the tournament's ratings after
    the last game of those rounds (from the rating history), so a round in play changes nothing."""
    entrants = dict(
        session.exec(select(BotRow.name, BotRow.id).join(EntryRow).where(EntryRow.tournament_id == row.id)).all()
    )
    per_round = table_count(len(entrants), row.table_size, row.rounds)
    round_games = per_round * row.games_per_table
    names = {bot_id: name for name, bot_id in entrants.items()}
    games: dict[int, dict[str, int]] = {}
    tables: dict[int, int] = {}
    for game_id, table_index, bot_id, rank in session.exec(
        select(GameRow.id, GameRow.table_index, SeatResultRow.bot_id, SeatResultRow.rank)
        .join(SeatResultRow, SeatResultRow.game_id == GameRow.id)
        .where(GameRow.tournament_id == row.id, GameRow.status == GameStatus.FINISHED)
    ):
        games.setdefault(game_id, {})[names[bot_id]] = rank
        tables[game_id] = table_index
    open_games = session.exec(
        select(sa.func.count())
        .select_from(GameRow)
        .where(GameRow.tournament_id == row.id, GameRow.status != GameStatus.FINISHED)
    ).one()
    by_round: dict[int, list[dict[str, int]]] = {}
    for game_id, ranks in games.items():
        by_round.setdefault(tables[game_id] // per_round, []).append(ranks)
    evidence = Evidence(rule, list(entrants))
    while len(by_round.get(evidence.rounds, ())) == round_games:
        evidence.add_round(by_round[evidence.rounds])
    env = arena_env()
    latest: dict[str, tuple[int, float, float]] = {}
    for bot_id, mu, sigma, seq in session.exec(
        select(RatingHistoryRow.bot_id, RatingHistoryRow.mu_after, RatingHistoryRow.sigma_after, GameRow.commit_seq)
        .join(GameRow, RatingHistoryRow.game_id == GameRow.id)
        .where(RatingHistoryRow.tournament_id == row.id, GameRow.table_index < evidence.rounds * per_round)
    ):
        name = names[bot_id]
        if name not in latest or seq > latest[name][0]:
            latest[name] = (seq, mu, sigma)
    standings = [
        Standing(name, *latest[name][1:]) if name in latest else Standing(name, env.mu, env.sigma) for name in entrants
    ]
    order = [r.bot for r in _table(standings)]
    return evidence.verdict(order, round_games), entrants, int(open_games)


def fail_tournament(*, session: Session, tournament: str, reason: str, now: datetime | None = None) -> bool:
    """Mark a scheduled or running tournament failed, with `reason` (one line, kept short): it is
    neither started nor played again. False if it had already finished or failed."""
    line = " ".join(reason.split())[:MAX_FAILURE_LENGTH] or "unknown error"
    failed = session.exec(
        sa.update(TournamentRow)
        .where(
            TournamentRow.name == tournament,
            TournamentRow.status.in_((TournamentStatus.SCHEDULED, TournamentStatus.RUNNING)),
        )  # type: ignore[attr-defined]
        .values(status=TournamentStatus.FAILED, failure=line, finished_at=_now(now))
    )
    session.commit()
    return bool(failed.rowcount)


def list_tournaments(*, session: Session, after: int | None = None, limit: int | None = None) -> list[Tournament]:
    """Tournaments by start time: every one, or at most `limit` after the one with id `after`."""
    order = (TournamentRow.starts_at, TournamentRow.id)
    rows = session.exec(_keyset(session, select(TournamentRow), TournamentRow, order, after, limit)).all()
    return _tournaments(session, rows)


def show_tournament(*, session: Session, tournament: str) -> Tournament:
    """One tournament with its entrants and progress, and a started stop-rule tournament's verdict."""
    row = _tournament_row(session, tournament)
    shown_ = _tournaments(session, [row])[0]
    if shown_.stop_rule is None or row.status is TournamentStatus.SCHEDULED:
        return shown_
    return replace(shown_, stop=_stop_verdict(session, row, shown_.stop_rule)[0])


def show_schedule(*, session: Session, tournament: str) -> Schedule:
    """The stored schedule of a started tournament (no tables before it starts)."""
    row = _tournament_row(session, tournament)
    names = _bot_names(session)
    seats = session.exec(
        select(ScheduledTableRow.seats)
        .where(ScheduledTableRow.tournament_id == row.id)
        .order_by(ScheduledTableRow.table_index)
    ).all()
    entrants = session.exec(
        select(BotRow.name).join(EntryRow).where(EntryRow.tournament_id == row.id).order_by(BotRow.name)
    ).all()
    return Schedule(row.table_size, tuple(entrants), tuple(Table(tuple(names[b] for b in s)) for s in seats))


# -- games ----------------------------------------------------------------------------------------


def next_games(*, session: Session, tournament: str | None = None, limit: int | None = None) -> list[GameToPlay]:
    """Games waiting to be played in running tournaments, in the order to play them.

    Each table's first game comes before any table's second, so a tournament stopped part way
    has spread its games evenly. Oldest tournaments first.
    """
    query = (
        select(GameRow, ScheduledTableRow.seats, TournamentRow.name, TournamentRow.move_limit_ms, _VOIDED)
        .join(TournamentRow, GameRow.tournament_id == TournamentRow.id)
        .join(ScheduledTableRow, GameRow.table_id == ScheduledTableRow.id)
        .where(GameRow.status == GameStatus.SCHEDULED, TournamentRow.status == TournamentStatus.RUNNING)
        .order_by(GameRow.tournament_id, GameRow.game_index, GameRow.table_index)
    )
    if tournament is not None:
        _tournament_row(session, tournament)
        query = query.where(TournamentRow.name == tournament)
    if limit is not None:
        query = query.limit(limit)
    rows = session.exec(query).all()
    names = _bot_names(session)
    return [_to_play(game, seats, name, limit_ms, voided, names) for game, seats, name, limit_ms, voided in rows]


def mark_game_running(*, session: Session, game_id: int, now: datetime | None = None) -> GameToPlay:
    """Claim a scheduled game for play: it becomes running, its attempt count goes up, and its
    seed becomes the deal after its voided attempts (`arena.tournaments.fairness.attempt_seed` of deal
    voided + 1), returned with it."""
    try:
        running_tournament = sa.exists().where(
            TournamentRow.id == GameRow.tournament_id, TournamentRow.status == TournamentStatus.RUNNING
        )
        claimed = session.exec(
            sa.update(GameRow)
            .where(GameRow.id == game_id, GameRow.status == GameStatus.SCHEDULED, running_tournament)
            .values(status=GameStatus.RUNNING, started_at=_now(now), attempts=GameRow.attempts + 1)
        )
        if claimed.rowcount != 1:
            game = session.get(GameRow, game_id)
            if game is None:
                raise UnknownGame(f"there is no game {game_id}")
            raise GameNotScheduled(f"game {game_id} is {game.status.value}, not waiting to be played")
        game, seats, name, limit_ms, voided, tournament_seed = session.exec(
            select(
                GameRow,
                ScheduledTableRow.seats,
                TournamentRow.name,
                TournamentRow.move_limit_ms,
                _VOIDED,
                TournamentRow.seed,
            )
            .join(TournamentRow, GameRow.tournament_id == TournamentRow.id)
            .join(ScheduledTableRow, GameRow.table_id == ScheduledTableRow.id)
            .where(GameRow.id == game_id)
        ).one()
        # After each void the game is dealt afresh: what a bot saw of the voided deal, or made
        # happen by failing, tells nothing of this one. An interrupted attempt is dealt again.
        game.seed = attempt_seed(tournament_seed, game.table_index, game.game_index, voided + 1)
        to_play = _to_play(game, seats, name, limit_ms, voided, _bot_names(session))
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return to_play


def commit_game(
    *, session: Session, game_id: int, result: GameResult, now: datetime | None = None
) -> list[RatingUpdate]:
    """Store a finished game in ONE transaction: record, per-seat results, both ratings, history.

    The game must be running (`mark_game_running`); committing it again raises
    GameAlreadyFinished and changes nothing. A result that does not fit the scheduled game raises
    ResultMismatch. Ranks are recomputed from points and forfeits (forfeiters last) and must
    agree with the result's; every forfeited seat carries the failure policy's decision (FORFEIT
    or CAP_REACHED; a voided attempt goes to `void_attempt`), stored beside its cause so the game
    can be re-rated later. When it is the tournament's last game, the tournament finishes.
    Returns the rating changes, tournament scope first, each in seat order.

    Written with prepared Core statements on the session's connection: the ORM's per-statement
    overhead would otherwise be most of the time (FACTS.md).
    """
    moment = _now(now)
    record = result.record
    connection = session.connection()
    try:
        claimed = connection.execute(
            _CLAIM_GAME,
            {
                "game": game_id,
                "finished_at": moment,
                "record": record.to_json(),
                "end_reasons": [r.reason.name for r in record.results],
            },
        ).first()
        if claimed is None:
            raise _not_committable(session, game_id)
        tournament_id, seed, seat_ids = claimed
        tournament_name, settings = connection.execute(_LOCK_TOURNAMENT, {"tournament": tournament_id}).one()
        rating_rows = connection.execute(_LOCK_RATINGS, {"tournament": tournament_id, "bots": seat_ids}).all()
        names = {row.bot_id: row.name for row in rating_rows}
        seated = tuple(names[b] for b in seat_ids)
        ranks = _checked_ranks(game_id, result, seated, seed)
        _check_decisions(
            game_id, result, (PolicyDecision.FORFEIT, PolicyDecision.CAP_REACHED, PolicyDecision.BOT_VOID_CAP_REACHED)
        )
        points = {s.bot: s.points for s in result.seats}
        env = arena_env()
        updates: list[RatingUpdate] = []
        rating_params: list[dict[str, Any]] = []
        history_params: list[dict[str, Any]] = []
        for scope_id, scope_name in ((tournament_id, tournament_name), (None, None)):
            rows = {names[r.bot_id]: r for r in rating_rows if r.tournament_id == scope_id}
            before = {
                name: Standing(name, r.mu, r.sigma, r.games, r.wins, r.total_points, r.total_placing)
                for name, r in ((name, rows[name]) for name in seated)
            }
            after = apply_game(env, before, points, ranks)
            for name in seated:
                row, old, new = rows[name], before[name], after[name]
                rating_params.append(
                    {
                        "rating": row.id,
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
                        "bot_id": row.bot_id,
                        "tournament_id": scope_id,
                        "mu_before": old.mu,
                        "sigma_before": old.sigma,
                        "mu_after": new.mu,
                        "sigma_after": new.sigma,
                    }
                )
                updates.append(RatingUpdate(name, scope_name, Rating(old.mu, old.sigma), Rating(new.mu, new.sigma)))
        connection.execute(_NUMBER_GAME, {"game": game_id})
        connection.execute(_UPDATE_RATING, rating_params)
        connection.execute(_INSERT_HISTORY, history_params)
        connection.execute(
            _INSERT_SEATS,
            [
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
            ],
        )
        if _STOP_RULE not in (settings or {}):  # a stop-rule tournament finishes by `advance_stop_rule`
            connection.execute(_FINISH_TOURNAMENT, {"tournament": tournament_id, "finished_at": moment})
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return updates


def void_attempt(*, session: Session, game_id: int, result: GameResult, now: datetime | None = None) -> int:
    """Store an attempt the failure policy voided (some seat's decision is VOID), with its seed,
    and put the game back to scheduled, to be played again from a fresh deal, in ONE transaction.
    Nothing is rated. Returns how many attempts of the game are voided now.

    The game must be running; a result that does not fit it raises ResultMismatch.
    """
    try:
        claimed = session.exec(
            sa.update(GameRow)
            .where(GameRow.id == game_id, GameRow.status == GameStatus.RUNNING)
            .values(status=GameStatus.SCHEDULED, started_at=None)
            .returning(GameRow.attempts, GameRow.seed, GameRow.table_id)
        ).first()
        if claimed is None:
            raise _not_committable(session, game_id)
        attempt, seed, table_id = claimed
        seats = session.exec(select(ScheduledTableRow.seats).where(ScheduledTableRow.id == table_id)).one()
        names = _bot_names(session)
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
                voided_at=_now(now),
            )
        )
        session.flush()
        voided = session.exec(select(sa.func.count()).where(VoidedAttemptRow.game_id == game_id)).one()
        session.commit()
    except BaseException:
        session.rollback()
        raise
    return int(voided)


def mark_game_played(*, session: Session, game_id: int, now: datetime | None = None) -> None:
    """Note that a running game finished playing and waits for its commit (`GameCounts.played`):
    its `finished_at` is set, its status stays running until `commit_game`."""
    session.exec(
        sa.update(GameRow)
        .where(GameRow.id == game_id, GameRow.status == GameStatus.RUNNING)
        .values(finished_at=_now(now))
    )
    session.commit()


def void_interrupted_games(*, session: Session, tournament: str | None = None) -> int:
    """Put every running game (of one tournament, if named) back to scheduled. Call it when nothing
    can be playing them: at start-up, or before a tournament's games are picked up again.

    An interrupted game left no record, results or ratings (they commit together), so it is
    simply played again, from the same deal. Returns how many games were voided.
    """
    query = sa.update(GameRow).where(GameRow.status == GameStatus.RUNNING)
    if tournament is not None:
        query = query.where(GameRow.tournament_id == _tournament_row(session, tournament).id)
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
    query = _keyset(
        session,
        select(GameRow, ScheduledTableRow.seats, TournamentRow.name)
        .join(TournamentRow, GameRow.tournament_id == TournamentRow.id)
        .join(ScheduledTableRow, GameRow.table_id == ScheduledTableRow.id),
        GameRow,
        (GameRow.tournament_id, GameRow.game_index, GameRow.table_index),
        after,
        limit,
    )
    if tournament is not None:
        _tournament_row(session, tournament)
        query = query.where(TournamentRow.name == tournament)
    if status is not None:
        query = query.where(GameRow.status == status)
    return _game_infos(session, session.exec(query).all())


def show_game(*, session: Session, game_id: int) -> GameDetail:
    """One game with its record, for a replay or an export; its voided attempts once it is finished."""
    rows = session.exec(
        select(GameRow, ScheduledTableRow.seats, TournamentRow.name)
        .join(TournamentRow, GameRow.tournament_id == TournamentRow.id)
        .join(ScheduledTableRow, GameRow.table_id == ScheduledTableRow.id)
        .where(GameRow.id == game_id)
    ).all()
    if not rows:
        raise UnknownGame(f"there is no game {game_id}")
    game = rows[0][0]
    record = None if game.record is None else GameRecord.from_json(game.record)
    voided = (
        tuple(
            VoidedAttempt(
                row.attempt,
                row.voided_at,
                GameResult(GameRecord.from_json(row.record), tuple(SeatResult.from_json(s) for s in row.seats)),
                row.seed,
            )
            for row in session.exec(
                select(VoidedAttemptRow).where(VoidedAttemptRow.game_id == game_id).order_by(VoidedAttemptRow.attempt)
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
    row = _tournament_row(session, tournament)
    names = _bot_names(session)
    tables = dict(
        session.exec(
            select(ScheduledTableRow.id, ScheduledTableRow.seats).where(ScheduledTableRow.tournament_id == row.id)
        ).all()
    )
    counts: dict[str, int] = {}
    for table_id, seats in session.exec(
        select(GameRow.table_id, VoidedAttemptRow.seats)
        .join(GameRow, VoidedAttemptRow.game_id == GameRow.id)
        .where(GameRow.tournament_id == row.id)
    ):
        for seat in seats:
            if seat["policy"] == PolicyDecision.VOID.value:
                bot = names[tables[table_id][seat["seat"]]]
                counts[bot] = counts.get(bot, 0) + 1
    return counts


def reveal_seeds(*, session: Session, tournament: str) -> SeedReveal:
    """The tournament's seed, nonce and commitment, and every game attempt's seed, whatever its
    state: for the organiser (an admin call), never a public read."""
    row = _tournament_row(session, tournament)
    games = session.exec(
        select(GameRow.id, GameRow.table_index, GameRow.game_index, _VOIDED)
        .where(GameRow.tournament_id == row.id)
        .order_by(GameRow.game_index, GameRow.table_index)
    ).all()
    seeds = tuple(
        GameSeed(game_id, table, game, deal, attempt_seed(row.seed, table, game, deal))
        for game_id, table, game, voided in games
        for deal in range(1, voided + 2)
    )
    return SeedReveal(row.name, row.seed, row.seed_nonce, row.seed_commitment, seeds)


# -- ratings --------------------------------------------------------------------------------------


def rating_table(
    *,
    session: Session,
    tournament: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    bootstrap: int = 0,
) -> list[RatingRow]:
    """The stored rating table of a tournament, or of the global ladder (every registered bot):
    all of it, or `limit` rows from `offset` (ranks are the whole table's). Each row carries its
    rank interval and confidence (`arena.ratings.rank_confidence`), and with `bootstrap` resamples its
    bootstrap confidence, computed over the whole table; InvalidBootstrap if that is too much."""
    scope_id = None if tournament is None else _tournament_row(session, tournament).id
    rows = session.exec(
        select(BotRatingRow, BotRow.name)
        .join(BotRow, BotRatingRow.bot_id == BotRow.id)
        .where(
            BotRatingRow.tournament_id.is_(None)  # type: ignore[union-attr]
            if scope_id is None
            else BotRatingRow.tournament_id == scope_id
        )
    ).all()
    table = with_confidence(_table(_standing(row, name) for row, name in rows))
    if bootstrap:
        games = played_games(session=session, tournament=tournament)
        allowed = max_resamples(len(games))
        if not 0 < bootstrap <= allowed:
            raise InvalidBootstrap(
                f"a bootstrap takes 1 to {allowed} resamples over this table's {len(games)} games, not {bootstrap}"
                if allowed
                else f"this table's {len(games)} games are too many to bootstrap in one call"
            )
        table = with_bootstrap(table, games, resamples=bootstrap)
    return table[offset:] if limit is None else table[offset : offset + limit]


def played_games(*, session: Session, tournament: str | None = None) -> list[PlayedGame]:
    """Every finished game of a tournament, or of all of them (the ladder's), in the order their
    ratings were applied: what the bootstrap and the crosstable read."""
    names = _bot_names(session)
    scope = sa.true() if tournament is None else GameRow.tournament_id == _tournament_row(session, tournament).id
    seats = session.exec(
        select(SeatResultRow.game_id, SeatResultRow.bot_id, SeatResultRow.points, SeatResultRow.rank)
        .join(GameRow, SeatResultRow.game_id == GameRow.id)
        .where(GameRow.status == GameStatus.FINISHED, scope)
        .order_by(GameRow.commit_seq, SeatResultRow.seat)  # type: ignore[arg-type]
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
    names = _bot_names(session)
    if tournament is None:
        bots = list(names.values())
        scope_filter: sa.ColumnElement[bool] = sa.true()
    else:
        row = _tournament_row(session, tournament)
        tables = session.exec(select(ScheduledTableRow.seats).where(ScheduledTableRow.tournament_id == row.id))
        bots = sorted({names[b] for seats in tables for b in seats})
        scope_filter = GameRow.tournament_id == row.id
    env = arena_env()
    standings = {name: Standing(name, env.mu, env.sigma) for name in bots}
    games = session.exec(
        select(GameRow.id, GameRow.record, ScheduledTableRow.seats)
        .join(ScheduledTableRow, GameRow.table_id == ScheduledTableRow.id)
        .where(GameRow.status == GameStatus.FINISHED, scope_filter)
        .order_by(GameRow.commit_seq)
    ).all()
    forfeits: dict[int, set[int]] = {}
    for game_id, seat in session.exec(
        select(SeatResultRow.game_id, SeatResultRow.seat)
        .join(GameRow, SeatResultRow.game_id == GameRow.id)
        .where(
            GameRow.status == GameStatus.FINISHED,
            scope_filter,
            SeatResultRow.forfeit.is_not(None),  # type: ignore[union-attr]
        )
    ):
        forfeits.setdefault(game_id, set()).add(seat)
    for game_id, record_json, seat_ids in games:
        totals = GameRecord.from_json(record_json).totals
        seated = [names[b] for b in seat_ids]
        lost = forfeits.get(game_id, set())
        game_ranks = final_ranks(totals, [s in lost for s in range(len(seated))])
        before = {name: standings[name] for name in seated}
        after = apply_game(
            env, before, dict(zip(seated, totals, strict=True)), dict(zip(seated, game_ranks, strict=True))
        )
        standings.update(after)
    return with_confidence(_table(standings.values()))


# -- the statements of commit_game, built once -----------------------------------------------------

_games = GameRow.__table__  # type: ignore[attr-defined]
_tables = ScheduledTableRow.__table__  # type: ignore[attr-defined]
_tournaments_t = TournamentRow.__table__  # type: ignore[attr-defined]
_ratings = BotRatingRow.__table__  # type: ignore[attr-defined]
_bots = BotRow.__table__  # type: ignore[attr-defined]

_CLAIM_GAME = (
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
_LOCK_TOURNAMENT = (
    sa.select(_tournaments_t.c.name, _tournaments_t.c.failure_policy)
    .where(_tournaments_t.c.id == sa.bindparam("tournament"))
    .with_for_update()
)
_LOCK_RATINGS = (
    sa.select(_ratings, _bots.c.name)
    .join(_bots, _ratings.c.bot_id == _bots.c.id)
    .where(
        _ratings.c.bot_id.in_(sa.bindparam("bots", expanding=True)),
        sa.or_(_ratings.c.tournament_id == sa.bindparam("tournament"), _ratings.c.tournament_id.is_(None)),
    )
    .order_by(_ratings.c.id)
    .with_for_update(of=_ratings)
)
_NUMBER_GAME = (
    sa.update(_games)
    .where(_games.c.id == sa.bindparam("game"))
    .values(commit_seq=sa.select(sa.func.coalesce(sa.func.max(_games.c.commit_seq), 0) + 1).scalar_subquery())
)
_UPDATE_RATING = (
    sa.update(_ratings)
    .where(_ratings.c.id == sa.bindparam("rating"))
    .values(
        mu=sa.bindparam("mu"),
        sigma=sa.bindparam("sigma"),
        games=sa.bindparam("games"),
        wins=sa.bindparam("wins"),
        total_points=sa.bindparam("points"),
        total_placing=sa.bindparam("placings"),
    )
)
_INSERT_HISTORY = sa.insert(RatingHistoryRow.__table__)  # type: ignore[attr-defined]
_INSERT_SEATS = sa.insert(SeatResultRow.__table__)  # type: ignore[attr-defined]
_VOIDED = sa.select(sa.func.count()).where(VoidedAttemptRow.game_id == GameRow.id).correlate(GameRow).scalar_subquery()
"""How many attempts of the game in the enclosing query the failure policy voided."""
_FINISH_TOURNAMENT = (
    sa.update(_tournaments_t)
    .where(
        _tournaments_t.c.id == sa.bindparam("tournament"),
        _tournaments_t.c.status == TournamentStatus.RUNNING,
        ~sa.exists().where(_games.c.tournament_id == _tournaments_t.c.id, _games.c.status != GameStatus.FINISHED),
    )
    .values(status=TournamentStatus.FINISHED, finished_at=sa.bindparam("finished_at"))
)


# -- helpers --------------------------------------------------------------------------------------


_STOP_RULE = "stop_rule"
"""The key of a stop-rule tournament's rule in its stored settings (`TournamentRow.failure_policy`)."""


def _settings(row: TournamentRow) -> tuple[dict[str, Any] | None, StopRule | None]:
    """A tournament's stored failure policy (None: the defaults) and stop rule (None: none)."""
    if row.failure_policy is None:
        return None, None
    policy = dict(row.failure_policy)
    rule = policy.pop(_STOP_RULE, None)
    if rule is None:
        return policy, None
    return policy or None, StopRule.from_json(rule)


def _game_limit(rule: StopRule | None) -> int:
    """The most games one round of the schedule may hold: the arena's, or the stop rule's cap."""
    return entry_rules.MAX_GAMES if rule is None else min(entry_rules.MAX_GAMES, rule.max_games)


def _now(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None:
        raise ValueError("`now` must be timezone-aware")
    return now


def _keyset(
    session: Session, query: Any, row: type[Any], order: tuple[Any, ...], after: int | None, limit: int | None
) -> Any:
    """`query` in `order` (which must be unique), from just after the row of table `row` whose id is
    `after` (keyset pagination: a page costs the same however deep it is), at most `limit` rows."""
    query = query.order_by(*order)
    if after is not None:
        found = session.exec(select(row.id, *order).where(row.id == after)).first()
        if found is None:
            raise InvalidPage(f"there is no row {after} of {row.__tablename__} to continue the list after")
        query = query.where(
            sa.tuple_(*order) > sa.tuple_(*(sa.literal(v, c.type) for v, c in zip(found[1:], order, strict=True)))
        )
    return query if limit is None else query.limit(limit)


def _bot(row: BotRow) -> Bot:
    assert row.id is not None
    return Bot(row.id, row.name, row.created_at)


def _bot_id(session: Session, name: str) -> int:
    bot_id = session.exec(select(BotRow.id).where(BotRow.name == name)).first()
    if bot_id is None:
        raise UnknownBot(f"there is no bot named {shown(name)}")
    return bot_id


def _bot_names(session: Session) -> dict[int, str]:
    return {bot_id: name for bot_id, name in session.exec(select(BotRow.id, BotRow.name))}


def _tournament_row(session: Session, name: str, lock: bool = False, exclusive: bool = False) -> TournamentRow:
    query = select(TournamentRow).where(TournamentRow.name == name)
    if lock:
        query = query.with_for_update(read=not exclusive)
    row = session.exec(query).first()
    if row is None:
        raise UnknownTournament(f"there is no tournament named {shown(name)}")
    return row


def _tournaments(session: Session, rows: Sequence[TournamentRow]) -> list[Tournament]:
    ids = [row.id for row in rows]
    entrants: dict[int, list[str]] = {}
    for tournament_id, name in session.exec(
        select(EntryRow.tournament_id, BotRow.name)
        .join(BotRow, EntryRow.bot_id == BotRow.id)
        .where(EntryRow.tournament_id.in_(ids))  # type: ignore[attr-defined]
        .order_by(BotRow.name)
    ):
        entrants.setdefault(tournament_id, []).append(name)
    counts: dict[int, dict[str, int]] = {}
    played = sa.and_(GameRow.status == GameStatus.RUNNING, GameRow.finished_at.is_not(None))  # type: ignore[union-attr]
    for tournament_id, status, is_played, count in session.exec(
        select(GameRow.tournament_id, GameRow.status, played, sa.func.count())
        .where(GameRow.tournament_id.in_(ids))  # type: ignore[attr-defined]
        .group_by(GameRow.tournament_id, GameRow.status, played)
    ):
        counts.setdefault(tournament_id, {})["played" if is_played else status.value] = count
    out = []
    for row in rows:
        assert row.id is not None
        policy, rule = _settings(row)
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
            )
        )
    return out


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
    names = _bot_names(session)
    finished = [game.id for game, _, _ in rows if game.status is GameStatus.FINISHED]
    results: dict[int, list[SeatResult]] = {}
    for seat in session.exec(
        select(SeatResultRow)
        .where(SeatResultRow.game_id.in_(finished))  # type: ignore[attr-defined]
        .order_by(SeatResultRow.game_id, SeatResultRow.seat)
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


def _not_committable(session: Session, game_id: int) -> Exception:
    """Why `commit_game` could not claim the game (read after rolling the claim back)."""
    session.rollback()
    status = session.exec(select(GameRow.status).where(GameRow.id == game_id)).first()
    if status is None:
        return UnknownGame(f"there is no game {game_id}")
    if status is GameStatus.FINISHED:
        return GameAlreadyFinished(f"game {game_id} is already finished: refused, so nothing counts twice")
    return GameNotRunning(f"game {game_id} is {status.value}: mark it running before committing it")


def _checked_ranks(game_id: int, result: GameResult, seated: tuple[str, ...], seed: int) -> dict[str, int]:
    """The ranks the result must have, by bot; ResultMismatch names the first thing that is off."""
    record = result.record
    bots = tuple(s.bot for s in result.seats)
    problem = None
    if bots != seated:
        problem = f"seats {bots} are not the scheduled {seated}"
    elif tuple(s.seat for s in result.seats) != tuple(range(len(seated))):
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


def _check_decisions(game_id: int, result: GameResult, allowed: tuple[PolicyDecision, ...]) -> None:
    """ResultMismatch unless every forfeited seat carries one of the `allowed` policy decisions."""
    for s in result.seats:
        if s.forfeit is not None and s.policy not in allowed:
            expected = " or ".join(d.value for d in allowed)
            raise ResultMismatch(
                f"game {game_id}: forfeited seat {s.seat} needs the failure policy's decision ({expected}), "
                f"not {None if s.policy is None else s.policy.value}"
            )


def _standing(row: BotRatingRow, name: str) -> Standing:
    return Standing(name, row.mu, row.sigma, row.games, row.wins, row.total_points, row.total_placing)
