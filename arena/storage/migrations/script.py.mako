"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.storage.migrations import set_schema_version

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
schema_version = 0
"""Set to the new arena.storage.tables.SCHEMA_VERSION."""


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}
    set_schema_version(schema_version)
