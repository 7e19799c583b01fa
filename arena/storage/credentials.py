"""Credentials kept in the database: bot tokens (a `BotDirectory` over `arena.storage.store`) and the
arena's admin token.

Only SHA-256 hashes are stored. The admin token is created on the first start of an arena on an
empty database and shown once. To rotate it, run `scout-arena admin rotate-token --db URL` (prints
a new one) or start the server with `--admin-token NEW`; the old one stops working at once, since
a server checks the stored hash on every admin call.

The arena's identity (`DescribeArena`, by which bots key their saved tokens) is derived from the
admin token row's `created_at`, the moment the database's first admin token was made: the schema
has no other per-database value, rotation keeps that moment, and a recreated database gets a new
one. An arena without a database draws a random identity at start, as its bots live no longer.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from arena.directory import NameTaken, new_token, token_hash
from arena.errors import DuplicateName
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.tables import AdminTokenRow


class AdminGate(Protocol):
    """Says whether a presented token is the arena's admin token."""

    async def allows(self, token: str) -> bool: ...

    async def identity(self) -> str:
        """The arena's id: the same for the life of its database (see the module docstring)."""
        ...


class FixedAdminToken:
    """The admin token of an arena without a database: fixed for the life of the process."""

    def __init__(self, token: str) -> None:
        self._token = token
        self._identity = secrets.token_hex(16)

    async def allows(self, token: str) -> bool:
        return secrets.compare_digest(token, self._token)

    async def identity(self) -> str:
        return self._identity


class StoredAdminToken:
    """The admin token whose hash the database holds (read on every call, so rotation is live)."""

    def __init__(self, engine: Engine) -> None:
        self._db = AsyncStore(engine)
        self._identity: str | None = None

    async def allows(self, token: str) -> bool:
        stored = await self._db(_stored_hash)
        return stored is not None and secrets.compare_digest(token_hash(token), stored)

    async def identity(self) -> str:
        if self._identity is None:  # never changes: read once
            self._identity = await self._db(arena_identity)
        return self._identity


def arena_identity(*, session: Session) -> str:
    """The id of the arena whose database `session` reads; the server creates the admin token
    row before it serves, so the row is there."""
    row = session.get(AdminTokenRow, 1)
    if row is None:
        raise LookupError("the database has no admin token yet: the arena has no identity before its first start")
    return hashlib.sha256(f"scout-arena {row.created_at.isoformat()}".encode()).hexdigest()[:32]


def _stored_hash(*, session: Session) -> str | None:
    row = session.get(AdminTokenRow, 1)
    return None if row is None else row.token_hash


def ensure_admin_token(engine: Engine) -> str | None:
    """Create the admin token if the database has none and return it; None if one is stored.

    One statement that inserts only where no row is (`ON CONFLICT DO NOTHING`): arenas starting at
    once on a new database (a cluster's first nodes) create one token between them, and only the
    one whose insert took effect shows it; a read-then-write would let the second overwrite the
    token the first has just shown, or fail on the primary key."""
    token = new_token()
    insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
    statement = (
        insert(AdminTokenRow)
        .values(id=1, token_hash=token_hash(token), created_at=datetime.now(UTC))
        .on_conflict_do_nothing(index_elements=["id"])
        .returning(col(AdminTokenRow.id))
    )
    with engine.begin() as connection:
        created = connection.execute(statement).first() is not None
    return token if created else None


def set_admin_token(engine: Engine, token: str | None = None) -> str:
    """Make `token` (default: a fresh one) the admin token, replacing any stored one; return it.
    A replaced token's row keeps its `created_at`, which the arena's identity is derived from."""
    token = token or new_token()
    with Session(engine) as session:
        row = session.get(AdminTokenRow, 1) or AdminTokenRow(id=1, token_hash="", created_at=datetime.now(UTC))
        row.token_hash = token_hash(token)
        session.add(row)
        session.commit()
    return token


class StoredBotDirectory:
    """A `BotDirectory` over the database: bots registered here are the tournaments' bots."""

    def __init__(self, engine: Engine) -> None:
        self._db = AsyncStore(engine)

    async def register(self, name: str) -> str:
        try:
            registration = await self._db(store.register_bot, name=name)
        except DuplicateName:
            raise NameTaken(name) from None
        return registration.token

    async def authenticate(self, token: str) -> str | None:
        bot = await self._db(store.authenticate, token=token)
        return None if bot is None else bot.name
