"""Alembic's entry point: runs the revisions on the connection `arena.storage.database` hands over in
`config.attributes["connection"]`, inside the transaction it opened."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from arena.storage import tables as models  # noqa: F401  (the tables, for `draft` and the schema comparison)

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=SQLModel.metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
