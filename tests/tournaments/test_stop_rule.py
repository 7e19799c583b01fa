"""The stop rule's statistics (arena/tournaments/stop_rule.py), on simulated outcomes only (no games): the
sequential test holds its error rate on equal-strength data however often it is looked at, it
finds real differences, and the verdict reads the rating order, the top places and the cap."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache
from itertools import combinations

import pytest

from arena.errors import InvalidSetting
from arena.tournaments.schedule import Schedule, round_robin, round_seed, schedule_seed
from arena.tournaments.stop_rule import Evidence, StopOutcome, StopRule, proven


def mixture(above: int, below: int) -> float:
    """The test martingale as the integral it stands for: int over q in (1/2, 1] of
    2 (2q)^above (2(1-q))^below dq, by the midpoint rule."""
    steps = 20_000
    h = 0.5 / steps
    return sum(2 * (2 * q) ** above * (2 * (1 - q)) ** below for q in (0.5 + (i + 0.5) * h for i in range(steps))) * h


@pytest.mark.parametrize(("above", "below"), [(0, 0), (1, 0), (3, 1), (10, 4), (12, 12), (30, 5)])
def test_the_exact_test_is_the_mixture_it_stands_for(above: int, below: int) -> None:
    value = mixture(above, below)
    for alpha in (Fraction(1, 2), Fraction(1, 20), Fraction(1, 400)):
        if abs(value * float(alpha) - 1) > 1e-6:
            assert proven(above, below, alpha) == (value * float(alpha) >= 1), (above, below, alpha, value)


def test_one_pair_looked_at_after_every_game_keeps_its_error_rate() -> None:
    """A fair coin (equal bots), looked at after each of 400 games: the share of runs that ever
    prove either direction stays within 2 alpha (alpha per direction), where a fixed-sample
    one-sided z test at 1 - alpha, repeated at every look, is fooled several times as often."""
    rng = random.Random(16)
    alpha = Fraction(1, 20)
    runs, wrong, naive = 1000, 0, 0
    for _ in range(runs):
        above = below = 0
        fooled_naive = False
        for n in range(1, 401):
            if rng.random() < 0.5:
                above += 1
            else:
                below += 1
            fooled_naive = fooled_naive or abs(above - below) / math.sqrt(n) > 1.645
            if proven(above, below, alpha) or proven(below, above, alpha):
                wrong += 1
                break
        naive += fooled_naive
    assert wrong / runs <= 2 * alpha
    assert naive / runs > 4 * 2 * alpha, "the repeated fixed-sample test should be fooled far more often"


@cache
def round_of(bots: tuple[str, ...], table_size: int, r: int) -> Schedule:
    """Round r of the project's schedule as the store draws it (tournament seed 0): shared by the
    simulated tournaments, which differ in their games' noise, since drawing a round costs more
    than simulating it."""
    return round_robin(bots, table_size, round_seed(schedule_seed(0), r))


def simulate(strengths: dict[str, float], rule: StopRule, seed: int, table_size: int = 4) -> StopOutcome:
    """A stop-rule tournament on simulated games: rounds from the project's schedule, each seat's
    result its bot's strength plus seeded noise, the rating order the order of mean simulated
    score (the rule takes any order). Returns how it ended."""
    rng = random.Random(seed)
    bots = tuple(sorted(strengths))
    evidence = Evidence(rule, bots)
    totals = dict.fromkeys(bots, 0.0)
    for r in range(10_000):
        schedule = round_of(bots, table_size, r)
        games = []
        for table in schedule.tables:
            points = {bot: strengths[bot] + rng.gauss(0, 1) for bot in table.seats}
            for bot, value in points.items():
                totals[bot] += value
            ordered = sorted(points, key=lambda b: -points[b])
            games.append({bot: ordered.index(bot) + 1 for bot in points})
        evidence.add_round(games)
        order = sorted(bots, key=lambda b: (-totals[b], b))
        verdict = evidence.verdict(order, len(schedule.tables), estimate=False)
        if verdict.outcome is not StopOutcome.PLAYING:
            return verdict.outcome
    raise AssertionError("the cap always ends a tournament")


def test_equal_bots_are_declared_settled_no_more_often_than_promised() -> None:
    """Five equal bots, looked at after every round up to the cap: every settled stop is wrong.
    At confidence 0.7 the promise is at most 30% such stops."""
    rule = StopRule(confidence=0.7, max_games=150, margin=0)
    outcomes = [simulate({b: 0.0 for b in "abcde"}, rule, seed) for seed in range(200)]
    settled = outcomes.count(StopOutcome.SETTLED) / len(outcomes)
    assert settled <= 1 - rule.confidence
    assert outcomes.count(StopOutcome.CAP_REACHED) + outcomes.count(StopOutcome.SETTLED) == len(outcomes)


def test_equal_bots_one_pair_at_a_time_keep_the_promise_too() -> None:
    """Top 1 (the leader above the runner-up): the pair looked at changes with the data every round."""
    rule = StopRule(confidence=0.8, top=1, max_games=200, margin=0)
    outcomes = [simulate({b: 0.0 for b in "abcd"}, rule, 1000 + seed) for seed in range(200)]
    assert outcomes.count(StopOutcome.SETTLED) / len(outcomes) <= 1 - rule.confidence


def test_separated_bots_settle_in_their_order() -> None:
    strengths = {"a": 1.5, "b": 1.0, "c": 0.5, "d": 0.0}
    rule = StopRule(confidence=0.95, max_games=2000)
    assert [simulate(strengths, rule, seed) for seed in range(10)] == [StopOutcome.SETTLED] * 10


def test_the_verdict_reads_the_order_the_top_places_and_the_cap() -> None:
    rule = StopRule(confidence=0.9, top=2, max_games=30)
    evidence = Evidence(rule, ["a", "b", "c", "d"])
    assert evidence.verdict(None, round_games=10).order == ("a", "b", "c", "d"), "no games yet: by name"
    # a above b above c above d at every table, c and d tied with each other once.
    games = [{"a": 1, "b": 2, "c": 3, "d": 4}] * 9 + [{"a": 1, "b": 2, "c": 3, "d": 3}]
    evidence.add_round(games)
    assert (evidence.above("a", "b"), evidence.above("b", "a"), evidence.above("c", "d")) == (10, 0, 9)
    settled = evidence.verdict(["a", "b", "c", "d"], round_games=10)
    assert settled.outcome is StopOutcome.SETTLED and settled.rounds == 1 and settled.games == 10
    assert [(p.upper, p.lower, p.settled) for p in settled.pairs] == [("a", "b", True), ("b", "c", True)]
    # The same evidence under the opposite order proves nothing: the pair is read as the table has it.
    upside_down = evidence.verdict(["b", "a", "c", "d"], round_games=10)
    assert upside_down.outcome is StopOutcome.PLAYING
    assert [(p.upper, p.lower, p.above, p.below, p.settled) for p in upside_down.unsettled] == [
        ("b", "a", 0, 10, False)
    ]
    assert evidence.verdict(["b", "a", "c", "d"], round_games=21).outcome is StopOutcome.CAP_REACHED


def test_a_pair_once_proven_stays_proven() -> None:
    """Ville's inequality bounds the chance of ever crossing, so a later slump does not undo a proof."""
    evidence = Evidence(StopRule(confidence=0.9), ["a", "b"])
    evidence.add_round([{"a": 1, "b": 2}] * 12)
    assert ("a", "b") in evidence.proven
    evidence.add_round([{"a": 2, "b": 1}] * 8)
    assert ("a", "b") in evidence.proven and evidence.verdict(["a", "b"], 1).outcome is StopOutcome.SETTLED


