"""The conformance kit (sdk.conformance): passes good bots, names exactly what a bad one does."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bots import GreedyBot, MonteCarloBot, RandomBot
from sdk import Action, Bot, Observation
from sdk.conformance import MAX_LATE_GAMES, ConformanceReport, Problem, check_bot
from sdk.local import balanced_seatings
from tests.sdk.misbehaving import (
    AnswersWithIndex, AsyncFirstLegal, AsyncSleeper, CrashesAtFivePlayers, FlipsWithString, ShowsTooMuch,
    Sleeper,
)


def first_seat(players: int, seed: int = 0) -> int:
    """The bot's seat in the first game at `players` seats: entrant 0 of the balanced seating."""
    return balanced_seatings(players, 1, seed)[0][0]


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
    assert first.startswith(f"3 players, seed 0, seat {first_seat(3)}, round 1: chose an illegal action (show 0+99): cards 0..98")


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
    assert first.startswith(f"5 players, seed 0, seat {first_seat(5)}, round 1: raised ZeroDivisionError in choose()")
    assert report.games == 8, "a failed game does not stop the check"


class SlowFlipper(RandomBot):
    """Takes 100 ms over each flip decision."""

    def flip(self, obs: Observation) -> bool:
        time.sleep(0.1)
        return False


def test_a_late_answer_is_found_with_limit_and_time_and_ends_its_game() -> None:
    report = check_bot(SlowFlipper(seed=1), games=2, players=[2], move_time=0.03)
    problem, first = only_finding(report)
    assert problem is Problem.TOO_SLOW
    assert report.findings[0].count == 2, "the first late flip of each game ends that game"
    assert report.decisions == 2, "nothing more is asked in a game after a late answer"
    assert report.games == 2
    took = int(first.split("answered in ")[1].split(" ms")[0])
    assert took >= 100
    assert first == (f"2 players, seed 0, seat {first_seat(2)}, round 1: answered in {took} ms, over the 30 ms limit "
                     "(the referee forfeits the seat)")
    assert report.slowest >= 0.1
    assert report.slowest_at.startswith("2 players, seed ")


def test_checking_stops_after_a_few_late_games() -> None:
    report = check_bot(SlowFlipper(seed=1), games=4, players=[2, 3], move_time=0.03)
    assert report.findings[0].problem is Problem.TOO_SLOW
    assert report.findings[0].count == MAX_LATE_GAMES == report.games
    assert report.stopped == "after 3 late games"
    assert report.summary().endswith("; checking stopped after 3 late games")


@pytest.fixture
def sleeper() -> Iterator[Sleeper]:
    bot = Sleeper()
    yield bot
    bot.release.set()


def test_a_bot_that_never_answers_is_abandoned_and_the_check_stops(sleeper: Sleeper) -> None:
    report = check_bot(sleeper, games=3, move_time=0.05, give_up_after=0.2)
    problem, first = only_finding(report)
    assert problem is Problem.NO_ANSWER
    assert first == "2 players, seed 0: no answer after 0.2 s"
    assert report.games == 1
    assert report.stopped == "at a call that never returned"


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
