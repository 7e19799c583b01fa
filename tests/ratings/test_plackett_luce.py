"""Simulated tournaments from known skills (arena/ratings/plackett_luce.py): finishing orders have
the Bradley-Terry pairwise chances, and on small runs through the arena's own scheduling and stop
rule the error stays within the promise, separated fields settle in their order and a tied pair
ends "equal" (the large runs are benchmarks/rating_quality.py --simulate)."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.plackett_luce import field, finishing_ranks, fixed_run, least_mean_games, stop_rule_run, tied_pairs
from arena.tournaments.stop_rule import StopOutcome, StopRule


def test_finishing_orders_have_the_bradley_terry_chances() -> None:
    weights = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 1.0}
    rng = random.Random(1)
    games = 20_000
    above = sum(r["a"] < r["b"] for r in (finishing_ranks(list(weights), weights, rng) for _ in range(games)))
    assert abs(above / games - 3 / 5) < 0.015


def test_the_fields_have_their_shares() -> None:
    clear, tied = field("clear", 5), field("tied", 5)
    assert clear["b00"] / (clear["b00"] + clear["b01"]) == pytest.approx(0.7)
    assert tied_pairs(clear) == set() and tied_pairs(tied) == {frozenset(("b01", "b02"))}
    assert field("close", 8)["b06"] / (field("close", 8)["b06"] + field("close", 8)["b07"]) == pytest.approx(0.6)


@pytest.mark.slow
def test_small_runs_keep_the_promise_and_settle() -> None:
    """5 clear bots and 5 with a tied pair, 30 runs each at confidence 0.8 (a loose promise so a
    wrong stop would show in few runs): wrong reports within the promise, every clear run settled
    in order, most tied runs ending the tied pair as equal."""
    rule = StopRule(confidence=0.8)
    clear = [stop_rule_run(field("clear", 5), rule, 4, seed) for seed in range(30)]
    assert sum(r.wrong for r in clear) <= 0.2 * len(clear)
    assert all(r.outcome is StopOutcome.SETTLED for r in clear)
    tied = [stop_rule_run(field("tied", 5), rule, 4, 100 + seed) for seed in range(30)]
    assert sum(r.wrong for r in tied) <= 0.2 * len(tied)
    equal = sum(any(p.equal and {p.upper, p.lower} == {"b01", "b02"} for p in r.pairs) for r in tied)
    assert equal >= 0.8 * len(tied)


def test_a_fixed_run_records_its_order_after_each_pass() -> None:
    run = fixed_run(field("clear", 5), 4, 3, 200)
    assert run.round_games == 5 and len(run.right) == 40
    assert run.right[-1], "200 games put 5 clear bots in order"


def test_the_least_mean_games_of_any_rule_is_walds_bound() -> None:
    """Two bots at 70/30 on 2-seat tables: each game's divergence from a tied pair is
    KL(0.7 || 0.5), so a rule wrong at most 5% of the time on a tied pair needs at least
    log 20 / KL games on average; a field with no unequal neighbours has no bound."""
    kl = 0.7 * math.log(0.7 / 0.5) + 0.3 * math.log(0.3 / 0.5)
    assert least_mean_games({"a": 0.7, "b": 0.3}, 2, 0.05) == pytest.approx(math.log(20) / kl)
    assert least_mean_games({"a": 1.0, "b": 1.0}, 2, 0.05) is None
    five, eight = least_mean_games(field("clear", 5), 4, 0.05), least_mean_games(field("clear", 8), 4, 0.05)
    assert five is not None and eight is not None and five < eight
