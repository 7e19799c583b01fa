"""The example bots as programs (`python -m bots.X`) and `scout-bot run`, against a real arena."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Arena, arena, check_against_replay

__all__ = ["arena"]  # the real-server fixture, shared with the protocol tests

MODULES = ["bots.random_bot", "bots.greedy", "bots.montecarlo", "bots.strong"]
SCOUT_BOT = str(Path(sys.executable).with_name("scout-bot"))
"""The console script, as installed by `pip install -e .`."""


@pytest.mark.parametrize("module", MODULES)
def test_each_bot_program_explains_its_options(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for option in ("--token", "--target", "--capacity", "--max-games"):
        assert option in done.stdout
    assert done.stderr == "", "runs without warnings"


def test_a_bot_program_without_a_token_says_so_in_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "bots.greedy"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "error: Missing option '--token' (env var: 'SCOUT_ARENA_BOT_TOKEN').\n"


def start(*command: str) -> subprocess.Popen[str]:
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> str:
    """Wait (bounded) for a bot process that was told to stop after its games; its stderr."""
    try:
        return proc.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"{proc.args!r} did not stop after its games") from None


def test_example_bot_programs_play_a_game_at_a_real_arena(arena: Arena) -> None:
    (greedy, greedy_token), (rand, rand_token) = arena.register("greedy"), arena.register("random")
    procs = [
        start(sys.executable, "-m", module, "--target", arena.target, "--token", token, "--max-games", "1")
        for module, token in (("bots.greedy", greedy_token), ("bots.random_bot", rand_token))
    ]
    try:
        record = check_against_replay(arena.play([greedy, rand], seed=21))
    finally:
        logs = [finish(proc) for proc in procs]
    assert record.players == 2
    assert [proc.returncode for proc in procs] == [0, 0]
    assert logs[0].endswith("GreedyBot: games played: 1\n") and logs[1].endswith("RandomBot: games played: 1\n")


def test_scout_bot_run_plays_at_a_real_arena(arena: Arena) -> None:
    (name, token), (other, other_token) = arena.register("cli"), arena.register("random")
    procs = [
        start(SCOUT_BOT, "run", "montecarlo", "--target", arena.target, "--token", token, "--max-games", "1"),
        start(
            sys.executable,
            "-m",
            "bots.random_bot",
            "--target",
            arena.target,
            "--token",
            other_token,
            "--max-games",
            "1",
        ),
    ]
    try:
        check_against_replay(arena.play([name, other], seed=5))
    finally:
        logs = [finish(proc) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    assert logs[0].endswith("MonteCarloBot: games played: 1\n")


def test_scout_bot_run_with_a_wrong_token_fails_in_one_line(arena: Arena) -> None:
    proc = start(SCOUT_BOT, "run", "random", "--target", arena.target, "--token", "not-a-token")
    output = finish(proc)
    assert proc.returncode == 1
    assert output.splitlines()[-1].startswith("error: the arena refused RandomBot: UNAUTHENTICATED: ")
    assert "Traceback" not in output
