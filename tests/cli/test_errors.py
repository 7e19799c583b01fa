"""User mistakes get one clear `error:` line and a non-zero exit, never a traceback: unknown names,
bad times, wrong URLs and addresses, unreachable servers, missing or wrong tokens."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import arena_cli, assert_one_line_error, bot_cli
from tests.tournaments.arena_process import ArenaProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    tmp = tmp_path_factory.mktemp("errors")
    arena = ArenaProcess(f"sqlite:///{tmp / 'arena.db'}", tmp / "server.log")
    yield arena
    assert arena.stop() == 0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["tournament", "show", "nope"], 1, "there is no tournament named 'nope'"),
        (["ratings", "--tournament", "nope"], 1, "there is no tournament named 'nope'"),
        (["ratings", "--bootstrap", "5000"], 2, "Invalid value for '--bootstrap'"),
        (["head-to-head", "--tournament", "nope"], 1, "there is no tournament named 'nope'"),
        (["games", "show", "12345"], 1, "there is no game 12345"),
        (["games", "show", "twelve"], 2, "Invalid value for 'ID': "),
        (
            ["tournament", "create", "t", "--starts-at", "next friday"],
            2,
            "Invalid value for --starts-at: expected an ISO 8601 time such as 2030-01-04T18:00:00Z",
        ),
        (["tournament", "create", "t", "--starts-at", "now", "--table-size", "7"], 1, "table size must be 2 to 5"),
        (
            ["tournament", "create", "t", "--starts-at", "now", "--move-ms", "1"],
            1,
            "move_limit_ms must be within 10..600000, not 1",
        ),
        (["tournament", "start", "nope"], 1, "there is no tournament named 'nope'"),
        (["bot", "register", "no spaces"], 1, "invalid bot name 'no spaces'"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_mistakes_against_a_server(server: ArenaProcess, args: list[str], status: int, message: str) -> None:
    code, output = arena_cli(
        *args, "--server", server.target, env={"SCOUT_ARENA_ADMIN_TOKEN": server.admin_token or ""}
    )
    assert code == status
    assert_one_line_error(output, message)


def test_organiser_commands_need_the_right_admin_token(server: ArenaProcess) -> None:
    create = ["tournament", "create", "t", "--starts-at", "+1h", "--server", server.target]
    code, output = arena_cli(*create, env={"SCOUT_ARENA_ADMIN_TOKEN": ""})
    assert code == 1
    assert_one_line_error(
        output, "this command needs the arena's admin token: pass --admin-token or set SCOUT_ARENA_ADMIN_TOKEN"
    )
    code, output = arena_cli(*create, "--admin-token", "0" * 64)
    assert code == 1
    assert_one_line_error(output, f"the arena at {server.target} refused the admin token")
    assert arena_cli(*create, env={"SCOUT_ARENA_ADMIN_TOKEN": server.admin_token or ""})[0] == 0


def test_unreachable_servers_and_malformed_addresses(tmp_path: Path) -> None:
    code, output = arena_cli("tournament", "list", "--server", f"127.0.0.1:{closed_port()}")
    assert code == 1
    assert_one_line_error(output, "no arena answers at 127.0.0.1:")
    code, output = arena_cli("ratings", "--server", "arena.example")
    assert code == 1
    assert_one_line_error(output, "the arena's address must be HOST:PORT, not 'arena.example'")


@pytest.mark.parametrize(
    ("db", "message"),
    [
        ("bogus://x", "unsupported database URL bogus://x"),
        ("postgresql+psycopg://u@127.0.0.1:1/x", "cannot reach the database at postgresql+psycopg://u@127.0.0.1:1/x"),
        ("missing.db", "there is no database file "),
    ],
)
def test_wrong_database_urls(db: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = arena_cli("ratings", "--db", db)
    assert code == 1
    assert_one_line_error(output, message)


def test_serve_refuses_a_bad_database_in_one_line(tmp_path: Path) -> None:
    code, output = arena_cli("serve", "--db", f"sqlite:///{tmp_path}/no/such/dir/arena.db", "--port", "0")
    assert code == 1
    assert_one_line_error(output, "cannot reach the database at sqlite:///")


def test_scout_bot_run_mistakes(server: ArenaProcess, tmp_path: Path) -> None:
    env = {"SCOUT_ARENA_TOKENS": str(tmp_path / "tokens.json")}
    code, output = bot_cli("run", "random", "--tournament", "nope", "--target", server.target, env=env)
    assert code == 1
    assert output.splitlines()[0].startswith("registered 'RandomBot'")
    assert_one_line_error(
        output.split("\n", 1)[1], "the arena refused RandomBot: NOT_FOUND: there is no tournament named 'nope'"
    )
    code, output = bot_cli(
        "run",
        "random",
        "--tournament",
        "nope",
        "--target",
        server.target,
        env={"SCOUT_ARENA_TOKENS": str(tmp_path / "other.json")},
    )
    assert code == 1
    assert_one_line_error(
        output,
        f"cannot register 'RandomBot' at {server.target}: ALREADY_EXISTS: the bot name "
        "'RandomBot' is taken: choose another; if the name is yours, pass its --token",
    )
    code, output = bot_cli("run", "random", "--tournament", "t", "--target", server.target, "--token", "bad")
    assert code == 1
    assert_one_line_error(output, "the arena refused RandomBot: UNAUTHENTICATED: unknown bot token")
    code, output = bot_cli("run", "random", "--tournament", "t", "--max-games", "1", "--target", server.target)
    assert code == 1
    assert_one_line_error(output, "--max-games and --tournament do not go together")
    code, output = bot_cli("run", "random", "--tournament", "t", "--casual", "--target", server.target)
    assert code == 1
    assert_one_line_error(output, "--casual and --tournament do not go together")
    code, output = bot_cli("run", "greedy", "--move-time", "0.1", "--token", "x", "--target", server.target)
    assert code == 1
    assert_one_line_error(output, "--move-time is for example bots that search (montecarlo, strong), not 'greedy'")
    (tmp_path / "broken.json").write_text("{not json")
    code, output = bot_cli(
        "run", "random", "--target", server.target, env={"SCOUT_ARENA_TOKENS": str(tmp_path / "broken.json")}
    )
    assert code == 1
    assert_one_line_error(output, f"cannot read the token file {tmp_path / 'broken.json'}: ")


def test_rotating_the_admin_token_on_the_database(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    first = ArenaProcess(f"sqlite:///{db}", tmp_path / "server.log")
    try:
        code, output = arena_cli("admin", "rotate-token", "--db", str(db))
        assert code == 0 and output.startswith("New admin token (shown this once): ")
        new = output.split(": ", 1)[1].strip()
        create = ["tournament", "create", "t", "--starts-at", "+1h", "--server", first.target]
        assert arena_cli(*create, "--admin-token", first.admin_token or "")[0] == 1
        assert arena_cli(*create, "--admin-token", new)[0] == 0
    finally:
        assert first.stop() == 0


def test_serving_on_a_port_another_arena_holds_fails_in_one_line(server: ArenaProcess, tmp_path: Path) -> None:
    """A second arena on a taken port must not start and silently share the traffic (SO_REUSEPORT)."""
    port = server.target.rsplit(":", 1)[1]
    code, output = arena_cli("serve", "--db", f"sqlite:///{tmp_path / 'second.db'}", "--port", port)
    assert code == 1
    assert_one_line_error(output, f"cannot listen on 127.0.0.1:{port}")
