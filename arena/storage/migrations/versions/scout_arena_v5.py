"""Schema version 5: casual games, a person's games on the Play page, in a table of their own
(`casual_games`), so that no rating, ladder or crosstable counts them. Rows of version 4 are
untouched."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.storage.migrations import set_schema_version

revision = "scout_arena_v5"
down_revision = "scout_arena_v4"
schema_version = 5


def upgrade() -> None:
    if "casual_games" in sa.inspect(op.get_bind()).get_table_names():
        set_schema_version(schema_version)  # made by `create_all` of these models before Alembic
        return
    op.create_table(
        "casual_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("move_ms", sa.Integer(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("seat_kinds", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("end_reasons", sa.JSON(), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_casual_games_finished_at"), "casual_games", ["finished_at"], unique=False)
    set_schema_version(schema_version)
