"""The example bots as programs: `python -m bots.X` shows help, and plays a real arena game."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.protocol.conftest import Arena, arena, check_against_replay

__all__ = ["arena"]  # the real-server fixture, shared with the protocol tests

MODULES = ["bots.random_bot", "bots.greedy", "bots.montecarlo"]


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
    assert done.stderr == "error: Missing option '--token' (env var: 'SCOUT_TOKEN').\n"


def test_example_bot_programs_play_a_game_at_a_real_arena(arena: Arena) -> None:
    (greedy, greedy_token), (rand, rand_token) = arena.register("greedy"), arena.register("random")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", module, "--target", arena.target, "--token", token, "--max-games", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for module, token in (("bots.greedy", greedy_token), ("bots.random_bot", rand_token))
    ]
    try:
        record = check_against_replay(arena.play([greedy, rand], seed=21))
    finally:
        logs = [proc.communicate(timeout=30)[1] for proc in procs]
    assert record.players == 2
    assert [proc.returncode for proc in procs] == [0, 0]
    assert logs[0].endswith("GreedyBot: games played: 1\n") and logs[1].endswith("RandomBot: games played: 1\n")
