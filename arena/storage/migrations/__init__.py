"""The arena's schema history as Alembic revisions, run by `arena.storage.database` (no alembic.ini needed).

Each revision lives in `versions/` as `scout_arena_vN.py`, with `revision = "scout_arena_vN"`,
`down_revision` the one before, and `schema_version = N`: the number `scout-arena db status`
shows, which the revision also writes to the `schema_info` table (`set_schema_version`) so that
an arena from before Alembic refuses the database instead of using it.

To change the tables:
1. change `arena/storage/tables.py` and bump `SCHEMA_VERSION` to N;
2. `python -m arena.storage.migrations draft` prints the Alembic operations from the newest revision to the
   models (on a scratch SQLite file): copy them into `versions/scout_arena_vN.py` (start from the
   newest revision file), use plain SQLAlchemy types (`sa.String(64)`, not sqlmodel's), give new
   NOT NULL columns of existing rows their values, and end `upgrade()` with
   `set_schema_version(N)`; use `op.batch_alter_table` for changes SQLite cannot ALTER;
3. tests/storage/test_migrations.py checks that a database migrated to head equals the models on
   SQLite and PostgreSQL, and that the v3 fixture still upgrades with its data.
Revisions only go forward: a downgrade is a restore from a backup (docs/operator-guide.md).
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import op

LOCATION = Path(__file__).parent
"""The script directory: env.py and versions/."""


def set_schema_version(version: int) -> None:
    """Record `version` in `schema_info` (inside a revision's `upgrade`)."""
    schema_info = sa.table("schema_info", sa.column("id", sa.Integer), sa.column("version", sa.Integer))
    connection = op.get_bind()
    if connection.execute(sa.select(sa.func.count()).select_from(schema_info)).scalar():
        op.execute(schema_info.update().values(version=version))
    else:
        op.execute(schema_info.insert().values(id=1, version=version))
