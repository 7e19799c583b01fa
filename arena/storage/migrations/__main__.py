"""`python -m arena.storage.migrations draft`: the Alembic operations from the newest revision to today's
models, the start of the next revision (see this package's docstring)."""

from __future__ import annotations

import sys
import tempfile

from alembic.autogenerate import produce_migrations, render_python_code
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from arena.storage import tables as models  # noqa: F401  (the tables)
from arena.storage.database import open_database

NOTHING = "the revisions already make the models' tables: nothing to draft"


def draft() -> str:
    """The operations, as Python, that a database built by the revisions lacks; `NOTHING` if none."""
    with tempfile.TemporaryDirectory() as scratch:
        engine = open_database(f"sqlite:///{scratch}/draft.db")
        try:
            with engine.connect() as connection:
                script = produce_migrations(MigrationContext.configure(connection), SQLModel.metadata)
        finally:
            engine.dispose()
    if script.upgrade_ops is None or script.upgrade_ops.is_empty():
        return NOTHING
    return render_python_code(script.upgrade_ops)


def main(argv: list[str]) -> int:
    if argv != ["draft"]:
        print("usage: python -m arena.storage.migrations draft", file=sys.stderr)
        return 2
    print(draft())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
