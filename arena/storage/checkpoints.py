"""Folding SQLite's write-ahead log back into the database file on a thread of its own.

By default SQLite checkpoints inside the commit that takes the log past 1,000 pages: that commit
then copies the log's pages into the file and syncs both, on the writer's one thread, which every
other write waits behind (docs/benchmarks.md, "Checkpoints off the writer's thread"). Here the
writer's connections leave that to a `Checkpointer`: every `CHECKPOINT_WRITES` writes, and once
the arena goes quiet, it runs a PASSIVE checkpoint on a connection of its own. A PASSIVE
checkpoint takes no lock that the writer or a reader waits for, and the sqlite3 module releases
the GIL while it runs, so on a machine of two cores or more the copy and the syncs overlap the
next commits instead of delaying them.

The writer's connections keep an automatic checkpoint as a backstop, at `BACKSTOP_PAGES`: should
this thread fall behind or fail, the log stays bounded as before, only larger. A checkpoint that
fails is logged once and tried again at the next turn; the log is durable either way, so nothing
depends on it but the log's size.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

from arena.storage.database import BUSY_TIMEOUT_MS

log = logging.getLogger(__name__)

CHECKPOINT_WRITES = 50
"""Writes between checkpoints: each checkpoint syncs the file, so not after every write, and the
log a reader must search stays short."""
QUIET_S = 1.0
"""After this long without a write, the writes since the last checkpoint are folded in too."""
BACKSTOP_PAGES = 10_000
"""The writer's own automatic checkpoint while a `Checkpointer` runs: a log of about 40 MB."""


class Checkpointer:
    """The checkpoint thread of one SQLite database file; the writer calls `wrote` after each write."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._pending = 0
        self._closed = False
        self._failing = False
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        """Started by the first write."""

    def wrote(self) -> None:
        with self._wake:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name="arena-checkpoint", daemon=True)
                self._thread.start()
            self._pending += 1
            if self._pending == 1 or self._pending >= CHECKPOINT_WRITES:  # the quiet clock starts, or due
                self._wake.notify()

    def close(self) -> None:
        """Fold in what is left and stop the thread."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            connection = sqlite3.connect(self._path, isolation_level=None)
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        except sqlite3.Error as exc:
            log.warning("cannot checkpoint the write-ahead log (the writer's own checkpoint stands in): %s", exc)
            return
        try:
            while self._next_turn():
                self._checkpoint(connection)
            self._checkpoint(connection)
        finally:
            connection.close()

    def _next_turn(self) -> bool:
        """Wait until a checkpoint is due (enough writes, or writes and then quiet); False once closed."""
        with self._wake:
            while not self._closed:
                seen = self._pending
                if seen >= CHECKPOINT_WRITES:
                    break
                if not seen:
                    self._wake.wait()
                elif not self._wake.wait(QUIET_S) and self._pending == seen:  # no write for QUIET_S
                    break
            self._pending = 0
            return not self._closed

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        try:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            if not self._failing:
                log.warning("cannot checkpoint the write-ahead log (the writer's own checkpoint stands in): %s", exc)
            self._failing = True
        else:
            self._failing = False
