"""Rank confidence (issue 16): the posterior probability that each row's upper neighbour is
stronger, rank intervals from skill draws, and the bootstrap over the games played. Pure."""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ratings.played_games import PlayedGame
from arena.ratings.rank_confidence import (
    BOOTSTRAP_WORK_LIMIT,
    MAX_RESAMPLES,
    MIN_RANK_SAMPLES,
    RANK_DRAWS,
    RANK_SAMPLES,
    bootstrap_superiority,
    max_resamples,
    rank_intervals,
    rank_samples,
    superiority,
    with_bootstrap,
    with_confidence,
)
from arena.ratings.table import arena_env
from tests.ratings.simulated import rated_table, simulated_games

mus = st.floats(min_value=0, max_value=50)
sigmas = st.floats(min_value=0.05, max_value=9)


@given(mus, sigmas, mus, sigmas)
def test_superiority_is_the_normal_probability_that_one_skill_exceeds_the_other(
    mu_a: float, sigma_a: float, mu_b: float, sigma_b: float
) -> None:
    difference = NormalDist(mu_a - mu_b, math.hypot(sigma_a, sigma_b))
    assert superiority(mu_a, sigma_a, mu_b, sigma_b) == pytest.approx(1 - difference.cdf(0), abs=1e-12)
    assert superiority(mu_a, sigma_a, mu_b, sigma_b) + superiority(mu_b, sigma_b, mu_a, sigma_a) == pytest.approx(1)


@given(mus, sigmas)
def test_equal_posteriors_give_one_half(mu: float, sigma: float) -> None:
    assert superiority(mu, sigma, mu, sigma) == 0.5


def test_skill_not_performance_so_small_gaps_settle_as_sigma_shrinks() -> None:
    # With beta in the spread, a 1-point gap could never pass Phi(1 / (beta * sqrt 2)) ≈ 0.57.
    beta = arena_env().beta
    assert NormalDist().cdf(1 / (beta * math.sqrt(2))) < 0.6
    assert superiority(26, 0.3, 25, 0.3) > 0.99


def test_a_dominant_bot_is_shown_at_least_99_percent_sure() -> None:
    skills = {"ace": 40.0, "b": 25.0, "c": 24.0, "d": 23.0}
    games = simulated_games(skills, 4, 40, seed=3)
    rows = with_confidence(rated_table(games, list(skills)))
    assert rows[0].bot == "ace" and rows[0].confidence is None
    assert rows[1].confidence is not None and rows[1].confidence >= 0.99
    assert (rows[0].rank_low, rows[0].rank_high) == (1, 1)
    boot = with_bootstrap(rows, games, resamples=50)
    assert boot[1].bootstrap_confidence == 1.0


def test_every_row_but_the_first_carries_its_pair_with_the_row_above() -> None:
    skills = {f"b{i}": 20 + 2 * i for i in range(5)}
    rows = with_confidence(rated_table(simulated_games(skills, 3, 30, seed=1), list(skills)))
    assert rows[0].confidence is None
    for upper, row in itertools.pairwise(rows):
        assert row.confidence == superiority(upper.mu, upper.sigma, row.mu, row.sigma)
    assert all(r.bootstrap_confidence is None for r in rows)


def test_rank_intervals_of_separated_skills_are_single_ranks() -> None:
    skills = [(40.0, 0.5), (30.0, 0.5), (20.0, 0.5), (10.0, 0.5)]
    assert rank_intervals(skills) == [(1, 1), (2, 2), (3, 3), (4, 4)]


def test_rank_intervals_of_equal_skills_span_the_table() -> None:
    assert rank_intervals([(25.0, 3.0)] * 4) == [(1, 4)] * 4


def test_an_uncertain_bot_gets_a_wide_interval_and_its_sure_neighbours_narrow_ones() -> None:
    low, high = rank_intervals([(30.0, 0.5), (25.0, 8.0), (20.0, 0.5)])[1]
    assert (low, high) == (1, 3)
    assert rank_intervals([(30.0, 0.5), (25.0, 0.5), (20.0, 0.5)])[1] == (2, 2)


