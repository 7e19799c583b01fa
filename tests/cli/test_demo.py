"""`scout-arena demo` end to end with small options: an arena and the example bots as processes,
a finished tournament, its rating table, and the database left behind for the read commands."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from arena.records import TournamentStatus
from arena.storage import store
from arena.storage.database import open_database
from tests.cli.conftest import arena_cli, assert_one_line_error
from tests.storage.conftest import postgres_schema

SCOUT_ARENA = str(Path(sys.executable).with_name("scout-arena"))
CI = {**os.environ, "CI": "true"}


def test_the_demo_plays_a_tournament_and_leaves_its_database(tmp_path: Path) -> None:
    """Run where an earlier demo left its database: the demo's own default file is replaced."""
    db = tmp_path / "scout-arena-demo.db"
    open_database(f"sqlite:///{db}").dispose()  # an earlier demo's database
    done = subprocess.run(
        [
            SCOUT_ARENA,
            "demo",
            "--bots",
            "random,greedy,montecarlo,random",
            "--table-size",
            "3",
            "--games-per-table",
            "1",
            "--seed",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=CI,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Bots, each its own process: random-1, greedy, montecarlo, random-2" in out
    assert "Tournament 'demo': 4 games at 3-seat tables, 1 per table" in out
    assert "4/4" in out and "Ratings: tournament demo" in out
    for name in ("random-1", "random-2", "greedy", "montecarlo"):
        assert f"│ {name} " in out
    assert db.exists()
    code, ratings = arena_cli("ratings", "--db", str(db), "--tournament", "demo")
    assert code == 0 and ratings in out
    code, replay = arena_cli("games", "show", "1", "--db", str(db))
    assert code == 0 and "Result:" in replay


def test_the_demo_never_overwrites_a_database_unasked(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    open_database(f"sqlite:///{db}").dispose()
    precious = db.read_bytes()
    done = subprocess.run(
        [SCOUT_ARENA, "demo", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        env=CI,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert_one_line_error(done.stderr, f"{db} exists: pass --replace to overwrite it, or --db ANOTHER.db")
    assert db.read_bytes() == precious


def test_demo_options_are_checked(tmp_path: Path) -> None:
    code, output = arena_cli("demo", "--bots", "random,clever", "--db", str(tmp_path / "d.db"))
    assert code == 1
    assert_one_line_error(
        output, "unknown example bot 'clever' for --bots (choose from greedy, montecarlo, random, strong"
    )
    code, output = arena_cli("demo", "--bots", "random,greedy", "--table-size", "3", "--db", str(tmp_path / "d.db"))
    assert code == 1
    assert_one_line_error(output, "2 bots cannot fill a 3-seat table: add bots or lower --table-size")


def test_the_demo_gives_each_bot_its_token_in_its_environment_not_its_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command line shows in `ps` to every user of the machine; a bot's token is its password."""
    from arena.cli import demo
    from sdk.cli import app as scout_bot
    from tests.docs.readme import option_envvars

    started: list[tuple[list[str], dict[str, str]]] = []

    class Recorded:
        def __init__(self, argv: list[str], **kwargs: Any) -> None:
            started.append((argv, kwargs["env"]))

        def poll(self) -> int:
            return 0

        def wait(self, timeout: float | None = None) -> int:
            return 0

    monkeypatch.setattr(demo.subprocess, "Popen", Recorded)
    cast = demo.entrants(["random", "greedy"], 2)
    tokens = {e.name: f"secret-{e.name}" for e in cast}
    with demo.bot_processes("127.0.0.1:1", tokens, cast, tmp_path):
        pass
    assert len(started) == len(cast)
    assert demo.BOT_TOKEN_VARIABLE in option_envvars(scout_bot, "--token")
    for (argv, env), entrant in zip(started, cast, strict=True):
        assert not any("secret" in word for word in argv) and "--token" not in argv, argv
        assert env[demo.BOT_TOKEN_VARIABLE] == tokens[entrant.name]


def test_demo_on_a_directory_is_one_line(tmp_path: Path) -> None:
    code, output = arena_cli("demo", "--db", str(tmp_path))
    assert code == 1
    assert_one_line_error(
        output,
        f"{tmp_path} is a directory, not a database file: give a file's path, e.g. {tmp_path / 'scout-arena-demo.db'}",
    )
    assert list(tmp_path.iterdir()) == []


def test_the_demo_runs_on_an_empty_postgres_database() -> None:
    with postgres_schema() as url:
        argv = [
            SCOUT_ARENA,
            "demo",
            "--bots",
            "random,greedy",
            "--table-size",
            "2",
            "--games-per-table",
            "1",
            "--seed",
            "2",
            "--db",
            url,
        ]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=CI, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "2/2" in done.stdout and "Ratings: tournament demo" in done.stdout
        code, ratings = arena_cli("ratings", "--db", url, "--tournament", "demo")
        assert code == 0 and "│ greedy " in ratings and "│ random " in ratings
        again = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=CI, stdin=subprocess.DEVNULL)
        assert again.returncode == 1
        shown = sa.make_url(url).render_as_string(hide_password=True)
        assert_one_line_error(
            again.stderr, f"{shown} already holds an arena's tables: the demo needs an empty database"
        )


def test_ctrl_c_stops_the_demo_and_marks_its_tournament_failed(tmp_path: Path) -> None:
    """A real SIGINT once games are being committed: an `interrupted` line, status 130, and a
    tournament that is neither running nor resumed by the next arena (demo.py says why)."""
    db = tmp_path / "demo.db"
    demo = subprocess.Popen(
        [SCOUT_ARENA, "demo", "--db", str(db), "--seed", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CI,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while finished_games(db) < 1:
            assert demo.poll() is None and time.monotonic() < deadline, demo.communicate()
            time.sleep(0.2)
        demo.send_signal(signal.SIGINT)
        _, err = demo.communicate(timeout=120)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 130, err
    assert "Traceback" not in err
    engine = open_database(f"sqlite:///{db}", create=False)
    try:
        with Session(engine) as session:
            t = store.show_tournament(session=session, tournament="demo")
    finally:
        engine.dispose()
    assert t.status is TournamentStatus.FAILED and t.games.running == 0
    done = f"{t.games.finished} of {t.games.total} games"
    assert t.failure == f"interrupted: the demo was stopped (Ctrl-C) after {done}"
    assert 1 <= t.games.finished < t.games.total
    assert err.splitlines()[-1] == (
        f"interrupted: the demo stopped after {done}; tournament 'demo' is marked failed, "
        f"its finished games and ratings are kept in {db}"
    )


def finished_games(db: Path) -> int:
    """Finished games in the demo's database, read without the arena's code (0 before it exists)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT count(*) FROM games WHERE status = 'finished'").fetchone()[0])
    except sqlite3.Error:
        return 0
