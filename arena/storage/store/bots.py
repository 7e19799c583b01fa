"""Registered bots: registration (the token is shown once, only its hash kept), authentication, the list."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from arena.directory import new_token, token_hash
from arena.errors import (
    DuplicateName,
)
from arena.names import check_name
from arena.ratings.table import arena_env
from arena.records import BotRecord, Registration
from arena.storage.store.common import keyset, utc_now
from arena.storage.tables import (
    BotRatingRow,
    BotRow,
    table_of,
)
from arena.storage.writer import writes

# A field of a thousand bots registers, authenticates and enters at once while tournaments play:
# these statements are built once and run on the session's connection in SQLAlchemy Core, which
# costs far less Python than an ORM query (docs/benchmarks.md).
_BOTS = table_of(BotRow)
_RATINGS = table_of(BotRatingRow)
_NAMED = sa.select(_BOTS.c.id).where(_BOTS.c.name == sa.bindparam("name"))
_INSERT_BOT = sa.insert(_BOTS).returning(_BOTS.c.id)
_INSERT_RATING = sa.insert(_RATINGS).values(tournament_id=None, games=0, wins=0.0, total_points=0, total_placing=0)
_BY_TOKEN = sa.select(_BOTS.c.id, _BOTS.c.name, _BOTS.c.created_at).where(
    _BOTS.c.token_hash == sa.bindparam("token_hash")
)


@writes
def register_bot(*, session: Session, name: str, now: datetime | None = None) -> Registration:
    """Register a bot and return its token, once: only the token's SHA-256 is stored."""
    check_name(name, "bot")
    connection = session.connection()
    if connection.execute(_NAMED, {"name": name}).first() is not None:
        raise DuplicateName(f"a bot named {name!r} already exists")
    token = new_token()
    env = arena_env()
    created_at = utc_now(now)
    try:
        bot_id = connection.execute(
            _INSERT_BOT, {"name": name, "token_hash": token_hash(token), "created_at": created_at}
        ).scalar_one()
        connection.execute(_INSERT_RATING, {"bot_id": bot_id, "mu": env.mu, "sigma": env.sigma})
        session.commit()
    except IntegrityError:
        session.rollback()
        raise DuplicateName(f"a bot named {name!r} already exists") from None
    return Registration(BotRecord(bot_id, name, created_at), token)


def authenticate(*, session: Session, token: str) -> BotRecord | None:
    """The bot whose token this is, or None."""
    row = session.connection().execute(_BY_TOKEN, {"token_hash": token_hash(token)}).first()
    return None if row is None else BotRecord(row.id, row.name, row.created_at)


def list_bots(*, session: Session, after: int | None = None, limit: int | None = None) -> list[BotRecord]:
    """Registered bots, by name: every one, or at most `limit` after the bot with id `after`."""
    query = keyset(session, select(BotRow), BotRow, (BotRow.name,), after, limit)
    return [_bot(row) for row in session.exec(query)]


def _bot(row: BotRow) -> BotRecord:
    assert row.id is not None
    return BotRecord(row.id, row.name, row.created_at)