def test_more_looks_need_no_more_evidence_than_one_look() -> None:
    """The decision depends on the tallies at each look, not on how the games were split into rounds."""
    games = [{"a": 1, "b": 2, "c": 3}] * 7 + [{"a": 2, "b": 1, "c": 3}]
    one, many = Evidence(StopRule(), "abc"), Evidence(StopRule(), "abc")
    one.add_round(games)
    for game in games:
        many.add_round([game])
    assert one.proven <= many.proven
    assert {pair: one.above(*pair) for pair in combinations("abc", 2)} == {
        pair: many.above(*pair) for pair in combinations("abc", 2)
    }


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"confidence": 1.0}, "the stop rule's confidence must be within 0.5..0.9999, not 1.0"),
        ({"confidence": 0.2}, "the stop rule's confidence must be within 0.5..0.9999, not 0.2"),
        ({"confidence": float("nan")}, "the stop rule's confidence must be within 0.5..0.9999, not nan"),
        ({"top": 0}, "the stop rule's top places must be at least 1, not 0"),
        ({"max_games": 0}, "the stop rule's max games must be within 1..50000, not 0"),
        ({"max_games": 50_001}, "the stop rule's max games must be within 1..50000, not 50001"),
        ({"margin": -0.1}, "the stop rule's equal margin must be within 0..0.4, not -0.1"),
        ({"margin": 0.5}, "the stop rule's equal margin must be within 0..0.4, not 0.5"),
    ],
)
def test_settings_out_of_range_are_refused_in_one_line(settings: dict[str, float], message: str) -> None:
    with pytest.raises(InvalidSetting) as caught:
        StopRule(**settings)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_settings_round_trip_through_their_stored_form() -> None:
    rule = StopRule(confidence=0.9, top=3, max_games=500, margin=0.05)
    assert StopRule.from_json(rule.to_json()) == rule
    stored_before_margins = {"confidence": 0.9, "top": None, "max_games": 500}
    assert StopRule.from_json(stored_before_margins).margin == 0, "played on as it was created: never equal"
    with pytest.raises(InvalidSetting, match="unknown stop rule settings: alpha"):
        StopRule.from_json({"alpha": 0.1})
