"""One arena per database: the lock `serve` (and `db upgrade`) holds on its database.

* SQLite: an exclusive OS lock on a companion file, `<database>.lock` beside it (created 0600;
  `fcntl.flock` on Linux and macOS, `msvcrt.locking` on Windows: a dozen lines, so no extra
  dependency, and the lock is taken on a byte past the holder's line, which Windows would otherwise
  hide from a refused arena). The database file itself is left to SQLite's own locking. The holder
  writes "host HOST pid PID since TIME" into the file, which a refused second arena quotes; the OS
  drops the lock when the process ends, however it ends, so a stale file never blocks anyone. The
  file is kept after the arena stops (deleting a lock file races with the next taker), emptied.
* PostgreSQL: `pg_try_advisory_lock` on a key derived from the database and schema names
  (`current_database()`, `current_schema()`), held by a dedicated connection for the arena's
  lifetime and named by its `application_name`, which a refused second arena quotes. If that
  connection is cut (the server restarts), the lock is gone: restart the arena.
* A cluster's nodes (`serve --nats`, PostgreSQL only) each hold the same key's *shared* advisory
  lock (`pg_try_advisory_lock_shared`): any number of nodes hold it together, and it excludes the
  exclusive lock of a single arena or an upgrade, as that lock excludes theirs. A single arena
  would void the nodes' running games and play their tournaments beside them; an upgrade would
  change the tables under them.

Commands that only read, and organiser commands with `--db`, take no lock: they work while an
arena serves.
"""

from __future__ import annotations

import os
import socket
import sys
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import DBAPIError

from arena.errors import DatabaseInUse, DatabaseUnreachable

LOCK_SUFFIX = ".lock"
_KEY = "hashtextextended('scout-arena:' || current_database() || '.' || current_schema(), 0)"
_WINDOWS_LOCK_OFFSET = 1 << 30
"""Windows locks bytes, and a locked byte cannot be read: lock one far past the holder's line."""


def holder_line() -> str:
    """Who holds a lock: this host, process and start time."""
    return f"host {socket.gethostname()} pid {os.getpid()} since {datetime.now(UTC):%Y-%m-%d %H:%M:%SZ}"


class DatabaseLock:
    """The lock on one database; `release` (or the process ending) frees it."""

    def __init__(self, release: Any) -> None:
        self._release = release

    def release(self) -> None:
        if self._release is not None:
            self._release()
            self._release = None


def lock_database(url: URL, shown: str, *, engine: Engine | None = None, node: str | None = None) -> DatabaseLock:
    """Take the lock on the database at `url` (named `shown` in messages), or raise
    DatabaseInUse naming the holders. PostgreSQL needs `engine` for the lock's connection. With
    `node` (a cluster node's name; PostgreSQL only), the nodes' shared lock."""
    if url.get_backend_name() == "sqlite":
        assert url.database
        return _lock_file(f"{url.database}{LOCK_SUFFIX}", shown)
    assert engine is not None
    return _lock_postgres(engine, shown, node)


def _lock_file(path: str, shown: str) -> DatabaseLock:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise DatabaseUnreachable(f"cannot create the lock file {path} for {shown}: {exc.strerror}") from None
    if not _try_lock(fd):
        holder = os.read(fd, 200).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise DatabaseInUse(f"another arena serves {shown} ({holder}; lock file {path}): one arena per database")
    os.ftruncate(fd, 0)
    os.write(fd, f"{holder_line()}\n".encode())

    def release() -> None:
        os.ftruncate(fd, 0)
        os.close(fd)  # closing the descriptor drops the lock

    return DatabaseLock(release)


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _lock_postgres(engine: Engine, shown: str, node: str | None) -> DatabaseLock:
    mode = "" if node is None else "_shared"
    try:
        connection = engine.connect()
        name = (_SINGLE if node is None else f"{_NODE}{node}: ")[:40] + holder_line()
        connection.execute(sa.text("SELECT set_config('application_name', :name, false)"), {"name": name[:63]})
        taken = connection.execute(sa.text(f"SELECT pg_try_advisory_lock{mode}({_KEY})")).scalar()
        connection.commit()
    except DBAPIError as exc:
        raise DatabaseUnreachable(
            f"cannot take the arena's lock on {shown}: {str(exc.orig).strip().splitlines()[0]}"
        ) from None
    if not taken:
        single, nodes = _postgres_holders(connection)
        connection.close()
        if single is not None:
            alone = "" if node is None else " alone"
            suffix = "one arena per database" if node is None else "stop it before starting a cluster's nodes on it"
            raise DatabaseInUse(f"another arena serves {shown}{alone} ({single}): {suffix}")
        if nodes:
            raise DatabaseInUse(
                f"the cluster's nodes serve {shown} ({'; '.join(nodes)}): stop them first, or start this arena "
                "as one of them (--nats URL --node NAME)"
            )
        raise DatabaseInUse(f"another arena serves {shown} (a session that just let go: try again)")

    def release() -> None:
        try:
            connection.execute(sa.text(f"SELECT pg_advisory_unlock{mode}({_KEY})"))
            connection.commit()
        except DBAPIError:
            pass  # the connection is gone, and the lock with it
        finally:
            connection.close()

    return DatabaseLock(release)


_SINGLE = "scout-arena serve: "
_NODE = "scout-arena node "
"""How a lock holder's `application_name` starts: a single arena's, or a node's (then its name)."""


def _postgres_holders(connection: Connection) -> tuple[str | None, list[str]]:
    """Who holds the lock: the single arena holding it alone, or the nodes sharing it, each named by
    its application_name where visible to us, else by its server pid."""
    key = connection.execute(sa.text(f"SELECT {_KEY}")).scalar()
    assert isinstance(key, int)
    unsigned = key & 0xFFFF_FFFF_FFFF_FFFF
    rows = connection.execute(
        sa.text(
            "SELECT a.pid, a.application_name, a.client_addr, l.mode FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = CAST(:high AS oid) "
            "AND l.objid = CAST(:low AS oid) AND l.objsubid = 1 AND l.database = "
            "(SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY a.backend_start"
        ),
        {"high": unsigned >> 32, "low": unsigned & 0xFFFF_FFFF},
    ).all()
    connection.rollback()
    single: str | None = None
    nodes: list[str] = []
    for pid, application, client, mode in rows:
        if isinstance(application, str) and application.startswith(_SINGLE):
            who = application.removeprefix(_SINGLE)
        elif isinstance(application, str) and application.startswith(_NODE):
            who = application.removeprefix("scout-arena ")
        else:
            who = f"PostgreSQL backend pid {pid}" + (f" from {client}" if client else "")
        if mode == "ShareLock":
            nodes.append(who)
        else:
            single = who
    return single, nodes
