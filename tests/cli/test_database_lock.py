"""One arena per database (issue 12, arena/storage/lock.py): a second `serve` on a database an arena
serves exits with one line naming the database and the holder's host and pid; commands that read
keep working meanwhile; once the first stops, the database is free again. Real processes, on
SQLite and PostgreSQL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.errors import DatabaseInUse
from arena.storage.database import open_database, parse_url
from arena.storage.lock import lock_database
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.storage.conftest import postgres_schema
from tests.storage.legacy import load_v3
from tests.tournaments.arena_process import ArenaProcess

SCOUT_ARENA = str(Path(sys.executable).with_name("scout-arena"))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """An empty database of each kind: (URL, how messages name it)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}", str(tmp_path / "arena.db")
        return
    with postgres_schema() as url:
        yield url, sa.make_url(url).render_as_string(hide_password=True)


def test_a_second_arena_on_one_database_exits_naming_the_first(database: tuple[str, str], tmp_path: Path) -> None:
    url, shown = database
    first = ArenaProcess(url, tmp_path / "first.log")
    try:
        second = subprocess.run(
            [SCOUT_ARENA, "serve", "--db", url, "--port", "0"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert second.returncode == 1 and second.stdout == ""
        assert_one_line_error(
            second.stderr, f"another arena serves {shown} (host {socket.gethostname()} pid {first.proc.pid} since "
        )
        assert second.stderr.rstrip().endswith("one arena per database")
        code, output = arena_cli("bot", "register", "reader", "--db", url)
        assert code == 0, output
        code, output = arena_cli("bot", "list", "--db", url)
        assert code == 0 and "reader" in output
    finally:
        assert first.stop() == 0
    again = ArenaProcess(url, tmp_path / "again.log")
    assert again.stop() == 0


def test_db_upgrade_waits_for_no_arena(database: tuple[str, str]) -> None:
    """An upgrade never changes the tables under a serving arena: with the lock held, it is refused."""
    url, shown = database
    load_v3(url)
    parsed = parse_url(url)
    engine = sa.create_engine(url) if parsed.get_backend_name() == "postgresql" else None
    lock = lock_database(parsed, shown, engine=engine)
    try:
        code, output = arena_cli("db", "upgrade", "--db", url)
        assert code == 1
        assert_one_line_error(output, f"another arena serves {shown} (host {socket.gethostname()} pid ")
    finally:
        lock.release()
        if engine is not None:
            engine.dispose()
    code, output = arena_cli("db", "upgrade", "--db", url)
    assert code == 0 and output.startswith("upgraded ")
    open_database(url, create=False).dispose()


def test_a_clusters_nodes_share_the_lock_and_exclude_a_single_arena() -> None:
    """Nodes hold the PostgreSQL lock shared: any number together, never beside a single arena or an
    upgrade, which hold it alone (docs/scale-out.md, "No single arena on a cluster's database")."""
    with postgres_schema() as url:
        parsed = parse_url(url)
        shown = parsed.render_as_string(hide_password=True)
        engine = sa.create_engine(url)
        host = socket.gethostname()
        try:
            nodes = [lock_database(parsed, shown, engine=engine, node=name) for name in ("n1", "n2")]
            with pytest.raises(DatabaseInUse) as refused:
                lock_database(parsed, shown, engine=engine)
            assert str(refused.value).startswith(
                f"the cluster's nodes serve {shown} (node n1: host {host} pid {os.getpid()} since "
            )
            assert f"; node n2: host {host} pid " in str(refused.value)
            assert str(refused.value).endswith("start this arena as one of them (--nats URL --node NAME)")
            for lock in nodes:
                lock.release()
            single = lock_database(parsed, shown, engine=engine)
            with pytest.raises(DatabaseInUse) as refused:
                lock_database(parsed, shown, engine=engine, node="n3")
            assert str(refused.value).startswith(f"another arena serves {shown} alone (host {host} pid ")
            assert str(refused.value).endswith("stop it before starting a cluster's nodes on it")
            single.release()
            lock_database(parsed, shown, engine=engine, node="n3").release()
        finally:
            engine.dispose()
