"""The conformance kit (sdk.conformance): passes good bots, names exactly what a bad one does."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bots import GreedyBot, MonteCarloBot, RandomBot
from sdk import Action, Bot, Observation
from sdk.conformance import ConformanceReport, Problem, check_bot
from tests.sdk.misbehaving import (
    AnswersWithIndex, AsyncFirstLegal, AsyncSleeper, CrashesAtFivePlayers, FlipsWithString, ShowsTooMuch,
    Sleeper,
)


def only_finding(report: ConformanceReport) -> tuple[Problem, str]:
    assert not report.passed
    assert len(report.findings) == 1, report.findings
    return report.findings[0].problem, report.findings[0].first


@pytest.mark.parametrize(
    "bot", [RandomBot(seed=1), GreedyBot(), MonteCarloBot(seed=1, move_time=None, iterations=1), AsyncFirstLegal()],
    ids=["random", "greedy", "montecarlo", "async"],
)
def test_the_example_bots_and_an_async_bot_pass(bot: Bot) -> None:
    report = check_bot(bot, games=2, move_time=5.0)
    assert report.passed, report.findings
    assert report.games == 8 and report.players == (2, 3, 4, 5)
    assert report.decisions > 8
    assert report.summary().startswith(f"PASS {bot.name}: 8 games at 2-5 players")


def test_an_illegal_action_is_found_with_the_engines_reason() -> None:
    problem, first = only_finding(check_bot(ShowsTooMuch(), games=3, players=[3]))
    assert problem is Problem.ILLEGAL
    assert first.startswith("3 players, seed 0, seat 0, round 1: chose an illegal action (show 0+99): cards 0..98")


def test_wrong_answer_types_are_found() -> None:
    problem, first = only_finding(check_bot(AnswersWithIndex(), games=2, players=[2]))
    assert problem is Problem.WRONG_TYPE and "choose() returned int" in first
    problem, first = only_finding(check_bot(FlipsWithString(), games=2, players=[4]))
    assert problem is Problem.WRONG_TYPE and "flip() returned str, not bool" in first


def test_an_exception_is_found_at_the_table_size_where_it_happens() -> None:
    report = check_bot(CrashesAtFivePlayers(), games=2)
    problem, first = only_finding(report)
    assert problem is Problem.EXCEPTION
    assert report.findings[0].count == 2
    assert first.startswith("5 players, seed 0, seat 0, round 1: raised ZeroDivisionError in choose()")
    assert report.games == 8, "a failed game does not stop the check"


class SlowFlipper(RandomBot):
    """Takes 100 ms over each flip decision."""

    def flip(self, obs: Observation) -> bool:
        time.sleep(0.1)
        return False


def test_answers_over_the_move_time_are_found_and_the_slowest_is_reported() -> None:
    report = check_bot(SlowFlipper(seed=1), games=1, players=[2], move_time=0.03)
    problem, _ = only_finding(report)
    assert problem is Problem.TOO_SLOW
    assert report.findings[0].count >= 2, "one flip per round, two rounds"
    assert report.slowest >= 0.1
    assert report.slowest_at.startswith("2 players, seed 0, seat 0, round ")


@pytest.fixture
def sleeper() -> Iterator[Sleeper]:
    bot = Sleeper()
    yield bot
    bot.release.set()


def test_a_bot_that_never_answers_is_abandoned_and_the_check_stops(sleeper: Sleeper) -> None:
    report = check_bot(sleeper, games=3, move_time=0.05, give_up_after=0.2)
    problem, first = only_finding(report)
    assert problem is Problem.NO_ANSWER
    assert first == "2 players, seed 0: no answer after 0.2 s; checking stopped"
    assert report.games == 1


def test_an_async_bot_that_never_answers_is_abandoned_too() -> None:
    problem, _ = only_finding(check_bot(AsyncSleeper(), games=1, players=[3], give_up_after=0.2))
    assert problem is Problem.NO_ANSWER


def test_opponents_can_be_chosen_and_seats_rotate() -> None:
    made: list[int] = []

    def opponent(seed: int) -> Bot:
        made.append(seed)
        return GreedyBot()

    class SeatRecorder(GreedyBot):
        def __init__(self) -> None:
            super().__init__()
            self.seats: set[int] = set()

        def choose(self, obs: Observation) -> Action:
            self.seats.add(obs.seat)
            return super().choose(obs)

    bot = SeatRecorder()
    assert check_bot(bot, games=4, players=[4], opponents=[opponent]).passed
    assert bot.seats == {0, 1, 2, 3}
    assert len(made) == 4 * 3
