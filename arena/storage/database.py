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

The schema is Alembic's (`arena/storage/migrations`, run from here; no alembic.ini). `open_database` first
looks at what the database holds without writing to it (`inspect_schema`; SQLite read-only), and
uses it only if it is the arena's at the head revision, or empty (then, if allowed to create,
it builds the tables by running every revision). Another program's database, an older schema
(`upgrade_database`, i.e. `scout-arena db upgrade`) and a newer one are refused untouched.

Any problem raises an `arena.errors.ArenaError` (`InvalidDatabaseURL`, `DatabaseUnreachable`,
`ForeignDatabase`, `UpgradeNeeded`, ...) with a one-line message, never a driver traceback.

Usage: `engine = open_database(url)`, then `with sqlmodel.Session(engine) as session:` and the
functions of `arena.storage.store`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import NullPool

from arena.errors import (
    DatabaseUnreachable,
    ForeignDatabase,
    InvalidDatabaseURL,
    NoArenaDatabase,
    SchemaCreationFailed,
    SchemaVersionMismatch,
    UpgradeNeeded,
)
from arena.storage import DEFAULT_DATABASE_URL
from arena.storage.tables import SCHEMA_VERSION

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

# Alembic (and the migrations package, which imports it) only where revisions are read or run: a
# database at the head revision is recognised by its name (HEAD_REVISION), so a command that only
# reads it, `scout-arena ratings --db FILE`, does not import Alembic at all.

logging.getLogger("alembic").setLevel(logging.WARNING)
"""Alembic logs every revision it runs at INFO: `db upgrade` says what it did in one line."""

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite connection waits for another writer before giving up."""

CONNECT_TIMEOUT_S = 10
"""How long connecting to PostgreSQL may take before the database counts as unreachable."""

_SQLITE_DRIVERS = ("sqlite", "sqlite+pysqlite")
_POSTGRES_DRIVER = "psycopg"
HEAD_REVISION = f"scout_arena_v{SCHEMA_VERSION}"
"""The newest revision: each is named for the schema version it makes (`arena.storage.migrations`);
tests/storage/test_db.py checks that the scripts' head is this one."""
BASELINE_REVISION = "scout_arena_v3"
BASELINE_VERSION = 3
"""The oldest revision (`arena/storage/migrations`): the schema the arena made before Alembic."""


def create_engine(url: str = DEFAULT_DATABASE_URL) -> Engine:
    """An engine for `url`, checked by connecting once; see the module docstring for the URLs."""
    parsed = parse_url(url)
    shown = parsed.render_as_string(hide_password=True)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        kwargs["connect_args"] = _postgres_connect_args(parsed)
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


