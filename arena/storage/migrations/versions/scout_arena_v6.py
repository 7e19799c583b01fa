"""Schema version 6: leases for a cluster of arena nodes on one PostgreSQL database. A running game
carries its claim (`games.lease_owner`, `lease_token`, `lease_expires`), and `schedule_leases` names
the one node storing a tournament's schedule, fenced by an epoch. A single arena leaves them empty:
rows of version 5 are untouched."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.storage.migrations import set_schema_version

revision = "scout_arena_v6"
down_revision = "scout_arena_v5"
schema_version = 6


def upgrade() -> None:
    if "schedule_leases" in sa.inspect(op.get_bind()).get_table_names():
        set_schema_version(schema_version)  # made by `create_all` of these models before Alembic
        return
    op.create_table(
        "schedule_leases",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id"),
    )
    op.add_column("games", sa.Column("lease_owner", sa.String(length=64), nullable=True))
    op.add_column("games", sa.Column("lease_token", sa.String(length=32), nullable=True))
    op.add_column("games", sa.Column("lease_expires", sa.DateTime(), nullable=True))
    set_schema_version(schema_version)
