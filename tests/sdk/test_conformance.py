"""The conformance kit (sdk.conformance): passes good bots, names exactly what a bad one does."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from bots import GreedyBot, MonteCarloBot, RandomBot
from sdk import Action, Bot, Observation
from sdk.conformance import MAX_LATE_GAMES, CheckInterrupted, CheckProgress, ConformanceReport, Problem, check_bot
from sdk.local import balanced_seatings
from tests.sdk.misbehaving import (
    AnswersWithIndex,
    AsyncFirstLegal,
    AsyncSleeper,
    CrashesAtFivePlayers,
    FirstLegal,
    FlipsWithString,
    ShowsTooMuch,
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
    "bot",
    [RandomBot(seed=1), GreedyBot(), MonteCarloBot(seed=1, move_time=None, iterations=1), AsyncFirstLegal()],
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
    assert first.startswith(
        f"3 players, seed 0, seat {first_seat(3)}, round 1: chose an illegal action (show 0+99): cards 0..98"
    )


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
    assert first == (
        f"2 players, seed 0, seat {first_seat(2)}, round 1: answered in {took} ms, over the 30 ms limit "
        "(the referee forfeits the seat)"
    )
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


def test_progress_is_reported_after_every_game() -> None:
    seen: list[CheckProgress] = []
    report = check_bot(GreedyBot(), games=2, players=[2, 4], progress=seen.append)
    assert report.passed
    assert [(p.players, p.game, p.done) for p in seen] == [(2, 1, 1), (2, 2, 2), (4, 1, 3), (4, 2, 4)]
    assert {(p.games, p.total, p.findings) for p in seen} == {(2, 4, 0)}


def test_findings_so_far_are_counted_in_the_progress() -> None:
    seen: list[CheckProgress] = []
    check_bot(FlipsWithString(), games=2, players=[3], progress=seen.append)
    assert [p.findings for p in seen] == [1, 2]


class InterruptsInSecondGame(FirstLegal):
    """Sends this process a real SIGINT in its second game, then thinks for 30 s."""

    flips = 0

    def flip(self, obs: Observation) -> bool:
        self.flips += 1
        return False

    def choose(self, obs: Observation) -> Action:
        if self.flips == 3:  # 2 players: two rounds, so two flips, per game
            self.flips += 1
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(30)
        return super().choose(obs)


def test_ctrl_c_stops_a_check_with_the_report_so_far() -> None:
    started = time.monotonic()
    with pytest.raises(CheckInterrupted) as caught:
        check_bot(InterruptsInSecondGame(), games=4, players=[2, 3], move_time=60)
    assert time.monotonic() - started < 25, "the bot's 30 s of thinking was not waited for"
    partial = caught.value.partial
    assert partial.interrupted and not partial.passed
    assert partial.games == 1, "the game under way does not count"
    assert partial.summary().startswith("INTERRUPTED InterruptsInSecondGame: 1 games at 2-3 players")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