def writer_engine(engine: Engine, connections: int, *, autocheckpoint_pages: int | None = None) -> Engine:
    """An engine on `engine`'s database for the writer (`arena.storage.writer`), with at most
    `connections` connections. On SQLite each transaction begins with BEGIN IMMEDIATE: it takes
    the file's write lock before its first read, waiting up to the busy timeout for a writer of
    another process, so it never fails half way for want of the lock (a deferred transaction that
    has read gets "database is locked" at once when it tries to write while another writer holds
    the lock). `autocheckpoint_pages` moves SQLite's automatic checkpoint from its 1,000 pages of
    log, for a writer whose checkpoints run elsewhere (`arena.storage.checkpoints`)."""
    url = engine.url
    if url.drivername not in _SQLITE_DRIVERS:
        writer = sa.create_engine(url, pool_size=connections, max_overflow=0, connect_args=_postgres_connect_args(url))
        _ping_when_idle(writer)
        return writer
    writer = sa.create_engine(url, pool_size=connections, max_overflow=0)

    @sa.event.listens_for(writer, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        _sqlite_pragmas(dbapi_connection, record)
        if autocheckpoint_pages is not None:
            dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={autocheckpoint_pages}")
        dbapi_connection.isolation_level = None

    @sa.event.listens_for(writer, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return writer


PING_IDLE_S = 1.0
"""A writer connection idle for longer is checked before use (`_ping_when_idle`)."""


def _ping_when_idle(engine: Engine) -> None:
    """Check a PostgreSQL connection before use only when it has been idle over `PING_IDLE_S`.

    A busy writer takes a connection for every write; a check each time (`pool_pre_ping`) would be
    one more round trip per game committed. A connection in use a moment ago is alive or fails its
    write as any connection lost mid-write does (the runner retries a game's commit); one idle for a
    while may have been dropped by a server restart, and is replaced before the write sees it (the
    pool retries the checkout on a new connection)."""

    @sa.event.listens_for(engine, "checkin")
    def _checkin(_: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, _: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since <= PING_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise sa.exc.DisconnectionError(f"a writer connection was lost while idle: {exc}") from exc


def _postgres_connect_args(url: URL) -> dict[str, Any]:
    return {} if "connect_timeout" in url.query else {"connect_timeout": CONNECT_TIMEOUT_S}


class SchemaKind(StrEnum):
    """What a database holds, as far as the arena is concerned (`inspect_schema`)."""

    EMPTY = "empty"
    """No tables at all: the arena may create its own."""
    CURRENT = "current"
    """The arena's tables at this version's head revision."""
    OUTDATED = "outdated"
    """The arena's tables at an older schema version: `scout-arena db upgrade` brings them forward."""
    NEWER = "newer"
    """The arena's tables at a schema version this arena does not know."""
    TOO_OLD = "too old"
    """The arena's tables at a version from before the oldest revision (3)."""
    FOREIGN = "foreign"
    """Tables that are not a Scout Arena's."""


@dataclass(frozen=True)
class SchemaState:
    """A database's schema: its kind, version (`schema_info`) and Alembic revision, and for a
    foreign one a few of its tables."""

    kind: SchemaKind
    version: int | None = None
    revision: str | None = None
    tables: tuple[str, ...] = ()


def inspect_schema(connection: Connection) -> SchemaState:
    """What the database on `connection` holds; reads only.

    A database is the arena's when its `alembic_version` names one of `arena/storage/migrations`'
    revisions, or (made before Alembic, or by a newer arena) it has the arena's `schema_info`
    table: `alembic_version` alone is any Alembic project's."""
    names = sorted(sa.inspect(connection).get_table_names())
    if not names:
        return SchemaState(SchemaKind.EMPTY)
    revision = _single_value(connection, "alembic_version", "version_num") if "alembic_version" in names else None
    version = _single_value(connection, "schema_info", "version") if "schema_info" in names else None
    if revision == HEAD_REVISION:
        return SchemaState(SchemaKind.CURRENT, SCHEMA_VERSION, HEAD_REVISION)
    known = _script().get_revision(revision) if revision in _revisions() else None
    if known is not None:
        kind = SchemaKind.CURRENT if known.revision == _head() else SchemaKind.OUTDATED
        return SchemaState(kind, known.module.schema_version, known.revision)
    if not isinstance(version, int):
        others = [n for n in names if n != "alembic_version"] or names
        return SchemaState(SchemaKind.FOREIGN, tables=(*others[:3], *(["..."] if len(others) > 3 else [])))
    if revision is not None or version > SCHEMA_VERSION:
        return SchemaState(SchemaKind.NEWER, version, None if revision is None else str(revision))
    if version < BASELINE_VERSION:
        return SchemaState(SchemaKind.TOO_OLD, version)
    return SchemaState(SchemaKind.OUTDATED, version)


def open_database(url: str = DEFAULT_DATABASE_URL, *, create: bool = True) -> Engine:
    """An engine on the arena's database at `url`; what the server and the CLI call at start.

    An empty database (a new SQLite file, a PostgreSQL database or schema without tables) gets
    the arena's tables at the head revision if `create`, else it is refused, so a command that
    only reads creates nothing. A database of another program, of an older schema (`scout-arena db
    upgrade`) or of a newer one is refused before anything in it changes."""
    parsed = parse_url(url)
    path = _sqlite_path(parsed)
    if path is not None and not create:
        _must_exist(path)
    state = _inspect_without_writing(parsed)
    refuse_unusable(state, parsed, create=create)
    engine = create_engine(url)
    try:
        if state.kind is SchemaKind.EMPTY:
            _create_at_head(parsed)
    except BaseException:
        engine.dispose()
        raise
    return engine


def database_state(url: str) -> SchemaState:
    """The schema of the database at `url` (`scout-arena db status`); changes nothing and
    refuses a missing SQLite file."""
    parsed = parse_url(url)
    path = _sqlite_path(parsed)
    if path is not None:
        _must_exist(path)
    return _inspect_without_writing(parsed)


def upgrade_database(url: str) -> tuple[SchemaState, SchemaState]:
    """Bring the arena's database at `url` to the head revision with its data, in one
    transaction (all or nothing); returns its state before and after. An empty database gets
    the tables at head; a foreign or newer one is refused untouched."""
    parsed = parse_url(url)
    path = _sqlite_path(parsed)
    if path is not None:
        _must_exist(path)
    before = _inspect_without_writing(parsed)
    if before.kind is SchemaKind.OUTDATED or before.kind is SchemaKind.EMPTY:
        _create_at_head(parsed, upgrade=True)
    else:
        refuse_unusable(before, parsed, create=True)
    return before, _inspect_without_writing(parsed)


def refuse_unusable(state: SchemaState, url: URL, *, create: bool) -> None:
    """Raise the one-line error for a database this arena must not use as it is."""
    shown = shown_database(url)
    if state.kind is SchemaKind.CURRENT or (state.kind is SchemaKind.EMPTY and create):
        return
    if state.kind is SchemaKind.EMPTY:
        raise NoArenaDatabase(
            f"{shown} holds no arena: start one on it with `scout-arena serve --db {shown}`, or check --db"
        )
    if state.kind is SchemaKind.FOREIGN:
        raise ForeignDatabase(
            f"{shown} is not a Scout Arena database (it holds {', '.join(state.tables)}): "
            "left untouched; give the arena a database of its own"
        )
    if state.kind is SchemaKind.OUTDATED:
        raise UpgradeNeeded(
            f"{shown} has schema version {state.version}, this arena needs {SCHEMA_VERSION}: back it up, then "
            f"run `scout-arena db upgrade --db {shown}`"
        )
    if state.kind is SchemaKind.NEWER:
        raise SchemaVersionMismatch(
            f"{shown} has schema version {state.version} from a newer Scout Arena, this arena knows up to "
            f"{SCHEMA_VERSION}: use that arena's version"
        )
    raise SchemaVersionMismatch(
        f"{shown} has schema version {state.version}, older than any this arena can upgrade "
        f"({BASELINE_VERSION}): use a fresh database"
    )


def shown_database(url: URL) -> str:
    """How messages name a database: a SQLite file by its path, else its URL without password."""
    path = _sqlite_path(url)
    return path if path is not None else url.render_as_string(hide_password=True)


def _inspect_without_writing(url: URL) -> SchemaState:
    """`inspect_schema` on a connection that cannot change the database: a SQLite file opened
    read-only (and none at all if it is missing or empty), a PostgreSQL transaction rolled back."""
    path = _sqlite_path(url)
    if path is None:
        engine = create_engine(url.render_as_string(hide_password=False))
        try:
            with engine.connect() as connection:
                return inspect_schema(connection)
        finally:
            engine.dispose()
    if not os.path.exists(path) or (os.path.isfile(path) and os.path.getsize(path) == 0):
        return SchemaState(SchemaKind.EMPTY)
    if os.path.isdir(path):
        raise InvalidDatabaseURL(
            f"{path} is a directory, not a database file: give a file's path, e.g. {path}/arena.db"
        )
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    engine = sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return inspect_schema(connection)
    except sa.exc.DatabaseError as exc:
        raise ForeignDatabase(f"{path} is not a SQLite database ({_first_line(exc.orig)}): left untouched") from None
    finally:
        engine.dispose()


def _create_at_head(url: URL, *, upgrade: bool = False) -> None:
    """Create the arena's tables at head on an empty database (or, with `upgrade`, bring an
    outdated one to head), in one transaction that first looks again at what the database holds:
    two processes creating one database at once create it once."""
    shown = shown_database(url)
    migrations = _migration_engine(url)
    try:
        with migrations.begin() as connection:
            if url.get_backend_name() == "postgresql":
                connection.execute(
                    sa.text(
                        "SELECT pg_advisory_xact_lock(hashtext('scout-arena migrations:' || "
                        "current_database() || '.' || current_schema()))"
                    )
                )
            state = inspect_schema(connection)
            if state.kind is SchemaKind.CURRENT:
                return
            if not (state.kind is SchemaKind.EMPTY or (upgrade and state.kind is SchemaKind.OUTDATED)):
                refuse_unusable(state, url, create=True)
            from alembic import command

            config = _config(connection)
            if state.kind is SchemaKind.OUTDATED and state.revision is None:
                command.stamp(config, BASELINE_REVISION)
            command.upgrade(config, "head")
            if url.get_backend_name() == "sqlite":
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
                if broken is not None:
                    raise SchemaCreationFailed(
                        f"upgrading {shown} would break a reference in table {broken[0]}: nothing was changed"
                    )
    except DBAPIError as exc:
        what = "upgrade" if upgrade else "create the arena's tables at"
        raise SchemaCreationFailed(f"cannot {what} {shown}: {_first_line(exc.orig)}") from None
    finally:
        migrations.dispose()


def _migration_engine(url: URL) -> Engine:
    """The engine migrations run on. PostgreSQL: a plain one (its DDL is transactional). SQLite:
    one whose transactions really are (BEGIN IMMEDIATE, which Python 3.11's sqlite3 would not emit
    before DDL), with foreign keys off while tables are rebuilt, as SQLite asks, and without the
    arena's WAL pragma, so a failed upgrade leaves the file as it was."""
    if url.get_backend_name() != "sqlite":
        return create_engine(url.render_as_string(hide_password=False))
    migrations = sa.create_engine(url, poolclass=NullPool, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

    @sa.event.listens_for(migrations, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA foreign_keys=OFF")

    @sa.event.listens_for(migrations, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return migrations


def _config(connection: Connection) -> Config:
    """Alembic's configuration, made here rather than read from an alembic.ini."""
    from alembic.config import Config

    from arena.storage import migrations as migrations_package

    config = Config()
    config.set_main_option("script_location", str(migrations_package.LOCATION))
    config.attributes["connection"] = connection
    return config


@cache
def _script() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    from arena.storage import migrations as migrations_package

    return ScriptDirectory(str(migrations_package.LOCATION))


@cache
def _revisions() -> frozenset[str]:
    return frozenset(r.revision for r in _script().walk_revisions())


def _head() -> str:
    head = _script().get_current_head()
    assert head is not None
    return head


def _single_value(connection: Connection, table: str, column: str) -> object:
    """The value of `column` in `table`'s only row, or None (no such column, no row, several)."""
    if column not in {c["name"] for c in sa.inspect(connection).get_columns(table)}:
        return None
    value: sa.ColumnClause[object] = sa.column(column)
    rows = connection.execute(sa.select(value).select_from(sa.table(table)).limit(2)).all()
    return rows[0][0] if len(rows) == 1 else None


def _sqlite_path(url: URL) -> str | None:
    """The file of a SQLite URL, None for PostgreSQL."""
    return url.database if url.drivername in _SQLITE_DRIVERS and url.database else None


def _must_exist(path: str) -> None:
    if not os.path.exists(path):
        raise NoArenaDatabase(f"there is no database file {path}: check --db (or start an arena on it)")


def parse_url(url: str) -> URL:
    """`url` checked and parsed; InvalidDatabaseURL says what is wrong with it."""
    try:
        parsed = sa.make_url(url)
    except ArgumentError:
        raise InvalidDatabaseURL(
            f"malformed database URL {url!r}: expected sqlite:///PATH or postgresql+psycopg://USER@HOST:PORT/DATABASE"
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
            f"database URL {shown} selects driver {driver!r}: write postgresql+psycopg://... to use psycopg 3"
        )
    raise InvalidDatabaseURL(f"unsupported database URL {shown}: use sqlite:///PATH or postgresql+psycopg://...")


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
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _first_line(exc: BaseException | None) -> str:
    """The first line of an error's text; a DBAPI error's `orig` may be missing."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