@given(st.lists(st.tuples(mus, sigmas), min_size=1, max_size=8), st.integers(0, 2**32))
def test_rank_intervals_are_reproducible_ordered_and_inside_the_table(
    skills: list[tuple[float, float]], seed: int
) -> None:
    intervals = rank_intervals(skills, samples=200, seed=seed)
    assert intervals == rank_intervals(skills, samples=200, seed=seed)
    assert all(1 <= low <= high <= len(skills) for low, high in intervals)


def test_rank_intervals_refuse_a_meaningless_request() -> None:
    with pytest.raises(ValueError):
        rank_intervals([(25.0, 1.0)], samples=0)
    with pytest.raises(ValueError):
        rank_intervals([(25.0, 1.0)], level=1.0)


def test_the_bootstrap_agrees_with_the_posterior_on_simulated_fields() -> None:
    """Measured on these fields: the two differ by at most 0.07 per pair (200 resamples)."""
    for seed in (0, 1):
        skills = {f"b{i}": 25 + 1.5 * i for i in range(6)}
        games = simulated_games(skills, 4, 60, seed=seed)
        rows = with_bootstrap(with_confidence(rated_table(games, list(skills))), games, resamples=200)
        for row in rows[1:]:
            assert row.confidence is not None and row.bootstrap_confidence is not None
            assert abs(row.confidence - row.bootstrap_confidence) < 0.12, (seed, row)


def test_the_bootstrap_of_one_order_and_its_reverse_add_to_one() -> None:
    games = simulated_games({"a": 26.0, "b": 25.0, "c": 24.0}, 3, 12, seed=5)
    forward = bootstrap_superiority(games, ["a", "b", "c"], resamples=40)
    backward = bootstrap_superiority(games, ["c", "b", "a"], resamples=40)
    assert [f + b for f, b in zip(forward, reversed(backward), strict=True)] == pytest.approx([1.0, 1.0])


def test_without_games_every_bot_is_at_the_prior_and_each_pair_is_a_coin_toss() -> None:
    assert bootstrap_superiority([], ["a", "b", "c"], resamples=10) == [0.5, 0.5]


def test_the_bootstrap_resamples_the_games_and_rates_them_in_order() -> None:
    # a beats b in the one game there is: every resample holds it once, so a is always ahead.
    game = PlayedGame(("a", "b"), (30, 10), (1, 2))
    assert bootstrap_superiority([game], ["a", "b"], resamples=20) == [1.0]
    assert bootstrap_superiority([game], ["b", "a"], resamples=20) == [0.0]


def test_the_bootstrap_is_bounded_by_resamples_and_by_games_times_resamples() -> None:
    game = PlayedGame(("a", "b"), (30, 10), (1, 2))
    for resamples in (0, MAX_RESAMPLES + 1):
        with pytest.raises(ValueError, match="resamples"):
            bootstrap_superiority([game], ["a", "b"], resamples=resamples)
    assert max_resamples(10) == MAX_RESAMPLES
    assert max_resamples(400) * 400 <= BOOTSTRAP_WORK_LIMIT < (max_resamples(400) + 1) * 400
    assert max_resamples(BOOTSTRAP_WORK_LIMIT + 1) == 0


def test_a_played_game_refuses_a_malformed_shape() -> None:
    with pytest.raises(ValueError):
        PlayedGame(("a",), (1,), (1,))
    with pytest.raises(ValueError):
        PlayedGame(("a", "a"), (1, 2), (2, 1))
    with pytest.raises(ValueError):
        PlayedGame(("a", "b"), (1,), (2, 1))


def test_a_large_table_gets_fewer_draws_but_never_too_few() -> None:
    assert rank_samples(8) == RANK_SAMPLES
    assert rank_samples(1000) * 1000 <= RANK_DRAWS
    assert rank_samples(100_000) == MIN_RANK_SAMPLES
    skills = {f"b{i:04d}": 20 + i / 10 for i in range(RANK_DRAWS // RANK_SAMPLES + 1)}
    rows = with_confidence(rated_table(simulated_games(skills, 5, 300, seed=4), list(skills)))
    fewer = rank_intervals([(r.mu, r.sigma) for r in rows], samples=rank_samples(len(rows)))
    assert rank_samples(len(rows)) < RANK_SAMPLES
    assert [(r.rank_low, r.rank_high) for r in rows] == fewer
