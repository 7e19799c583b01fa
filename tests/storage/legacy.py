"""Databases made by the arena of schema version 3 (fixtures/make_v3.py regenerates the dumps),
and what a test reads from a database without the arena's code."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import sqlalchemy as sa

FIXTURES = Path(__file__).parent / "fixtures"


def load_v3(url: str) -> None:
    """Load the version 3 dump for `url`'s kind into the empty database at `url`."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database
        with sqlite3.connect(parsed.database) as connection:
            connection.executescript((FIXTURES / "v3-sqlite.sql").read_text())
        connection.close()
        return
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            raw = connection.connection.dbapi_connection
            assert raw is not None
            raw.execute((FIXTURES / "v3-postgres.sql").read_text())  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def rows(url: str, query: str) -> list[tuple[object, ...]]:
    """The rows of a plain SQL query, read without the arena's code."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(r) for r in connection.exec_driver_sql(query)]
    finally:
        engine.dispose()


def snapshot(url: str, *, beside: bool = True) -> str:
    """A digest of everything the database holds: table names, columns and every row (a SQLite
    file: its bytes, and unless not `beside` the names of the files beside it; reading a database
    in WAL mode, even read-only, makes SQLite's -wal and -shm companions)."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database
        path = Path(parsed.database)
        names = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) if beside else []
        return hashlib.sha256(path.read_bytes()).hexdigest() + repr(names)
    engine = sa.create_engine(url)
    digest = hashlib.sha256()
    try:
        with engine.connect() as connection:
            inspector = sa.inspect(connection)
            for table in sorted(inspector.get_table_names()):
                columns = [c["name"] for c in inspector.get_columns(table)]
                digest.update(repr((table, columns)).encode())
                found = connection.execute(sa.select(*map(sa.column, columns)).select_from(sa.table(table)))
                for row in sorted(repr(tuple(r)) for r in found):
                    digest.update(row.encode())
    finally:
        engine.dispose()
    return digest.hexdigest()
