"""TrueSkill free-for-all per game and the rating table (issue 4, Ratings). Pure: no database."""

from __future__ import annotations

import logging

import pytest

from arena.ratings.table import (
    DRAW_PROBABILITY,
    Rating,
    Standing,
    apply_game,
    arena_env,
    rate_game,
    rating_table,
    win_shares,
)


def test_env_uses_the_documented_draw_probability() -> None:
    assert arena_env().draw_probability == DRAW_PROBABILITY == 0.01


def test_winner_gains_loser_loses_and_everyone_gets_surer() -> None:
    env = arena_env()
    current = {b: env.create_rating() for b in "abcd"}
    after = rate_game(env, current, {"a": 1, "b": 2, "c": 3, "d": 4})
    assert after["a"].mu > after["b"].mu > after["c"].mu > after["d"].mu
    assert all(after[b].sigma < current[b].sigma for b in "abcd")


def test_equal_ranks_are_draws() -> None:
    env = arena_env()
    current = {b: env.create_rating() for b in "abc"}
    after = rate_game(env, current, {"a": 1, "b": 1, "c": 3})
    assert (after["a"].mu, after["a"].sigma) == pytest.approx((after["b"].mu, after["b"].sigma), abs=1e-3)
    assert after["a"].mu > after["c"].mu


def test_floating_point_error_leaves_ratings_unchanged_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    env = arena_env()
    current = {"underdog": Rating(-200, 1), "favourite": Rating(200, 1)}
    with caplog.at_level(logging.WARNING, logger="arena.ratings.table"):
        after = rate_game(env, current, {"underdog": 1, "favourite": 2})
    assert after == current
    assert "left unchanged" in caplog.text


def test_ratings_and_ranks_must_name_the_same_bots() -> None:
    env = arena_env()
    with pytest.raises(ValueError, match="same bots"):
        rate_game(env, {"a": Rating(), "b": Rating()}, {"a": 1, "c": 2})


def test_shared_wins_are_fractions() -> None:
    assert win_shares({"a": 1, "b": 1, "c": 1, "d": 4}) == {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3, "d": 0.0}
    assert win_shares({"a": 2, "b": 1}) == {"a": 0.0, "b": 1.0}


def test_apply_game_counts_games_wins_points_and_placings() -> None:
    env = arena_env()
    before = {b: Standing(b, env.mu, env.sigma) for b in "abc"}
    after = apply_game(env, before, {"a": 5, "b": 5, "c": -3}, {"a": 1, "b": 1, "c": 3})
    assert (after["a"].games, after["a"].wins, after["a"].points, after["a"].placings) == (1, 0.5, 5, 1)
    assert (after["c"].games, after["c"].wins, after["c"].points, after["c"].placings) == (1, 0.0, -3, 3)


def test_rating_table_sorts_by_conservative_rating_and_averages() -> None:
    rows = rating_table(
        [
            Standing("sure", 26.0, 1.0, games=4, wins=1.5, points=20, placings=8),
            Standing("lucky", 30.0, 5.0, games=2, wins=2.0, points=30, placings=2),
            Standing("new", 25.0, 25 / 3),
            Standing("also-new", 25.0, 25 / 3),
        ]
    )
    assert [(r.rank, r.bot) for r in rows] == [(1, "sure"), (2, "lucky"), (3, "also-new"), (3, "new")]
    sure = rows[0]
    assert sure.conservative == pytest.approx(23.0)
    assert (sure.games, sure.wins, sure.average_points, sure.average_placing) == (4, 1.5, 5.0, 2.0)
    assert rows[2].average_points is None and rows[2].average_placing is None
