"""Opening the arena's database from a URL: SQLite (the default) or PostgreSQL, with the same code.

* SQLite (`sqlite:///path/to/file.db`): every new connection gets WAL journaling,
  synchronous=NORMAL (durable at each checkpoint, ~10x faster commits than FULL), a busy timeout
  so concurrent writers wait instead of failing, and foreign keys on. They are set with plain
  PRAGMAs in a connect hook, which works on Python 3.11 (the SQLAlchemy recipe that sets
  `connection.autocommit` needs 3.12). A new file is created readable and writable by its owner
  only (0600, whatever the umask): it holds token hashes, seeds and every record. SQLite gives its
  `-wal` and `-shm` companions the main file's permissions, so they are 0600 too. An existing
  file's permissions are left as they are.
* PostgreSQL: `postgresql+psycopg://user@host:port/db` (psycopg 3). A bare `postgresql://` is
  accepted only where SQLAlchemy resolves it to psycopg 3 (2.1 does; 2.0 picks psycopg2, which
  is not installed, and the URL is refused with that explanation).

Any problem raises `InvalidDatabaseURL`, `DatabaseUnreachable` or `SchemaCreationFailed` with a
one-line message, never a driver traceback.

Usage: `engine = open_database(url)`, then `with sqlmodel.Session(engine) as session:` and the
functions of `arena.store`.
"""

from __future__ import annotations

import os
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError
from sqlmodel import Session, SQLModel, select

from .errors import DatabaseUnreachable, InvalidDatabaseURL, SchemaCreationFailed, SchemaVersionMismatch
from .models import SCHEMA_VERSION, SchemaInfo

DEFAULT_DATABASE_URL = "sqlite:///scout-arena.db"
"""A file in the working directory: the embedded default."""

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite connection waits for another writer before giving up."""

CONNECT_TIMEOUT_S = 10
"""How long connecting to PostgreSQL may take before the database counts as unreachable."""

_SQLITE_DRIVERS = ("sqlite", "sqlite+pysqlite")
_POSTGRES_DRIVER = "psycopg"


def create_engine(url: str = DEFAULT_DATABASE_URL) -> Engine:
    """An engine for `url`, checked by connecting once; see the module docstring for the URLs."""
    parsed = _parse(url)
    shown = parsed.render_as_string(hide_password=True)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        if "connect_timeout" not in parsed.query:
            kwargs["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
        kwargs["pool_pre_ping"] = True
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError, TypeError) as exc:
        raise InvalidDatabaseURL(f"cannot use database URL {shown}: {_first_line(exc)}") from None
    if parsed.drivername in _SQLITE_DRIVERS:
        _create_private(parsed)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except DBAPIError as exc:
        engine.dispose()
        raise DatabaseUnreachable(f"cannot reach the database at {shown}: {_first_line(exc.orig)}") from None
    return engine


def create_schema(engine: Engine) -> None:
    """Create any missing tables and record the schema version, or refuse another version."""
    SQLModel.metadata.create_all(engine)
    with Session(engine) as session:
        stored = session.exec(select(SchemaInfo)).first()
        if stored is None:
            session.add(SchemaInfo(version=SCHEMA_VERSION))
            try:
                session.commit()
                return
            except IntegrityError:
                session.rollback()
                stored = session.exec(select(SchemaInfo)).one()
        if stored.version != SCHEMA_VERSION:
            raise SchemaVersionMismatch(
                f"the database has schema version {stored.version}, this arena needs "
                f"{SCHEMA_VERSION}: use a matching arena version or a fresh database"
            )


def open_database(url: str = DEFAULT_DATABASE_URL) -> Engine:
    """`create_engine` then `create_schema`: what the server and the CLI call at start."""
    engine = create_engine(url)
    try:
        create_schema(engine)
    except DBAPIError as exc:
        engine.dispose()
        shown = engine.url.render_as_string(hide_password=True)
        raise SchemaCreationFailed(
            f"cannot create the arena's tables at {shown}: {_first_line(exc.orig)}"
        ) from None
    except BaseException:
        engine.dispose()
        raise
    return engine


def _parse(url: str) -> URL:
    try:
        parsed = sa.make_url(url)
    except ArgumentError:
        raise InvalidDatabaseURL(
            f"malformed database URL {url!r}: expected sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST:PORT/DATABASE"
        ) from None
    shown = parsed.render_as_string(hide_password=True)
    if parsed.drivername in _SQLITE_DRIVERS:
        database = parsed.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:"):
            raise InvalidDatabaseURL(
                f"database URL {shown} is an in-memory SQLite database, which would lose every "
                "game: give a file, e.g. sqlite:///scout-arena.db"
            )
        return parsed
    if parsed.get_backend_name() == "postgresql":
        try:
            driver = parsed.get_driver_name()
        except NoSuchModuleError:
            driver = parsed.drivername
        if driver == _POSTGRES_DRIVER:
            return parsed
        raise InvalidDatabaseURL(
            f"database URL {shown} selects driver {driver!r}: "
            "write postgresql+psycopg://... to use psycopg 3"
        )
    raise InvalidDatabaseURL(
        f"unsupported database URL {shown}: use sqlite:///PATH or postgresql+psycopg://..."
    )


def _create_private(url: URL) -> None:
    """Create the SQLite file of `url`, if it is missing, with mode 0600 before SQLite opens it
    (SQLite would create it 0644 less the umask). A file that cannot be created here is left to
    SQLite, whose error says why."""
    if url.query.get("uri") or not url.database or url.database.startswith("file:"):
        return
    try:
        fd = os.open(url.database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
