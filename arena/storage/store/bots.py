"""Registered bots: registration (the token is shown once, only its hash kept), authentication, the list."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

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
)
from arena.storage.writer import writes


@writes
def register_bot(*, session: Session, name: str, now: datetime | None = None) -> Registration:
    """Register a bot and return its token, once: only the token's SHA-256 is stored."""
    check_name(name, "bot")
    if session.exec(select(BotRow.id).where(col(BotRow.name) == name)).first() is not None:
        raise DuplicateName(f"a bot named {name!r} already exists")
    token = new_token()
    env = arena_env()
    row = BotRow(name=name, token_hash=token_hash(token), created_at=utc_now(now))
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


def authenticate(*, session: Session, token: str) -> BotRecord | None:
    """The bot whose token this is, or None."""
    row = session.exec(select(BotRow).where(col(BotRow.token_hash) == token_hash(token))).first()
    return None if row is None else _bot(row)


def list_bots(*, session: Session, after: int | None = None, limit: int | None = None) -> list[BotRecord]:
    """Registered bots, by name: every one, or at most `limit` after the bot with id `after`."""
    query = keyset(session, select(BotRow), BotRow, (BotRow.name,), after, limit)
    return [_bot(row) for row in session.exec(query)]


def _bot(row: BotRow) -> BotRecord:
    assert row.id is not None
    return BotRecord(row.id, row.name, row.created_at)
