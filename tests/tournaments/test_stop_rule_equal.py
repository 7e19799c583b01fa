"""The stop rule's "equal within the margin" exit, its own order and its estimates
(arena/tournaments/stop_rule.py): the equivalence test is the mixture it stands for, holds its
error at the margin however often it is looked at, ends a tied pair as equal and not a separated
one; the order is a Bradley-Terry fit of the tallies alone (tau = 0: the order of the games does
not matter); open pairs carry an estimate of the games they still need."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from arena.tournaments.stop_rule import (
    Evidence,
    StopOutcome,
    StopRule,
    comparisons_needed,
    games_to_settle,
    largest_settled_field,
    not_ahead,
    open_pairs,
    shared_games_wanted,
)


def equivalence_mixture(above: int, below: int, margin: float) -> float:
    """E(above, below) as the integral it stands for: the likelihood ratio against p0 = 1/2 +
    margin, averaged over q uniform in [0, p0], by the midpoint rule."""
    p0 = 0.5 + margin
    steps = 20_000
    h = p0 / steps
    total = sum((q / p0) ** above * ((1 - q) / (1 - p0)) ** below for q in ((i + 0.5) * h for i in range(steps)))
    return total * h / p0


@pytest.mark.parametrize(("above", "below"), [(0, 1), (3, 5), (10, 12), (40, 50), (100, 100), (20, 60)])
def test_the_exact_equivalence_test_is_the_mixture_it_stands_for(above: int, below: int) -> None:
    value = equivalence_mixture(above, below, 0.1)
    for alpha in (Fraction(1, 2), Fraction(1, 20), Fraction(1, 400)):
        if abs(value * float(alpha) - 1) > 1e-6:
            assert not_ahead(above, below, Fraction(1, 10), alpha) == (value * float(alpha) >= 1), (above, alpha)


def test_no_margin_never_shows_equal() -> None:
    assert not not_ahead(500, 500, Fraction(0), Fraction(1, 2))


def test_a_bot_at_the_margin_is_rarely_shown_not_ahead() -> None:
    """The null at its edge: the upper bot finishes above 60% of the time, margin 0.1. Looked at after
    every game up to 600, the share of runs that ever show it "not ahead by 0.1" stays within alpha."""
    rng = random.Random(7)
    alpha = Fraction(1, 10)
    runs, wrong = 300, 0
    for _ in range(runs):
        above = below = 0
        for _game in range(600):
            if rng.random() < 0.6:
                above += 1
            else:
                below += 1
            if not_ahead(above, below, Fraction(1, 10), alpha):
                wrong += 1
                break
    assert wrong / runs <= alpha


def test_a_tied_pair_ends_equal_and_a_separated_one_in_order() -> None:
    rule = StopRule(confidence=0.9)
    tied = Evidence(rule, ["a", "b"])
    tied.add_round([{"a": 1, "b": 2}] * 400 + [{"a": 2, "b": 1}] * 400)
    verdict = tied.verdict(None, 1)
    assert verdict.outcome is StopOutcome.SETTLED
    assert [(p.settled, p.equal, p.state) for p in verdict.pairs] == [(False, True, "equal")]
    apart = Evidence(rule, ["a", "b"])
    apart.add_round([{"a": 1, "b": 2}] * 560 + [{"a": 2, "b": 1}] * 240)
    assert apart.verdict(None, 1).pairs[0].state == "settled" and not apart.equal("a", "b")
    never = Evidence(StopRule(confidence=0.9, margin=0), ["a", "b"])
    never.add_round([{"a": 1, "b": 2}] * 400 + [{"a": 2, "b": 1}] * 400)
    assert never.verdict(None, 1).outcome is StopOutcome.PLAYING, "margin 0: a tied pair stays open"


def test_the_rules_order_is_the_tallies_alone() -> None:
    """Strengths held fixed over the tournament (tau = 0): the same games in another order give the
    same order, which a drifting rating would not promise."""
    rng = random.Random(3)
    strength = {"a": 4.0, "b": 2.0, "c": 1.5, "d": 1.0}
    games = []
    for _ in range(120):
        table = rng.sample(sorted(strength), 3)
        noisy = {bot: strength[bot] * rng.random() for bot in table}
        ordered = sorted(noisy, key=lambda b: -noisy[b])
        games.append({bot: ordered.index(bot) + 1 for bot in table})
    forward, backward = Evidence(StopRule(), strength), Evidence(StopRule(), strength)
    forward.add_round(games)
    backward.add_round(games[::-1])
    assert forward.order() == backward.order() == ["a", "b", "c", "d"]


def test_the_verdict_reads_the_rules_own_order_unless_given_one() -> None:
    evidence = Evidence(StopRule(confidence=0.9), ["a", "b", "c"])
    evidence.add_round([{"c": 1, "b": 2, "a": 3}] * 30)
    assert evidence.verdict(None, 1).order == ("c", "b", "a")
    assert evidence.verdict(None, 1).outcome is StopOutcome.SETTLED
    assert evidence.verdict(["a", "b", "c"], 1).outcome is StopOutcome.PLAYING


def test_an_open_pair_says_about_how_many_games_it_needs() -> None:
    rule = StopRule(confidence=0.9)
    evidence = Evidence(rule, ["a", "b", "c"])
    evidence.add_round([{"a": 1, "b": 2, "c": 3}] * 6 + [{"a": 2, "b": 1, "c": 3}] * 4)
    pair = evidence.verdict(None, 10).pairs[0]
    assert (pair.upper, pair.lower, pair.state) == ("a", "b", "open")
    assert pair.games_needed is not None and pair.games_needed > 10
    assert evidence.verdict(None, 10, estimate=False).pairs[0].games_needed is None
    assert evidence.verdict(None, 10).pairs[1].games_needed is None, "b above c is settled: nothing needed"
    wanted = open_pairs(evidence.verdict(None, 10), rule)
    assert list(wanted) == [("a", "b")] and wanted["a", "b"] > 1


def test_comparisons_needed_is_the_least_tally_that_would_decide() -> None:
    """Two bots alone (their head-to-head the whole evidence): a fifth more than the estimated
    tally at 70% proves the order (the fit's virtual games pull the share towards even a little),
    half of it does not."""
    rule = StopRule(confidence=0.98, margin=0)
    alpha = rule.pair_error(2)
    needed = comparisons_needed(0.7, alpha, 0)
    assert needed is not None
    for games, proven in ((needed * 6 // 5, True), (needed // 2, False)):
        evidence = Evidence(rule, ["a", "b"])
        evidence.add_round([{"a": 1, "b": 2}] * round(0.7 * games) + [{"a": 2, "b": 1}] * (games - round(0.7 * games)))
        assert (("a", "b") in evidence.proven) is proven, games
    assert comparisons_needed(0.5, alpha, 0) is None, "no margin: an even pair never decides"
    assert comparisons_needed(0.5, alpha, 0.1) is not None
    assert comparisons_needed(0.6, alpha, 0) > comparisons_needed(0.7, alpha, 0)  # type: ignore[operator]
    guess = shared_games_wanted(0, 0, alpha, 0.1)
    assert 0.5 * needed < shared_games_wanted(7, 3, alpha, 0) < 3 * needed and guess > 1


def test_the_create_warning_knows_which_fields_the_cap_settles() -> None:
    rule = StopRule()
    largest = largest_settled_field(4, rule, 1000)
    assert largest is not None and 8 <= largest < 1000
    assert games_to_settle(largest, 4, rule) <= rule.max_games < games_to_settle(largest + 1, 4, rule)
    assert largest_settled_field(4, StopRule(max_games=50), 1000) is None
    assert largest_settled_field(4, rule, 6) == 6
