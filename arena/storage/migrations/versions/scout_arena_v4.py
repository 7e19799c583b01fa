"""Schema version 4: fair deals (secret seeds with a public commitment, a deal seed per voided
attempt), bounded formats, entry limits and codes, failed tournaments.

What the new columns hold for rows made under version 3:
* `tournaments.seed_nonce`, `seed_commitment`: a fresh random nonce and the commitment to the
  tournament's seed with it (the "scout-arena seed v1" scheme of `arena.tournaments.fairness`), made at the
  upgrade. A version 3 arena published no commitment, so for a tournament created before the
  upgrade it proves nothing about the time before it; `games verify` checks it like any other.
* `tournaments.rounds`: NULL, a full round robin (version 3 had no other format).
* `tournaments.max_entrants`: the arena's limit of 1000, or the tournament's entrant count if
  it already had more (version 3 had no limit).
* `tournaments.entry_code_hash`, `failure`: NULL (open to every bot; not failed).
* `voided_attempts.seed`: its game's seed, the seed version 3 dealt every attempt of a game from.

A database made by the arena between version 4's first tables and Alembic may already have some
of these columns: only the missing ones are added, and only empty values are filled.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import sqlalchemy as sa
from alembic import op

from arena.storage.migrations import set_schema_version

revision = "scout_arena_v4"
down_revision = "scout_arena_v3"
schema_version = 4

MAX_ENTRANTS = 1000
"""arena.tournaments.entries.MAX_ENTRANTS when this revision was written (a revision never changes)."""

_TOURNAMENT_COLUMNS = (
    ("seed_nonce", sa.String(64), False),
    ("seed_commitment", sa.String(64), False),
    ("rounds", sa.Integer(), True),
    ("max_entrants", sa.Integer(), False),
    ("entry_code_hash", sa.String(64), True),
    ("failure", sa.Text(), True),
)


def upgrade() -> None:
    _add_missing("tournaments", [(name, kind) for name, kind, _ in _TOURNAMENT_COLUMNS])
    _add_missing("voided_attempts", [("seed", sa.BigInteger())])
    _fill_tournaments()
    _fill_voided_seeds()
    with op.batch_alter_table("tournaments") as batch:
        for name, kind, nullable in _TOURNAMENT_COLUMNS:
            if not nullable:
                batch.alter_column(name, existing_type=kind, nullable=False)
    with op.batch_alter_table("voided_attempts") as batch:
        batch.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
    set_schema_version(schema_version)


def _add_missing(table: str, columns: list[tuple[str, sa.types.TypeEngine[Any]]]) -> None:
    """Add each column `table` lacks, nullable for now."""
    present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}
    for name, kind in columns:
        if name not in present:
            op.add_column(table, sa.Column(name, kind, nullable=True))


def _fill_tournaments() -> None:
    connection = op.get_bind()
    tournaments = sa.table(
        "tournaments",
        sa.column("id", sa.Integer),
        sa.column("seed", sa.BigInteger),
        sa.column("seed_nonce", sa.String),
        sa.column("seed_commitment", sa.String),
        sa.column("max_entrants", sa.Integer),
    )
    entries = sa.table("entries", sa.column("tournament_id", sa.Integer))
    entrants: dict[int, int] = dict(
        connection.execute(sa.select(entries.c.tournament_id, sa.func.count()).group_by(entries.c.tournament_id)).all()
    )
    for id_, seed, nonce, commitment, max_entrants in connection.execute(sa.select(tournaments)).all():
        values: dict[str, object] = {}
        if nonce is None or commitment is None:
            nonce = nonce or secrets.token_hex(32)
            values["seed_nonce"] = nonce
            values["seed_commitment"] = hashlib.sha256(f"scout-arena seed v1:{seed}:{nonce}".encode()).hexdigest()
        if max_entrants is None:
            values["max_entrants"] = max(MAX_ENTRANTS, entrants.get(id_, 0))
        if values:
            connection.execute(tournaments.update().where(tournaments.c.id == id_).values(**values))


def _fill_voided_seeds() -> None:
    voided = sa.table("voided_attempts", sa.column("game_id", sa.Integer), sa.column("seed", sa.BigInteger))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("seed", sa.BigInteger))
    op.execute(
        voided.update()
        .where(voided.c.seed.is_(None))
        .values(seed=sa.select(games.c.seed).where(games.c.id == voided.c.game_id).scalar_subquery())
    )
