"""Every command in the README works as written: the README is walked through for real.

The set-up lines must be the ones `.ci/run` runs. Then `tests/docs/walk.py` gives the README's
commands in order, in a fresh directory, as its reader would: the demo, the first bot saved as
`my_bot.py` and played locally, an arena (`scout-arena serve`) and each bot (`scout-bot run`) in a
process of its own, the organiser's commands, the ratings and the games, every output checked
against the arena. The walk's docstring lists its only rewrites of a line (a free port for 50051,
the token the arena printed for its placeholder, ...). The PostgreSQL section is walked the same
way on the test server, and the Docker commands, which cannot run on this machine (it has no
`docker compose`), are validated against the compose file and run there without Docker
(tests/docker). `test_every_readme_command_is_run` fails for a command no walk gives.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import pytest

from arena.cli.app import app as arena_app
from arena.records import TournamentStatus
from sdk.cli import app as scout_bot
from sdk.loading import load_bot
from sdk.local import play_match
from tests.docs.readme import FIRST_BOT, README, ROOT, Command, blocks, commands, envvars, parse

from . import walk as walking

SETUP = [
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/scout-arena demo",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest",
]
"""The README's first two commands, pinned: .ci/run runs the second, newcomers paste both."""


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
    """`.ci/run` runs the README's set-up steps in order, on one line or several, and the tests last;
    the checks of docs/contributing.md may run between the install and the tests."""
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    lines = [line for line in ci if line.strip() and not line.startswith(("#", "export", "set ", "cd "))]
    steps = [" ".join(w for w in step.split() if w != "-q") for line in lines for step in line.split("&&")]
    readme = [step.strip() for step in SETUP[1].split("&&")]
    assert steps[-1] == readme[-1], "the tests must be .ci/run's last step"
    assert [step for step in steps if step in readme] == readme


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
        [sys.executable, str(FIRST_BOT), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert "--target" in done.stdout and "--token" in done.stdout


# ---- every command ---------------------------------------------------------------------------------


STEPS = walking.readme_steps()
README_COMMANDS = [(s, walking.how_run(s, STEPS)) for s in STEPS if s.command is not None]


def test_every_readme_command_is_run() -> None:
    """Each command is given by a walk below, or is a set-up or Docker command checked its own way."""
    kinds = {how for _, how in README_COMMANDS}
    assert kinds <= {walking.MAIN, walking.POSTGRES, walking.DOCKER, walking.TEST_COMMAND}
    for step, how in README_COMMANDS:
        assert step.command is not None
        if how == walking.MAIN:
            assert step in walking.main_walk(STEPS), step.command
        elif how == walking.POSTGRES:
            assert step in walking.postgres_walk(STEPS), step.command
        elif how == walking.TEST_COMMAND:
            assert step.command.line == SETUP[1] or step.command.line in POSTGRES_TEST_COMMANDS, step.command
        else:
            assert step.command in DOCKER or step.command in DOCKER_SHELL, step.command
    assert {walking.MAIN, walking.POSTGRES, walking.DOCKER} <= kinds


def test_readme_exports_are_read_by_the_cli_or_libpq() -> None:
    exported = {c.argv[1].split("=", 1)[0] for c in readme_commands() if c.argv[0] == "export"}
    assert "SCOUT_ARENA_ADMIN_TOKEN" in exported, "the README sets the organiser's token"
    readable = envvars(arena_app) | envvars(scout_bot)
    assert {name for name in exported if not name.startswith("PG")} <= readable
    assert {name for name in exported if name.startswith("PG")} <= {"PGPASSWORD"}, "libpq's password variable"


def test_no_readme_command_line_carries_a_secret() -> None:
    """A command line shows in `ps` to every user of the machine: tokens and passwords go in the
    environment (`export`, a shell builtin, runs no process)."""
    for command in readme_commands():
        if command.argv[0] == "export":
            continue
        assert not any(word.startswith(("--admin-token", "--token", "--entry-code")) for word in command.argv), command
        assert not re.search(r"://[^/@\s]*:[^/@\s]*@", command.line), f"a URL with a password: {command}"


def walk_through(walk: walking.Walk, steps: list[walking.Step]) -> None:
    """Give `steps`; every tournament created has finished; then stop the arenas as the reader
    would, with Ctrl-C, and each stops cleanly."""
    try:
        walk.walk(steps)
        assert walk.tournaments, "the walk created a tournament"
        with walk.client() as client:
            for name in walk.tournaments:
                assert client.tournament(name).status is TournamentStatus.FINISHED, name
    finally:
        stopped = walk.stop()
    assert stopped, "an arena served"
    for process, code in stopped:
        assert process.path == "scout-arena serve", f"still running: {process.line}"
        assert code == 0, process.logs()
        assert "Traceback" not in process.err.read_text(), process.logs()
    assert walk.given == [s.command for s in steps if s.command is not None]
    kinds = {r.path for r in walk.ran} - {None}
    assert kinds <= set(walking.CHECKS), f"no output check for {kinds - set(walking.CHECKS)}: add one to walk.CHECKS"


@contextmanager
def taken(*ports: int) -> Iterator[None]:
    """Hold `ports` on 127.0.0.1 as the reader's own arena would (a port some other program holds
    already is taken all the same)."""
    with ExitStack() as held:
        for port in ports:
            sock = held.enter_context(socket.socket())
            with suppress(OSError):
                sock.bind(("127.0.0.1", port))
                sock.listen()
        yield


def test_the_readme_runs_as_written_beside_an_arena_on_the_default_ports(tmp_path: Path) -> None:
    """The README top to bottom but for PostgreSQL and Docker, every output checked (walk.py),
    while the default ports of an arena, 50051 and the web pages' 8080, are taken."""
    walk = walking.Walk(tmp_path)
    with taken(int(walking.README_PORT), int(walking.README_WEB_PORT)):
        walk_through(walk, walking.main_walk(STEPS))
    kinds = {r.path for r in walk.ran}
    assert {"scout-arena demo", "scout-bot play", "scout-arena tournament start", "scout-arena ratings"} <= kinds


def test_the_readme_runs_on_postgresql(tmp_path: Path) -> None:
    """The README's PostgreSQL section, then the tournament and its ratings on that arena."""
    from tests.storage.conftest import postgres_schema

    with postgres_schema() as url:
        walk = walking.Walk(tmp_path, postgres_url=url)
        walk_through(walk, walking.postgres_walk(STEPS))
    assert any(r.path == "scout-arena ratings" for r in walk.ran)
    assert any(walking.POSTGRES_URL.search(c.line) for c in walk.given), "it served the README's PostgreSQL URL"


POSTGRES_TEST_COMMANDS = [c.line for c in readme_commands() if walking.runs_tests(c) and c.line not in SETUP]


def test_the_postgresql_test_command_is_the_one_ci_runs() -> None:
    """`.ci/run` sets SCOUT_TEST_POSTGRES_URL as the README's command does, then runs the tests."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert POSTGRES_TEST_COMMANDS, "the README says how to run the PostgreSQL tests"
    for line in POSTGRES_TEST_COMMANDS:
        *assignments, program = line.split()
        assert program == SETUP[1].split("&& ")[-1], line
        for assignment in assignments:
            name, value = assignment.split("=", 1)
            assert f'export {name}="${{{name}:-{value}}}"' in ci, f".ci/run does not set {name} as the README does"
    from tests.storage.conftest import POSTGRES_URL_VARIABLE

    assert any(a.startswith(f"{POSTGRES_URL_VARIABLE}=") for line in POSTGRES_TEST_COMMANDS for a in line.split())


@pytest.mark.slow
def test_the_first_set_up_command_runs_verbatim_in_a_fresh_copy(tmp_path: Path) -> None:
    """The newcomer's first command, whole, in a copy of this checkout: a virtual environment,
    the install and the full demo; then the commands that look closer at what it played."""
    copy = tmp_path / "scout-arena"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    env = walking.reader_environment(tmp_path / "home", f"127.0.0.1:{walking.free_port()}", walking.free_port())
    (tmp_path / "home").mkdir()
    done = subprocess.run(["bash", "-c", SETUP[0]], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Ratings: tournament demo" in done.stdout
    demo = [s for s in STEPS if s.command is not None and s.section == STEPS[0].section][len(SETUP) :]
    for step in demo:
        assert step.command is not None
        line = f"source .venv/bin/activate && {step.command.line}"
        done = subprocess.run(["bash", "-c", line], cwd=copy, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{step.command}: {done.stdout[-2000:]}{done.stderr[-2000:]}"


DOCKER = [c for c in readme_commands() if c.argv[0] == "docker"]
"""Run by no walk: this machine has no `docker compose`. Each is validated against the compose file
below, and the command lines the compose file runs are run without Docker in tests/docker."""
DOCKER_SHELL = [
    s.command
    for s, how in README_COMMANDS
    if how == walking.DOCKER and s.command is not None and s.command.argv[0] != "docker"
]


def _with_exports(monkeypatch: pytest.MonkeyPatch, upto: Command) -> None:
    """Set the variables the README exports before `upto`, as the reader's shell would have them."""
    for command in readme_commands():
        if command == upto:
            return
        if command.argv[0] == "export":
            name, _, value = command.argv[1].partition("=")
            monkeypatch.setenv(name, "0" * 64 if value.startswith("$(") else value)


@pytest.mark.parametrize("command", DOCKER_SHELL, ids=ids(DOCKER_SHELL))
def test_the_docker_sections_shell_commands_run(command: Command) -> None:
    """What the Docker section has the shell do besides `docker` (choosing the token) runs here."""
    assert command.argv[0] == "export", command
    name = command.line.split(" ", 1)[1].partition("=")[0]
    done = subprocess.run(
        ["bash", "-c", f'{command.line} && printf %s "${name}"'], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"[0-9a-f]{64}", done.stdout), f"{name} is set to a fresh secret: {done.stdout!r}"


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
