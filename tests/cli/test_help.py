"""Every `--help` of both command-line programs: it works, and a flag shows no value type."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import typer
from typer.main import get_command

from arena.cli.app import app as scout_arena
from bots.greedy import GreedyBot
from sdk.cli import app as scout_bot
from sdk.cli import bot_program
from tests.cli.conftest import runner

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
