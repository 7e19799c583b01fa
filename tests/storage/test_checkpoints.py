"""The write-ahead log's checkpoints (`arena.storage.checkpoints`): on SQLite the writer's commits
leave them to a thread of their own, which folds the log into the database file every
`CHECKPOINT_WRITES` writes and once the writes stop; the writer's connections keep SQLite's own
automatic checkpoint only as a far larger backstop."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from arena.storage import checkpoints, store
from arena.storage.database import open_database
from arena.storage.writer import Writer


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "arena.db"
    engine = open_database(f"sqlite:///{path}")
    engine.dispose()  # its connections gone, the schema is in the file and the log is empty
    yield path


@pytest.fixture
def checkpoints_run(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The moments the checkpoint thread checkpointed."""
    moments: list[float] = []
    real = checkpoints.Checkpointer._checkpoint

    def noted(self: checkpoints.Checkpointer, connection: sqlite3.Connection) -> None:
        real(self, connection)
        moments.append(time.monotonic())

    monkeypatch.setattr(checkpoints.Checkpointer, "_checkpoint", noted)
    return moments


def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def register(writer: Writer, names: range) -> None:
    for i in names:
        writer.run_blocking(store.register_bot, {"name": f"bot{i}"})


def autocheckpoint(*, session: Session) -> int:
    return int(session.connection().exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one())


def test_the_writer_leaves_checkpoints_to_their_thread(database: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpoints, "QUIET_S", 3600.0)  # only the count of writes can set it off
    writes = 0
    writes_at_checkpoints: list[int] = []
    real_wrote, real_checkpoint = checkpoints.Checkpointer.wrote, checkpoints.Checkpointer._checkpoint

    def counted(self: checkpoints.Checkpointer) -> None:
        nonlocal writes
        writes += 1
        real_wrote(self)

    def noted(self: checkpoints.Checkpointer, connection: sqlite3.Connection) -> None:
        writes_at_checkpoints.append(writes)
        real_checkpoint(self, connection)

    monkeypatch.setattr(checkpoints.Checkpointer, "wrote", counted)
    monkeypatch.setattr(checkpoints.Checkpointer, "_checkpoint", noted)
    engine = open_database(f"sqlite:///{database}")
    writer = Writer(engine)
    try:
        assert writer.run_blocking(autocheckpoint, {}) == checkpoints.BACKSTOP_PAGES
        before = database.stat().st_size
        register(writer, range(checkpoints.CHECKPOINT_WRITES + 10))
        until(lambda: bool(writes_at_checkpoints), "the checkpoint thread to checkpoint")
        assert writes_at_checkpoints[0] >= checkpoints.CHECKPOINT_WRITES, "checkpointed before its count of writes"
        until(lambda: database.stat().st_size > before, "the log to be folded into the database file")
    finally:
        writer.close()
        engine.dispose()


def test_writes_that_stop_short_are_checkpointed_once_quiet(
    database: Path, checkpoints_run: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "QUIET_S", 0.2)
    engine = open_database(f"sqlite:///{database}")
    writer = Writer(engine)
    try:
        register(writer, range(3))
        wrote = time.monotonic()
        until(lambda: len(checkpoints_run) == 1, "a checkpoint once the writes stopped")
        assert checkpoints_run[0] - wrote >= 0.2 * 0.9, "checkpointed before the writer went quiet"
        time.sleep(0.5)
        assert len(checkpoints_run) == 1, "a quiet writer was checkpointed again with nothing written"
    finally:
        writer.close()
        engine.dispose()


def checkpoint_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "arena-checkpoint"}


def test_closing_the_writer_ends_the_checkpoint_thread(database: Path) -> None:
    others = checkpoint_threads()  # other tests' writers, in this worker, may still hold theirs
    engine = open_database(f"sqlite:///{database}")
    writer = Writer(engine)
    register(writer, range(2))
    started = checkpoint_threads() - others
    assert len(started) == 1
    writer.close()
    engine.dispose()
    assert not any(t.is_alive() for t in started)


class Failing:
    """A connection whose checkpoints fail while `failing` is set."""

    def __init__(self) -> None:
        self.failing = True

    def execute(self, sql: str) -> sqlite3.Cursor:
        if self.failing:
            raise sqlite3.OperationalError("disk I/O error")
        return sqlite3.connect(":memory:").execute("SELECT 0, 0, 0")


def test_a_failing_checkpoint_is_logged_once_until_one_succeeds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = checkpoints.Checkpointer(str(tmp_path / "arena.db"))
    connection = Failing()
    with caplog.at_level("WARNING", logger="arena.storage.checkpoints"):
        for failing in (True, True, False, True):
            connection.failing = failing
            checkpointer._checkpoint(connection)  # type: ignore[arg-type]
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2, warnings
    assert all("disk I/O error" in w for w in warnings)


def test_a_database_the_thread_cannot_open_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    checkpointer = checkpoints.Checkpointer(str(tmp_path / "missing" / "arena.db"))
    with caplog.at_level("WARNING", logger="arena.storage.checkpoints"):
        checkpointer.wrote()
        checkpointer.close()
    assert [r.getMessage() for r in caplog.records if "unable to open" in r.getMessage()] != []
