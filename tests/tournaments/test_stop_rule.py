"""The stop rule's statistics (arena/tournaments/stop_rule.py), on simulated outcomes only (no games): the
pooled test holds its error rate on equal-strength data however often it is looked at, counts
indirect evidence, finds real differences, and the verdict reads the order, the top places and the cap."""

from __future__ import annotations

import math
import random
from functools import cache
from itertools import combinations

import pytest

from arena.errors import InvalidSetting
from arena.tournaments.schedule import Schedule, round_robin, round_seed, schedule_seed
from arena.tournaments.stop_rule import Evidence, StopOutcome, StopRule, _climb, _log_likelihood


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


def duel(a: str, b: str, wins: int, losses: int) -> list[dict[str, int]]:
    """Two-seat games: `a` first `wins` times, `b` first `losses` times."""
    return [{a: 1, b: 2}] * wins + [{b: 1, a: 2}] * losses


def test_indirect_evidence_proves_a_pair_its_own_games_cannot() -> None:
    """a and b met 10 times (6-4, far from proof alone), but against c and d a won 80% of 100
    games each and b 55%: the pooled test proves a above b."""
    games = duel("a", "c", 80, 20) + duel("a", "d", 80, 20) + duel("b", "c", 55, 45) + duel("b", "d", 55, 45)
    games += duel("c", "d", 50, 50) + duel("a", "b", 6, 4)
    rule = StopRule(confidence=0.9, margin=0)
    evidence = Evidence(rule, "abcd")
    evidence.add_round(games)
    assert evidence.order() == ["a", "b", "c", "d"] and ("a", "b") in evidence.proven
    alone = Evidence(rule, "abcd")
    alone.add_round(duel("a", "b", 6, 4))
    assert not alone.proven


def test_the_tied_fit_is_the_likelihoods_top_with_the_pair_held_equal() -> None:
    rng = random.Random(4)
    names = "abcde"
    wins = [[0 if i == j else rng.randrange(12) for j in range(5)] for i in range(5)]
    evidence = Evidence(StopRule(), names)
    evidence.add_round(
        [{x: 1, y: 2} for x in names for y in names if x != y for _ in range(wins[names.index(x)][names.index(y)])]
    )
    theta = [math.log(evidence._strength[e]) for e in names]
    tied = _climb(wins, theta, (1, 2))
    assert tied[1] == tied[2]
    best = _log_likelihood(tied, wins)
    assert best <= _log_likelihood(theta, wins) + 1e-9
    for _ in range(200):
        moved = [t + rng.gauss(0, 0.05) for t in tied]
        moved[2] = moved[1]
        assert _log_likelihood(moved, wins) <= best + 1e-9


@pytest.mark.slow
def test_equal_bots_at_plackett_luce_tables_are_proven_in_order_no_more_often_than_promised() -> None:
    """Six equal bots at 4-seat tables (finishing orders uniform, the pooled model's null for every
    pair), looked at after every round of 6 games up to 240 games: the share of runs in which any
    pair is ever proven in some order stays within 1 - confidence (0.8 here: a loose promise,
    so that a test too eager would show in 150 runs)."""
    rule = StopRule(confidence=0.8, max_games=240, margin=0)
    bots = tuple("abcdef")
    wrong = 0
    for seed in range(150):
        rng = random.Random(seed)
        evidence = Evidence(rule, bots)
        for r in range(rule.max_games // 6):
            tables = round_of(bots, 4, r).tables
            evidence.add_round([{b: i + 1 for i, b in enumerate(rng.sample(t.seats, 4))} for t in tables])
            if evidence.proven:
                wrong += 1
                break
    assert wrong / 150 <= 1 - rule.confidence


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
    games = [{"a": 1, "b": 2, "c": 3, "d": 4}] * 11 + [{"a": 1, "b": 2, "c": 3, "d": 3}]
    evidence.add_round(games)
    assert (evidence.above("a", "b"), evidence.above("b", "a"), evidence.above("c", "d")) == (12, 0, 11)
    settled = evidence.verdict(["a", "b", "c", "d"], round_games=10)
    assert settled.outcome is StopOutcome.SETTLED and settled.rounds == 1 and settled.games == 12
    assert [(p.upper, p.lower, p.settled) for p in settled.pairs] == [("a", "b", True), ("b", "c", True)]
    # The same evidence under the opposite order proves nothing: the pair is read as the table has
    # it, and only pairs adjacent in the rule's own order are tested (a and c never were).
    upside_down = evidence.verdict(["b", "a", "c", "d"], round_games=10)
    assert upside_down.outcome is StopOutcome.PLAYING
    assert [(p.upper, p.lower, p.above, p.below, p.settled) for p in upside_down.unsettled] == [
        ("b", "a", 0, 12, False),
        ("a", "c", 12, 0, False),
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
