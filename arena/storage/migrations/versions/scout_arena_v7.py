"""Schema version 7: the tournaments' JSON settings column is named for what it holds. Called
`failure_policy` since version 3, it came to hold a tournament's stop rule (`stop_rule`) and
spectator delay (`spectator_delay_s`) beside its failure policy; it is now `settings`
(`arena.storage.store.common.stored_settings` reads it). Renamed in place: every value is kept as
it was."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.storage.migrations import set_schema_version

revision = "scout_arena_v7"
down_revision = "scout_arena_v6"
schema_version = 7


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("tournaments")}
    if "failure_policy" in columns:  # else made by `create_all` of these models before Alembic
        op.alter_column("tournaments", "failure_policy", new_column_name="settings")
    set_schema_version(schema_version)
