"""Head-to-head records and the crosstable (issue 16): counts, point differences, sign test. Pure."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ratings.head_to_head import crosstable, sign_test
from arena.ratings.played_games import PlayedGame
from tests.ratings.simulated import simulated_games

SKILLS = {"a": 30.0, "b": 27.0, "c": 25.0, "d": 23.0, "e": 20.0}


def test_one_game_gives_each_pair_its_order_points_and_ties() -> None:
    table = crosstable([PlayedGame(("c", "a", "b"), (40, 10, 40), (1, 3, 1))])
    assert [(p.bot, p.other) for p in table.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    ab = table.between("a", "b")
    assert ab is not None and (ab.games, ab.above, ab.below, ab.ties, ab.point_difference) == (1, 0, 1, 0, -30)
    bc = table.between("b", "c")
    assert bc is not None and (bc.above, bc.below, bc.ties, bc.point_difference) == (0, 0, 1, 0)
    assert table.between("c", "a") == table.between("a", "c").flipped()  # type: ignore[union-attr]
    assert table.between("a", "z") is None


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_counts_add_up_to_the_games_each_pair_shared(seats: int) -> None:
    games = simulated_games(SKILLS, seats, 40, seed=seats)
    table = crosstable(games)
    for p in table.pairs:
        shared = [g for g in games if p.bot in g.bots and p.other in g.bots]
        assert p.games == len(shared) == p.above + p.below + p.ties
        diff = sum(g.points[g.bots.index(p.bot)] - g.points[g.bots.index(p.other)] for g in shared)
        assert p.point_difference == pytest.approx(diff / len(shared))
    assert sum(p.games for p in table.pairs) == len(games) * math.comb(seats, 2)
    assert table.bots == tuple(sorted(SKILLS))


def test_the_crosstable_is_antisymmetric() -> None:
    grid = crosstable(simulated_games(SKILLS, 4, 30, seed=9)).grid()
    assert len(grid) == len(SKILLS) * (len(SKILLS) - 1)
    for (a, b), record in grid.items():
        mirror = grid[(b, a)]
        assert (mirror.above, mirror.below, mirror.ties, mirror.games) == (
            record.below,
            record.above,
            record.ties,
            record.games,
        )
        assert mirror.point_difference == -record.point_difference
        assert mirror.p_value == record.p_value
        assert mirror.flipped() == record


def test_a_stronger_bot_shows_as_significantly_above_a_much_weaker_one() -> None:
    table = crosstable(simulated_games(SKILLS, 4, 60, seed=2))
    top = table.between("a", "e")
    assert top is not None and top.above > top.below and top.point_difference > 0 and top.p_value < 0.01


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_sign_test_is_the_exact_two_sided_binomial_tail(above: int, below: int) -> None:
    n, k = above + below, min(above, below)
    exact = 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2**n)
    assert sign_test(above, below) == pytest.approx(exact, rel=1e-9, abs=1e-300)
    assert sign_test(above, below) == sign_test(below, above)


def test_the_sign_test_on_known_splits_and_large_counts() -> None:
    assert sign_test(5, 5) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 1024)
    assert sign_test(0, 0) == 1.0
    assert 0 < sign_test(5200, 4800) < 1e-4
    assert sign_test(100_000, 0) == 0.0
    with pytest.raises(ValueError):
        sign_test(-1, 3)


def test_pairs_that_never_met_are_left_out() -> None:
    games = [PlayedGame(("a", "b"), (1, 0), (1, 2)), PlayedGame(("c", "d"), (1, 0), (1, 2))]
    assert [(p.bot, p.other) for p in crosstable(games).pairs] == [("a", "b"), ("c", "d")]
