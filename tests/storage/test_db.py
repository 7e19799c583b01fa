"""Opening databases from a URL (issue 4, Persistence): pragmas, clear errors, schema version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.errors import DatabaseUnreachable, InvalidDatabaseURL, SchemaCreationFailed, SchemaVersionMismatch
from arena.storage import database
from arena.storage.database import BUSY_TIMEOUT_MS, create_engine, open_database
from arena.storage.tables import SCHEMA_VERSION, SchemaInfo
from tests.services import POSTGRES_EXAMPLE, POSTGRES_URL_VARIABLE, service_url


def test_every_sqlite_connection_gets_wal_and_the_pragmas(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        with engine.connect() as first, engine.connect() as second:
            for connection in (first, second):
                pragma = lambda name, connection=connection: connection.exec_driver_sql(f"PRAGMA {name}").scalar()  # noqa: E731
                assert pragma("journal_mode") == "wal"
                assert pragma("synchronous") == 1  # NORMAL
                assert pragma("busy_timeout") == BUSY_TIMEOUT_MS
                assert pragma("foreign_keys") == 1
    finally:
        engine.dispose()


def test_foreign_keys_are_enforced_on_sqlite(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.exec_driver_sql(
                "INSERT INTO entries (tournament_id, bot_id, entered_at) VALUES (99, 99, '2026-01-01')"
            )
    finally:
        engine.dispose()


def test_schema_version_is_stored_and_checked(engine: Engine, database_url: str) -> None:
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION
    open_database(database_url).dispose()  # opening again changes nothing
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION
        session.exec(sa.update(SchemaInfo).values(version=SCHEMA_VERSION + 1))
        session.exec(sa.text("DELETE FROM alembic_version"))
        session.commit()
    with pytest.raises(SchemaVersionMismatch, match=f"schema version {SCHEMA_VERSION + 1} from a newer Scout Arena"):
        open_database(database_url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "malformed database URL 'not a url'"),
        ("sqlite://", "in-memory SQLite"),
        ("sqlite:///:memory:", "in-memory SQLite"),
        ("mysql://u@h/db", "unsupported database URL mysql://u@h/db"),
        ("postgresql+psycopg2://u@h/db", "selects driver 'psycopg2': write postgresql+psycopg://"),
    ],
)
def test_unusable_urls_get_one_clear_line(url: str, message: str) -> None:
    with pytest.raises(InvalidDatabaseURL, match=re.escape(message)) as caught:
        create_engine(url)
    assert "\n" not in str(caught.value)


def test_unreachable_databases_get_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnreachable, match="unable to open database file"):
        create_engine(f"sqlite:///{tmp_path / 'missing-dir' / 'a.db'}")
    with pytest.raises(DatabaseUnreachable, match="Connection refused") as caught:
        create_engine("postgresql+psycopg://nobody:secret@127.0.0.1:1/none")
    assert "secret" not in str(caught.value) and "\n" not in str(caught.value)


def test_a_postgres_schema_that_cannot_hold_tables_is_reported() -> None:
    base = service_url(POSTGRES_URL_VARIABLE, POSTGRES_EXAMPLE, "PostgreSQL")
    url = sa.make_url(base).update_query_dict({"options": "-csearch_path=no_such_schema_here"})
    with pytest.raises(SchemaCreationFailed, match="cannot create the arena's tables"):
        open_database(url.render_as_string(hide_password=False))


def test_the_head_revision_is_the_one_named_for_the_schema_version() -> None:
    """`open_database` knows a current database by its revision's name, without reading the scripts."""
    assert database._head() == database.HEAD_REVISION
