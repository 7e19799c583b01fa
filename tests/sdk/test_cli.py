"""The `scout-bot` CLI: local play, the conformance check, and one-line errors for mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sdk.cli import app
from sdk.local import balanced_seatings

MISBEHAVING = str(Path(__file__).with_name("misbehaving.py"))
runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    """Exit status and everything printed, stdout and stderr interleaved."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def invoke_split(*args: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr apart."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def assert_one_line_error(output: str, starts: str) -> None:
    assert output.count("\n") == 1 and output.startswith(f"error: {starts}"), output
    assert "Traceback" not in output


def test_play_shows_a_table_for_every_entrant(tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(
        "from sdk import Bot\n\nclass Mine(Bot):\n    def choose(self, obs):\n        return obs.legal_actions[-1]\n"
    )
    code, output = invoke("play", str(bot), "--against", "greedy,random", "--games", "3", "--players", "3", "--seed=5")
    assert code == 0, output
    assert "3 games, 3 players, seeds 5..7" in output
    for name in ("Mine", "GreedyBot", "RandomBot"):
        assert f"│ {name} " in output


def test_play_accepts_an_example_name_and_is_reproducible() -> None:
    def results() -> list[list[str]]:
        code, output = invoke("play", "random", "--games", "2", "--players", "2", "--against", "random")
        assert code == 0
        return [line.split("│")[1:-2] for line in output.splitlines() if "RandomBot" in line]

    first = results()
    assert len(first) == 2 and first == results()


@pytest.mark.parametrize(
    ("args", "code", "starts"),
    [
        (["play", "absent_bot.py"], 1, "no such file: absent_bot.py"),
        (
            ["play", "greedy", "--against", "greedy,nobody"],
            1,
            "unknown bot 'nobody': neither an example bot (greedy, montecarlo, random, strong) nor a file or module",
        ),
        (["play", "greedy", "--players", "6"], 2, "Invalid value for '--players'"),
        (["play", "greedy", "--games", "many"], 2, "Invalid value for '--games'"),
        (["play"], 2, "Missing argument 'BOT'"),
        (["play", f"{MISBEHAVING}:ShowsTooMuch", "--games", "1"], 1, "bot 'ShowsTooMuch' (seat 0) chose an illegal"),
        (
            ["play", f"{MISBEHAVING}:CrashesAtFivePlayers", "--players=5"],
            1,
            f"bot 'CrashesAtFivePlayers' (seat {balanced_seatings(5, 1)[0][0]}) rais",
        ),
        (["play", MISBEHAVING], 1, f"{MISBEHAVING} defines several Bot subclasses (AnswersWithIndex, "),
        (["check", "bots.nothing_here"], 1, "no module named 'bots.nothing_here'"),
        (
            ["run", "greedy", "--token", "t", "--target", "localhost"],
            1,
            "--target must be HOST:PORT (or several, comma-separated), not 'localhost'",
        ),
        (["run", "greedy", "--token", "t", "--target", "a:1,b"], 1, "--target must be HOST:PORT (or several, comma-"),
        (["dance"], 2, "No such command 'dance'"),
    ],
)
def test_user_mistakes_print_one_line_and_exit_non_zero(args: list[str], code: int, starts: str) -> None:
    got, output = invoke(*args)
    assert got == code
    assert_one_line_error(output, starts)


def test_check_passes_a_good_bot_and_reports_each_table_size_as_it_goes() -> None:
    code, output, errors = invoke_split("check", "greedy", "--games", "1")
    assert code == 0
    assert output.startswith("PASS GreedyBot: 4 games at 2-5 players")
    assert errors.splitlines() == [
        f"{n} players done: {n - 1} of 4 games checked, 0 problems so far" for n in (2, 3, 4, 5)
    ]


def test_check_fails_a_broken_bot_and_lists_the_finding() -> None:
    code, output, _ = invoke_split("check", f"{MISBEHAVING}:FlipsWithString", "--games", "1")
    assert code == 1
    lines = output.splitlines()
    seat = balanced_seatings(2, 1)[0][0]
    assert lines[0].startswith("FAIL FlipsWithString: 4 games")
    assert lines[1].startswith(
        f"  answered with the wrong type (4x), first at 2 players, seed 0, seat {seat}, round 1: "
    )
    assert lines[1].endswith("flip() returned str, not bool")


@pytest.mark.parametrize("command", ["play", "check", "run"])
def test_every_command_has_help(command: str) -> None:
    code, output = invoke(command, "--help")
    assert code == 0 and "BOT" in output


NAMED_BY_DEPTH = """from sdk import Bot

class Deep(Bot):
    def __init__(self, depth=1):
        super().__init__()
        self.name = f"Deep{depth}"

    def choose(self, obs):
        return obs.legal_actions[0]
"""


def test_play_seats_bot_files_and_copies_of_one_bot_with_their_options(tmp_path: Path) -> None:
    bot = tmp_path / "deep.py"
    bot.write_text(NAMED_BY_DEPTH)
    code, output = invoke(
        "play",
        str(bot),
        "--bot-arg",
        "depth=3",
        "--against",
        f"{bot},{bot}(depth=2),greedy",
        "--games",
        "4",
        "--players",
        "4",
    )
    assert code == 0, output
    for name in ("Deep3", "Deep1", "Deep2", "GreedyBot"):
        assert f"│ {name} " in output


def test_options_reach_example_bots_too() -> None:
    code, output = invoke(
        "play", "montecarlo(move_time=0.001)", "--against", "random(seed=5)", "--games", "1", "--players", "2"
    )
    assert code == 0, output
    assert "│ MonteCarloBot " in output and "│ RandomBot " in output


def test_check_takes_bot_files_as_opponents(tmp_path: Path) -> None:
    bot = tmp_path / "deep.py"
    bot.write_text(NAMED_BY_DEPTH)
    code, output, _ = invoke_split("check", "greedy", "--games", "1", "--against", f"{bot}(depth=2)")
    assert code == 0, output
    assert output.startswith("PASS GreedyBot: 4 games at 2-5 players")


@pytest.mark.parametrize(
    ("args", "starts"),
    [
        (["play", "greedy", "--bot-arg", "depth=3"], "GreedyBot() takes no option 'depth' (it takes none)"),
        (["play", "greedy", "--against", "random(sed=1)"], "RandomBot() takes no option 'sed' (it takes seed)"),
        (["play", "greedy", "--bot-arg", "depth"], "bot option 'depth' is not KEY=VALUE"),
        (
            ["play", "greedy", "--players", "3", "--against", "greedy,random,greedy"],
            "--against names 3 bots, but there are only 2 other seats at the table",
        ),
        (["play", "greedy", "--against", ","], "--against needs at least one bot"),
        (["check", "greedy", "--against", "nobody"], "unknown bot 'nobody': neither an example bot"),
        (["run", "greedy", "--bot-arg", "x=1", "--target", "127.0.0.1:1"], "GreedyBot() takes no option 'x'"),
    ],
)
def test_option_mistakes_print_one_line(args: list[str], starts: str) -> None:
    code, output = invoke(*args)
    assert code == 1
    assert_one_line_error(output, starts)


def test_shared_wins_show_as_fractions_with_a_note() -> None:
    def rows(output: str) -> dict[str, list[str]]:
        return {
            cells[0]: cells[1:]
            for line in output.splitlines()
            if (cells := [c.strip() for c in line.split("│")[1:-1]]) and cells[0].startswith("RandomBot")
        }

    code, output = invoke(
        "play", "random(seed=1)", "--against", "random(seed=2),random(seed=3)", "--players", "3", "--games", "60"
    )
    assert code == 0
    table = rows(output)
    wins = [float(cells[1]) for cells in table.values()]
    assert sum(wins) == pytest.approx(60) and any(w != int(w) for w in wins)
    assert all(len(cells[1].split(".")[1]) == 2 for cells in table.values()), "one format for the column"
    assert "a first place shared by k bots counts 1/k to each" in output
    code, output = invoke("play", "greedy", "--against", "random", "--players", "2", "--games", "2")
    assert "shared by" not in output
