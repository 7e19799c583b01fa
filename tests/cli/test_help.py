"""Every `--help` of both command-line programs: it works, a flag shows no value type, and it
imports only what it needs (no gRPC, database or web server: each command imports its own)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.main import get_command

from arena.cli.app import app as scout_arena
from arena.storage.database import open_database
from bots.greedy import GreedyBot
from sdk.cli import app as scout_bot
from sdk.cli import bot_program
from tests.cli.conftest import runner
from tests.timeouts import CALL_S

PROGRAMS = {"scout-arena": scout_arena, "scout-bot": scout_bot, "python -m bots.greedy": bot_program(GreedyBot)}


def command_paths(command: object, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every command and group under `command`, itself first."""
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from command_paths(sub, (*path, name))


HELPS = [(program, path) for program, app in PROGRAMS.items() for path in command_paths(get_command(app))]


def test_every_command_is_listed() -> None:
    assert ("tournament", "create") in [path for program, path in HELPS if program == "scout-arena"]
    assert ("run",) in [path for program, path in HELPS if program == "scout-bot"]


@pytest.mark.parametrize(("program", "path"), HELPS, ids=[" ".join((p, *path)) for p, path in HELPS])
def test_no_help_shows_a_type_beside_a_flag(program: str, path: tuple[str, ...]) -> None:
    app: typer.Typer = PROGRAMS[program]
    result = runner.invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout and "--help" in result.stdout
    assert "<bool>" not in result.stdout


HEAVY = ("grpc", "google.protobuf", "sqlalchemy", "sqlmodel", "alembic", "fastapi", "starlette", "uvicorn")
"""What a command that neither serves nor talks to a server must not import: gRPC, protobuf, the
database and the web server are most of a second of CPU before anything is shown."""
LIGHT_COMMANDS = [
    ("arena.cli.app", ["--help"]),
    ("arena.cli.app", ["serve", "--help"]),
    ("arena.cli.app", ["tournament", "create", "--help"]),
    ("sdk.cli", ["--help"]),
    ("sdk.cli", ["run", "--help"]),
]


def imported_by(module: str, args: list[str]) -> list[str]:
    """The HEAVY packages a fresh interpreter has imported once `module`'s app has run `args`."""
    code = (
        "import sys\n"
        f"from {module} import app\n"
        "try:\n"
        f"    app(args={args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules if m.startswith({HEAVY!r})}}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=CALL_S)
    assert done.returncode == 0 and done.stderr.strip(), done.stderr
    return list(ast.literal_eval(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(("module", "args"), LIGHT_COMMANDS, ids=[f"{m} {' '.join(a)}" for m, a in LIGHT_COMMANDS])
def test_help_imports_no_server_database_or_grpc_code(module: str, args: list[str]) -> None:
    assert imported_by(module, args) == []


def test_a_read_command_on_a_database_imports_only_the_database(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    open_database(f"sqlite:///{db}").dispose()
    assert set(imported_by("arena.cli.app", ["bot", "list", "--db", str(db)])) <= {"sqlalchemy", "sqlmodel"}


def test_a_read_command_on_a_server_imports_only_grpc() -> None:
    """A closed port: the command pays for its imports and stops at the call (grpc imports
    grpc_tools and grpc_reflection itself, where they are installed)."""
    imported = set(imported_by("arena.cli.app", ["bot", "list", "--server", "127.0.0.1:1"]))
    assert "grpc" in imported
    assert {m for m in imported if not m.startswith("grpc")} == {"google"}, "a storage or web package"


def test_the_check_sees_a_command_that_does_import_them(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    open_database(f"sqlite:///{db}").dispose()
    assert "sqlalchemy" in imported_by("arena.cli.app", ["bot", "list", "--db", str(db)])
