"""Storage tests run on SQLite (a fresh file per test) and on PostgreSQL (a fresh schema per test).

PostgreSQL tests need `SCOUT_TEST_POSTGRES_URL` (`.ci/run` sets it); without it they skip and say
how to run them, or fail under CI (tests/services.py). With it set, an unreachable server fails the
tests rather than skipping them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.storage.database import open_database
from tests.services import POSTGRES_EXAMPLE, POSTGRES_URL_VARIABLE, service_url

__all__ = ["POSTGRES_URL_VARIABLE", "database_url", "engine", "postgres_schema", "postgres_url", "session"]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A URL to an empty database of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'arena.db'}"
        return
    with postgres_schema() as url:
        yield url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL to an empty PostgreSQL database, for the tests only PostgreSQL can run."""
    with postgres_schema() as url:
        yield url


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema on the server at `SCOUT_TEST_POSTGRES_URL` (skip if unset), dropped after."""
    base = service_url(POSTGRES_URL_VARIABLE, POSTGRES_EXAMPLE, "PostgreSQL")
    schema = f"scout_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = open_database(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session
