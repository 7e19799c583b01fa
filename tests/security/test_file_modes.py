"""Files holding secrets are created readable by their owner only, whatever the umask: the SQLite
database with its -wal and -shm companions (token hashes, seeds, every record), made through the
real code paths (`scout-arena serve --db`, which `scout-arena demo` runs too, and
`LocalArena`), and the SDK's saved-token file with its lock."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli.local import LocalArena
from arena.storage.database import open_database
from sdk.runner import register
from sdk.tokens import save_token
from tests.tournaments.arena_process import ArenaProcess

PERMISSIVE_UMASKS = [0o022, 0o000]


@pytest.fixture(params=PERMISSIVE_UMASKS, ids=lambda m: f"umask-{m:03o}")
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    """This process's umask (inherited by the processes it starts) set permissively for the test."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def companions(db: Path) -> list[Path]:
    return [db, Path(f"{db}-wal"), Path(f"{db}-shm")]


def test_the_arena_creates_its_sqlite_files_for_its_owner_only(umask: int, tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    server = ArenaProcess(f"sqlite:///{db}", tmp_path / "arena.log")
    try:
        register("modest", target=server.target)  # a write, so the -wal file holds something
        assert {p.name: mode(p) for p in companions(db)} == {p.name: "0o600" for p in companions(db)}
    finally:
        assert server.stop() == 0
    assert mode(db) == "0o600"


def test_a_database_made_without_a_server_is_private_too(umask: int, tmp_path: Path) -> None:
    db = tmp_path / "local.db"
    local = LocalArena(open_database(f"sqlite:///{db}"))
    try:
        local.register_bot("quiet")
        assert [mode(p) for p in companions(db)] == ["0o600"] * 3
    finally:
        local.close()


def test_an_existing_database_keeps_its_permissions(umask: int, tmp_path: Path) -> None:
    """The operator's own choice for a file made before (say, a group that backs it up) stands."""
    db = tmp_path / "shared.db"
    LocalArena(open_database(f"sqlite:///{db}")).close()
    db.chmod(0o640)
    LocalArena.open(str(db)).close()
    assert mode(db) == "0o640"


def test_saved_tokens_and_their_lock_are_private(umask: int, tmp_path: Path) -> None:
    path = tmp_path / "config" / "scout-arena" / "tokens.json"
    save_token("127.0.0.1:50051", "bot", "0" * 64, path)
    assert mode(path) == "0o600"
    assert mode(path.with_name("tokens.json.lock")) == "0o600"
    assert mode(path.parent) == "0o700"
