"""What the store's modules share: the clock, keyset pagination, the lookups by name, and the
settings column."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, TypedDict, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlmodel import Session, col, select

from arena.errors import (
    InvalidPage,
    UnknownBot,
    UnknownTournament,
)
from arena.names import shown
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.storage.tables import (
    BotRow,
    GameRow,
    TournamentRow,
    VoidedAttemptRow,
)
from arena.tournaments import entries as entry_rules
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.stop_rule import StopRule

_T = TypeVar("_T")

STOP_RULE = "stop_rule"
"""The key of a stop-rule tournament's rule in its stored settings (`TournamentRow.settings`)."""
SPECTATOR_DELAY = "spectator_delay_s"
"""The key of a tournament's spectator delay in its stored settings (absent: the default)."""


class json_array(FunctionElement[Any]):
    """The aggregate of a column's values as one JSON array (in no set order): one value to fetch
    for a group instead of a row each. Its value is text on SQLite, a list through psycopg
    (`arena.storage.store.prepared.loaded` reads both)."""

    inherit_cache = True


@compiles(json_array, "sqlite")
def _json_group_array(element: json_array, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_group_array({compiler.process(element.clauses, **kw)})"


@compiles(json_array, "postgresql")
def _json_agg(element: json_array, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_agg({compiler.process(element.clauses, **kw)})"


def stored_settings(row: TournamentRow) -> tuple[FailurePolicy, StopRule | None, int]:
    """A tournament's stored failure policy (the defaults if none was stored, or for a setting
    stored before it existed), stop rule (None: none) and spectator delay: the one place the
    column is read."""
    kept = dict(row.settings or {})
    rule = kept.pop(STOP_RULE, None)
    delay = int(kept.pop(SPECTATOR_DELAY, DEFAULT_SPECTATOR_DELAY_S))
    return FailurePolicy.from_json(kept or None), None if rule is None else StopRule.from_json(rule), delay


def game_limit(rule: StopRule | None) -> int:
    """The most games one round of the schedule may hold: the arena's, or the stop rule's cap."""
    return entry_rules.MAX_GAMES if rule is None else min(entry_rules.MAX_GAMES, rule.max_games)


class FieldFormat(TypedDict):
    """A tournament's format as `arena.tournaments.entries.check_room` and `capacity` take it."""

    table_size: int
    games_per_table: int
    rounds: int | None
    max_entrants: int
    limit: int


def field_format(row: TournamentRow) -> FieldFormat:
    """The stored format an entry or the start is checked against (its stop rule's game cap included)."""
    return FieldFormat(
        table_size=row.table_size,
        games_per_table=row.games_per_table,
        rounds=row.rounds,
        max_entrants=row.max_entrants,
        limit=game_limit(stored_settings(row)[1]),
    )


def stored(value: _T | None, what: str) -> _T:
    """`value` read from a column the query guarantees is set (a primary key, or a column its
    filter requires), which SQLModel still types as optional: a NULL there is a corrupt database."""
    if value is None:
        raise ValueError(f"the database holds no {what} where one must be stored")
    return value


def utc_now(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    if now.tzinfo is None:
        raise ValueError("`now` must be timezone-aware")
    return now


def keyset(
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


_BOT_ID = sa.select(col(BotRow.id)).where(col(BotRow.name) == sa.bindparam("name"))
"""Built once, like the statements of `arena.storage.store.bots`: a field of a thousand enters at once."""


def bot_id_of(session: Session, name: str) -> int:
    bot_id = session.connection().execute(_BOT_ID, {"name": name}).scalar()
    if bot_id is None:
        raise UnknownBot(f"there is no bot named {shown(name)}")
    return bot_id


def bot_names(session: Session, ids: Iterable[int] | None = None) -> dict[int, str]:
    """Every bot's name by id, or only those of `ids` (a game's seats: a lookup of a few rows, not
    of the whole field)."""
    query = select(BotRow.id, BotRow.name)
    if ids is not None:
        query = query.where(col(BotRow.id).in_(set(ids)))
    return {stored(bot_id, "bot id"): name for bot_id, name in session.exec(query)}


_TOURNAMENT = select(TournamentRow).where(col(TournamentRow.name) == sa.bindparam("name"))
_TOURNAMENT_LOCKED = {exclusive: _TOURNAMENT.with_for_update(read=not exclusive) for exclusive in (False, True)}
"""Built once: building the statement cost more than running it, and every entry and read of a
tournament starts here."""


def tournament_row(session: Session, name: str, lock: bool = False, exclusive: bool = False) -> TournamentRow:
    query = _TOURNAMENT_LOCKED[exclusive] if lock else _TOURNAMENT
    row = session.exec(query, params={"name": name}).first()
    if row is None:
        raise UnknownTournament(f"there is no tournament named {shown(name)}")
    return row


VOIDED = (
    sa.select(sa.func.count()).where(col(VoidedAttemptRow.game_id) == GameRow.id).correlate(GameRow).scalar_subquery()
)
"""How many attempts of the game in the enclosing query the failure policy voided."""


DATABASE_NOW = sa.func.timezone("UTC", sa.func.statement_timestamp())
"""The database's clock, as a naive UTC time like the stored ones: what leases expire by
(`arena.storage.store.leases`), so the nodes of a cluster need not agree on the time. PostgreSQL's."""


def held(lease: str | None) -> tuple[Any, ...]:
    """The conditions a write of a running game takes in a cluster: its claim `lease` still holds
    (none without one: a single arena holds its database alone)."""
    if lease is None:
        return ()
    return (col(GameRow.lease_token) == lease, col(GameRow.lease_expires) > DATABASE_NOW)
