"""The bot author's install (`pip install ./sdk`, docs/bot-guide.md) in a fresh venv: the SDK and the
example bots with grpcio, protobuf and what `scout-bot` needs, none of the server's packages; it
plays a local game, and a game at an arena (this checkout's, from the project's venv)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Arena, arena, check_against_replay
from tests.timeouts import START_S, STOP_S

__all__ = ["arena"]  # the real-server fixture, shared with the protocol tests
# The install alone took 66 s at load average 10 to 16 on two cores; .ci/run runs the slow tests.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SERVER_PACKAGES = (
    "arena",
    "fastapi",
    "starlette",
    "sqlmodel",
    "sqlalchemy",
    "alembic",
    "cachetools",
    "psycopg",
    "uvicorn",
    "httptools",
    "jinja2",
    "trueskill",
    "grpc_health",
    "grpc_reflection",
    "grpc_tools",
)
"""Import names of the server's packages (pyproject.toml's other requirements) and the server itself."""
SDK_REQUIREMENTS = ("grpcio", "protobuf", "typer", "rich", "filelock")
"""What the SDK's distribution requires (sdk/pyproject.toml), with the project's pins."""


def bot_guide_command() -> str:
    """The install command docs/bot-guide.md gives a bot author, so this test installs what it says."""
    text = (ROOT / "docs" / "bot-guide.md").read_text()
    [command] = [line for line in text.splitlines() if "pip install ./sdk" in line and line.startswith("python3 ")]
    return command


@pytest.fixture(scope="module")
def sdk_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv holding the SDK's install alone, made by the bot guide's command run in a clone's root."""
    where = tmp_path_factory.mktemp("sdk-install")
    command = bot_guide_command().replace(".venv", str(where / "venv")).replace("python3 ", f"{sys.executable} ", 1)
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=START_S * 5)
    assert done.returncode == 0, done.stderr
    yield where / "venv" / "bin"


def run(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A command of the SDK's venv, run outside the checkout (so the checkout's packages are not on its path)."""
    return subprocess.run(
        [str(venv / args[0]), *args[1:]],
        cwd=venv.parent,
        capture_output=True,
        text=True,
        timeout=START_S,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )


def test_the_sdk_install_holds_the_sdk_and_the_bots_and_none_of_the_servers_packages(sdk_venv: Path) -> None:
    probe = "import importlib.util as u, sys; print(','.join(m for m in sys.argv[1:] if u.find_spec(m)))"
    found = run(sdk_venv, "python", "-c", probe, "sdk", "bots", "bots._playout", "grpc", "google.protobuf", "typer")
    assert found.stdout.strip() == "sdk,bots,bots._playout,grpc,google.protobuf,typer", found.stderr
    server = run(sdk_venv, "python", "-c", probe, *SERVER_PACKAGES)
    assert server.returncode == 0 and server.stdout.strip() == "", f"server packages installed: {server.stdout}"
    where = run(sdk_venv, "python", "-c", "import sdk, bots; print(sdk.__file__); print(bots.__file__)")
    assert all(not Path(line).is_relative_to(ROOT) for line in where.stdout.split()), "installed, not the checkout"


def test_the_sdk_install_declares_the_projects_pins_and_example_bots(sdk_venv: Path) -> None:
    """hatch_build.py copies them from pyproject.toml, the one list: the same requirement strings and bots."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    shown = run(
        sdk_venv,
        "python",
        "-c",
        "from importlib.metadata import distribution as d, entry_points as e; m = d('scout-arena-sdk');"
        "print(m.version); print('|'.join(m.requires)); print('|'.join(sorted(f'{x.name}={x.value}'"
        " for x in e(group='scout_arena.bots'))))",
    )
    version, requires, bots = shown.stdout.splitlines()
    assert version == project["version"]
    pins = dict(map(pin, project["dependencies"]))
    assert dict(map(pin, requires.split("|"))) == {name: pins[name] for name in SDK_REQUIREMENTS}
    assert bots.split("|") == sorted(f"{k}={v}" for k, v in project["entry-points"]["scout_arena.bots"].items())


def pin(requirement: str) -> tuple[str, frozenset[str]]:
    """A requirement's name and its set of version clauses, whatever their order and spacing."""
    name = re.match(r"[\w.-]+", requirement)
    assert name is not None, requirement
    rest = requirement[name.end() :].split(";")[0].strip()
    rest = re.sub(r"^\[[^]]*\]", "", rest)
    return name.group().lower(), frozenset(c.strip() for c in rest.split(",") if c.strip())


def test_the_sdk_install_plays_a_local_game(sdk_venv: Path) -> None:
    done = run(sdk_venv, "scout-bot", "play", "strong", "--against", "greedy,random", "--games", "1", "--players", "3")
    assert done.returncode == 0, done.stderr
    assert "1 games, 3 players" in done.stdout
    assert all(name in done.stdout for name in ("StrongBot", "GreedyBot", "RandomBot"))


def test_the_sdk_install_plays_a_game_at_an_arena(sdk_venv: Path, arena: Arena) -> None:
    (name, token), (other, other_token) = arena.register("sdk-only"), arena.register("sdk-only")
    procs = [
        subprocess.Popen(
            [str(sdk_venv / "scout-bot"), "run", bot, "--target", arena.target, "--token", key, "--max-games", "1"],
            cwd=sdk_venv.parent,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for bot, key in (("greedy", token), ("random", other_token))
    ]
    try:
        record = check_against_replay(arena.play([name, other], seed=33))
    finally:
        logs = []
        for proc in procs:
            try:
                logs.append(proc.communicate(timeout=STOP_S)[1])
            except subprocess.TimeoutExpired:
                proc.kill()
                logs.append(proc.communicate()[1])
    assert record.players == 2
    assert [proc.returncode for proc in procs] == [0, 0], logs
    assert logs[0].endswith("GreedyBot: games played: 1\n") and logs[1].endswith("RandomBot: games played: 1\n")
