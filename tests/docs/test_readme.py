"""Every command in the README works as written.

The README's bash blocks are read command by command. Set-up lines must be the ones `.ci/run`
runs; `scout-bot play` and `check` run for real on the README's bot, saved as `my_bot.py` exactly
as the README says; every other `scout-bot` and `scout-arena` command line is parsed by the real
CLI (every subcommand, option and value must be accepted) without being run, since the arena
CLI's own tests run those end to end; the Docker commands must name the compose file and services
that exist. A command no check covers fails `test_every_readme_command_is_checked`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app as arena_app
from sdk.cli import app as scout_bot
from sdk.loading import load_bot
from sdk.local import play_match

from .readme import FIRST_BOT, README, ROOT, Command, blocks, commands, envvars, parse

SETUP = [
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/scout-arena demo",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest",
]
"""The README's first two commands, pinned: .ci/run runs the second, newcomers paste both."""

RUN_FOR_REAL = {("scout-bot", "play"), ("scout-bot", "check")}

KNOWN_PROGRAMS = ("python3", "source", "export", "scout-bot", "scout-arena", "docker")


def readme_commands() -> list[Command]:
    return commands(README)


def ids(found: list[Command]) -> list[str]:
    return [c.line[:80] for c in found]


# ---- the set-up commands ------------------------------------------------------------------------


def test_the_first_block_is_the_two_set_up_commands() -> None:
    first = blocks(README)[0]
    assert first.lang == "bash"
    assert first.text.splitlines() == SETUP


def test_ci_runs_the_readmes_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    last = [line for line in ci if line.strip() and not line.startswith(("#", "export", "set ", "cd "))][-1]
    assert [word for word in last.split() if word != "-q"] == SETUP[1].split()


def test_the_demo_command_parses() -> None:
    path, _ = parse(arena_app, "scout-arena", ["demo"])
    assert path == "scout-arena demo"


def test_activating_the_virtual_environment_follows_the_set_up() -> None:
    lines = [c.line for c in readme_commands()]
    assert lines.index("source .venv/bin/activate") == len(SETUP)
    assert all("python3 -m venv .venv" in line for line in lines[: len(SETUP)])


# ---- the first bot --------------------------------------------------------------------------------


def readme_bot() -> str:
    (block,) = [b for b in blocks(README) if b.lang == "python" and b.section == "Write your first bot"]
    return block.text


def test_the_first_bot_file_is_the_readmes_snippet() -> None:
    assert FIRST_BOT.read_text() == readme_bot()


def test_the_first_bot_is_about_twenty_lines() -> None:
    code = [line for line in readme_bot().splitlines() if line.strip() and not line.lstrip().startswith(("#", '"""'))]
    assert len(code) <= 25


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_first_bot_plays_local_games_and_beats_random(players: int) -> None:
    from bots import RandomBot

    bot = load_bot(str(FIRST_BOT))
    match = play_match([bot, *(RandomBot(seed=k) for k in range(1, players))], games=players * 2, seed=11)
    mine, *others = match.summary()
    assert mine.games == players * 2
    assert mine.mean_placing < min(o.mean_placing for o in others)


def test_the_first_bot_is_a_program_of_its_own() -> None:
    done = subprocess.run(
        [sys.executable, str(FIRST_BOT), "--help"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "--target" in done.stdout and "--token" in done.stdout


# ---- every command ---------------------------------------------------------------------------------


def test_every_readme_command_is_checked() -> None:
    for command in readme_commands():
        assert command.argv[0] in KNOWN_PROGRAMS or command.line in SETUP, f"no test covers: {command}"


def test_readme_exports_are_read_by_the_cli() -> None:
    exported = [c.argv[1].split("=", 1)[0] for c in readme_commands() if c.argv[0] == "export"]
    assert exported, "the README sets the organiser's token"
    readable = envvars(arena_app) | envvars(scout_bot)
    assert set(exported) <= readable


def _with_exports(monkeypatch: pytest.MonkeyPatch, upto: Command) -> None:
    """Set the variables the README exports before `upto`, as the reader's shell would have them."""
    for command in readme_commands():
        if command == upto:
            return
        if command.argv[0] == "export":
            name, _, value = command.argv[1].partition("=")
            monkeypatch.setenv(name, "0" * 64 if value.startswith("$(") else value)


SCOUT_BOT_RUNS = [c for c in readme_commands() if tuple(c.argv[:2]) in RUN_FOR_REAL]
SCOUT_BOT_PARSES = [c for c in readme_commands() if c.argv[0] == "scout-bot" and c not in SCOUT_BOT_RUNS]
SCOUT_ARENA = [c for c in readme_commands() if c.argv[0] == "scout-arena"]
DOCKER = [c for c in readme_commands() if c.argv[0] == "docker"]


def test_the_readme_has_commands_of_every_kind() -> None:
    assert SCOUT_BOT_RUNS and SCOUT_BOT_PARSES and SCOUT_ARENA and DOCKER


@pytest.mark.parametrize("command", SCOUT_BOT_RUNS, ids=ids(SCOUT_BOT_RUNS))
def test_scout_bot_commands_run_on_the_readmes_bot(
    command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_bot.py").write_text(readme_bot())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(scout_bot, command.argv[1:])
    assert result.exit_code == 0, result.output
    assert "FirstBot" in result.output


@pytest.mark.parametrize("command", SCOUT_BOT_PARSES, ids=ids(SCOUT_BOT_PARSES))
def test_other_scout_bot_commands_parse(command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_exports(monkeypatch, command)
    parse(scout_bot, "scout-bot", command.argv[1:])


@pytest.mark.parametrize("command", SCOUT_ARENA, ids=ids(SCOUT_ARENA))
def test_scout_arena_commands_parse(command: Command, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_exports(monkeypatch, command)
    path, _ = parse(arena_app, "scout-arena", command.argv[1:])
    assert path.count(" ") >= 1, "names a subcommand"


@pytest.mark.parametrize("command", DOCKER, ids=ids(DOCKER))
def test_docker_commands_name_the_compose_file_and_its_services(command: Command) -> None:
    argv = command.argv
    assert argv[:4] == ["docker", "compose", "-f", "docker/compose.yaml"], command
    yaml = pytest.importorskip("yaml", reason="PyYAML is missing: install the test extra (it includes pyyaml)")
    compose = yaml.safe_load((ROOT / argv[3]).read_text())
    verb, *rest = argv[4:]
    assert verb in ("up", "logs", "down", "ps", "exec", "build"), command
    if verb == "exec":
        rest = rest[:1]  # the service; what it runs there is checked below
    named = [word for word in rest if not word.startswith("-")]
    assert set(named) <= set(compose["services"]), f"{command}: unknown service"


DOCKER_EXEC = [c for c in DOCKER if c.argv[4] == "exec"]


@pytest.mark.parametrize("command", DOCKER_EXEC, ids=ids(DOCKER_EXEC))
def test_commands_run_in_the_arena_container_parse(command: Command, monkeypatch: pytest.MonkeyPatch) -> None:
    service, program, *args = command.argv[5:]
    assert (service, program) == ("arena", "scout-arena"), command
    _with_exports(monkeypatch, command)
    path, _ = parse(arena_app, program, args)
    assert path.count(" ") >= 1, "names a subcommand"
