"""Which databases the commands use (issue 12): another program's database is refused by every
command and left exactly as it was; commands that only read create nothing; a database of the
previous schema is refused with the one command that upgrades it, and `db upgrade` does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.storage.database import open_database
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.storage.conftest import postgres_schema
from tests.storage.legacy import load_v3, snapshot

READS = (
    ("ratings",),
    ("tournament", "list"),
    ("tournament", "show", "t"),
    ("bot", "list"),
    ("games", "list"),
    ("games", "show", "1"),
    ("games", "export"),
    ("games", "verify", "--tournament", "t"),
)
WRITES = (
    ("bot", "register", "b"),
    ("tournament", "create", "t", "--starts-at", "+1d"),
    ("tournament", "start", "t"),
    ("tournament", "seeds", "t"),
    ("admin", "rotate-token"),
    ("db", "upgrade"),
    ("serve", "--port", "0"),
)
FOREIGN_TABLES = ("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO users VALUES (1, 'ada')")


@pytest.fixture(params=["sqlite", "postgresql"])
def foreign(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Another program's database of each kind: (--db value, how messages name it)."""
    if request.param == "sqlite":
        path = tmp_path / "otherapp.db"
        url = f"sqlite:///{path}"
        shown = str(path)
    else:
        context = postgres_schema()
        url = shown = context.__enter__()
        request.addfinalizer(lambda: context.__exit__(None, None, None))
        shown = sa.make_url(url).render_as_string(hide_password=True)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        for statement in FOREIGN_TABLES:
            connection.exec_driver_sql(statement)
    engine.dispose()
    yield (str(path) if request.param == "sqlite" else url), shown


def test_every_command_refuses_a_foreign_database_and_changes_nothing(foreign: tuple[str, str]) -> None:
    db, shown = foreign
    url = db if "://" in db else f"sqlite:///{db}"
    before = snapshot(url)
    for command in (*READS, *WRITES, ("demo", "--replace")):
        code, output = arena_cli(*command, "--db", db)
        assert code == 1, (command, output)
        assert_one_line_error(output, f"{shown} is not a Scout Arena database (it holds users): left untouched")
        assert snapshot(url) == before, command
    code, output = arena_cli("db", "status", "--db", db)
    assert (code, output) == (
        1,
        f"{shown}: is not a Scout Arena database (it holds users): left untouched; "
        "give the arena a database of its own\n",
    )
    assert snapshot(url) == before


def test_a_file_that_is_not_a_database_is_refused_unchanged(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    for command in (READS[0], WRITES[-1], ("db", "upgrade")):
        code, output = arena_cli(*command, "--db", str(notes))
        assert code == 1
        assert_one_line_error(output, f"{notes} is not a SQLite database (file is not a database): left untouched")
    assert notes.read_text() == "not a database\n" * 100


def test_commands_that_read_create_no_database(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    for command in (*READS, *WRITES[:-2], ("db", "status"), ("db", "upgrade")):
        code, output = arena_cli(*command, "--db", str(missing))
        assert code == 1, command
        assert_one_line_error(output, f"there is no database file {missing}: check --db (or start an arena on it)")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_file_is_no_arena_to_read(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    code, output = arena_cli("bot", "list", "--db", str(empty))
    assert code == 1
    assert_one_line_error(output, f"{empty} holds no arena: start one on it with `scout-arena serve --db {empty}`")
    assert empty.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_an_empty_arena_database_reads_fine(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    open_database(f"sqlite:///{db}").dispose()
    for command in (("ratings",), ("tournament", "list"), ("bot", "list"), ("games", "list"), ("games", "export")):
        code, output = arena_cli(*command, "--db", str(db))
        assert code == 0 and "error" not in output, (command, output)


def test_a_version_3_database_is_refused_until_db_upgrade(tmp_path: Path) -> None:
    db = tmp_path / "v3.db"
    load_v3(f"sqlite:///{db}")
    before = db.read_bytes()
    upgrade = f"has schema version 3, this arena needs 7: back it up, then run `scout-arena db upgrade --db {db}`"
    for command in (("ratings",), ("tournament", "list"), ("bot", "register", "b"), ("serve", "--port", "0")):
        code, output = arena_cli(*command, "--db", str(db))
        assert code == 1
        assert_one_line_error(output, f"{db} {upgrade}")
    assert arena_cli("db", "status", "--db", str(db)) == (1, f"{db}: {upgrade}\n")
    assert db.read_bytes() == before

    assert arena_cli("db", "upgrade", "--db", str(db)) == (
        0,
        f"upgraded {db} from schema version 3 to 7, keeping its data\n",
    )
    assert arena_cli("db", "status", "--db", str(db)) == (
        0,
        f"{db}: schema version 7 (scout_arena_v7), the newest: nothing to upgrade\n",
    )
    assert arena_cli("db", "upgrade", "--db", str(db)) == (
        0,
        f"{db} is at schema version 7, the newest: nothing to upgrade\n",
    )
    code, output = arena_cli("games", "verify", "--tournament", "demo", "--db", str(db))
    assert code == 0 and "FAILED" not in output, output
    code, output = arena_cli("ratings", "--tournament", "demo", "--db", str(db))
    assert code == 0 and "greedy" in output and "random-1" in output
