"""The specialised free-for-all TrueSkill against the `trueskill` library as the oracle (issue 4).

Results must be bit-identical to `TrueSkill.rate` for one-player teams, and where the library fails
(FloatingPointError from its w functions, or arithmetic errors at extreme ratings) ours must fail
the same way, since `rate_game` leaves a FloatingPointError game unrated and recomputation from
records must agree with what was stored by either implementation.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from trueskill import Rating, TrueSkill, backends

from arena.ratings.table import Standing, apply_game, arena_env, rate_game
from arena.ratings.trueskill_ffa import _cdf, _pdf, rate_free_for_all

Outcome = list[tuple[float, float]] | type[BaseException]

typical_mu = st.floats(-50, 100)
extreme_mu = st.floats(-1e12, 1e12)
typical_sigma = st.floats(0.01, 20)
extreme_sigma = st.floats(1e-150, 1e150)  # Rating() itself overflows below about 1e-154
ratings = st.tuples(st.one_of(typical_mu, extreme_mu), st.one_of(typical_sigma, extreme_sigma)).map(
    lambda ms: Rating(*ms)
)


@st.composite
def games(draw: st.DrawFn) -> tuple[list[Rating], list[int]]:
    """2-5 ratings and competition-style ranks, ties likely."""
    n = draw(st.integers(2, 5))
    return draw(st.lists(ratings, min_size=n, max_size=n)), draw(st.lists(st.integers(1, n), min_size=n, max_size=n))


def library(env: TrueSkill, current: list[Rating], ranks: list[int]) -> Outcome:
    try:
        rated = env.rate([(r,) for r in current], ranks=ranks)
    except ArithmeticError as exc:
        return type(exc)
    except ValueError:
        return ValueError
    return [(g[0].mu, g[0].sigma) for g in rated]


def ours(env: TrueSkill, current: list[Rating], ranks: list[int]) -> Outcome:
    try:
        rated = rate_free_for_all(env, [(r.mu, r.sigma) for r in current], ranks)
        wrapped = [Rating(mu, sigma) for mu, sigma in rated]  # as rate_game and the library wrap them
    except ArithmeticError as exc:
        return type(exc)
    except ValueError:
        return ValueError
    return [(r.mu, r.sigma) for r in wrapped]


def same(a: Outcome, b: Outcome) -> bool:
    """Equal outcomes: the same exception, or the same floats bit for bit (NaN equal to NaN)."""
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    return len(a) == len(b) and all(
        x == y or (math.isnan(x) and math.isnan(y))
        for pa, pb in zip(a, b, strict=True)
        for x, y in zip(pa, pb, strict=True)
    )


@settings(max_examples=1500, deadline=None)
@given(games())
@example(([Rating(-200, 1), Rating(200, 1)], [1, 2]))  # the underdog wins: w_win gives up
@example(([Rating(-200, 1), Rating(200, 1)], [1, 1]))  # a draw this far apart: w_draw gives up
@example(([Rating(), Rating(), Rating(-300, 1), Rating(300, 1), Rating()], [1, 2, 3, 4, 5]))
# a negative precision: math.sqrt raises ValueError in both
@example(([Rating(24, 8.3), Rating(25, 1.7), Rating(226, 1.5), Rating(), Rating(25, 1.3)], [5, 3, 5, 1, 1]))
def test_bit_identical_to_the_library(game: tuple[list[Rating], list[int]]) -> None:
    env = arena_env()
    current, ranks = game
    expected = library(env, current, ranks)
    assert same(ours(env, current, ranks), expected), expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(typical_mu, st.floats(0.5, 10)), min_size=2, max_size=5), st.data())
def test_identical_at_a_nondefault_environment(pairs: list[tuple[float, float]], data: st.DataObject) -> None:
    env = TrueSkill(mu=0, sigma=5, beta=3, tau=0.2, draw_probability=0.2)
    current = [Rating(mu, sigma) for mu, sigma in pairs]
    ranks = data.draw(st.lists(st.integers(1, 3), min_size=len(pairs), max_size=len(pairs)))
    assert same(ours(env, current, ranks), library(env, current, ranks))


@pytest.mark.parametrize(
    ("current", "ranks"),
    [
        ([Rating(-200, 1), Rating(200, 1)], [1, 2]),
        ([Rating(-200, 1), Rating(200, 1)], [1, 1]),
        ([Rating(), Rating(-300, 1), Rating(300, 1)], [1, 2, 3]),
        ([Rating(-75, 1.5), Rating(25, 1.1), Rating(), Rating(255, 0.3)], [3, 1, 4, 2]),
        ([Rating(25, 1.1), Rating(25, 2.8), Rating(25, 2.3), Rating(298, 0.5)], [3, 2, 1, 2]),
    ],
)
def test_floating_point_errors_where_the_library_raises_them(
    current: list[Rating], ranks: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    env = arena_env()
    with pytest.raises(FloatingPointError):
        env.rate([(r,) for r in current], ranks=ranks)
    with pytest.raises(FloatingPointError):
        rate_free_for_all(env, [(r.mu, r.sigma) for r in current], ranks)
    bots = {f"b{i}": r for i, r in enumerate(current)}
    with caplog.at_level(logging.WARNING, logger="arena.ratings.table"):
        after = rate_game(env, bots, {f"b{i}": rank for i, rank in enumerate(ranks)})
    assert after == bots
    assert "left unchanged" in caplog.text


@given(st.lists(st.sampled_from("abcde"), min_size=2, max_size=5, unique=True), st.data())
def test_rate_game_returns_the_librarys_ratings_per_bot(bots: list[str], data: st.DataObject) -> None:
    env = arena_env()
    current = {b: data.draw(st.tuples(typical_mu, typical_sigma).map(lambda ms: Rating(*ms))) for b in bots}
    ranks = {b: data.draw(st.integers(1, len(bots))) for b in bots}
    after = rate_game(env, current, ranks)
    expected = env.rate([(current[b],) for b in bots], ranks=[ranks[b] for b in bots])
    assert {b: (r.mu, r.sigma) for b, r in after.items()} == {
        b: (g[0].mu, g[0].sigma) for b, g in zip(bots, expected, strict=True)
    }


@given(st.floats(allow_nan=False))
def test_normal_distribution_matches_the_default_backend(x: float) -> None:
    assert _cdf(x) == backends.cdf(x)
    try:
        expected = backends.pdf(x)
    except OverflowError:
        with pytest.raises(OverflowError):
            _pdf(x)
    else:
        assert _pdf(x) == expected


def test_unsupported_environments_and_games_are_refused() -> None:
    with pytest.raises(ValueError, match="backend"):
        rate_free_for_all(TrueSkill(draw_probability=lambda *_: 0.1), [(25, 8), (25, 8)], [1, 2])
    with pytest.raises(ValueError, match="multiple"):
        rate_free_for_all(arena_env(), [(25, 8)], [1])
    with pytest.raises(ValueError, match="ranks"):
        rate_free_for_all(arena_env(), [(25, 8), (25, 8)], [1])


def test_a_game_whose_arithmetic_fails_is_left_unrated(caplog: pytest.LogCaptureFixture) -> None:
    """Found with the example above: not a FloatingPointError, yet the game must still commit."""
    current = [Rating(24, 8.3), Rating(25, 1.7), Rating(226, 1.5), Rating(), Rating(25, 1.3)]
    ranks = [5, 3, 5, 1, 1]
    with pytest.raises(ValueError, match="math domain"):
        arena_env().rate([(r,) for r in current], ranks=ranks)
    bots = {f"b{i}": r for i, r in enumerate(current)}
    with caplog.at_level(logging.WARNING, logger="arena.ratings.table"):
        after = rate_game(arena_env(), bots, {f"b{i}": rank for i, rank in enumerate(ranks)})
    assert after == bots
    assert "left unchanged" in caplog.text


@settings(max_examples=1000, deadline=None)
@given(games())
def test_apply_game_rates_as_through_the_librarys_rating_objects(game: tuple[list[Rating], list[int]]) -> None:
    """`apply_game` rates on floats; it must store what `rate_game` gives through the library's
    `Rating` objects (whose precision round trip can move the last bit), as it did before."""
    env = arena_env()
    stored, ranks = game
    bots = [f"b{i}" for i in range(len(stored))]
    by_bot = dict(zip(bots, ranks, strict=True))
    standings = {b: Standing(b, r.mu, r.sigma) for b, r in zip(bots, stored, strict=True)}

    def outcome(rate: Callable[[], list[tuple[float, float]]]) -> Outcome:
        try:
            return rate()
        except (ArithmeticError, ValueError) as exc:
            return type(exc)

    through_objects = outcome(
        lambda: [
            (r.mu, r.sigma)
            for r in rate_game(env, {b: Rating(s.mu, s.sigma) for b, s in standings.items()}, by_bot).values()
        ]
    )
    on_floats = outcome(
        lambda: [(s.mu, s.sigma) for s in apply_game(env, standings, dict.fromkeys(bots, 0), by_bot).values()]
    )
    assert same(on_floats, through_objects), through_objects
