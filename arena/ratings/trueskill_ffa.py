"""TrueSkill for free-for-all games of one-player teams, without a factor graph per game.

`trueskill.TrueSkill.rate` (trueskill 0.4.5 by Heungsub Lee, BSD licence) builds a generic factor
graph of Gaussian message objects for every call, which made rating the larger part of committing
a game. Arena games are always free-for-all with one player per team, so the graph is a fixed
chain: prior -> performance -> team performance per player, and a difference + truncation factor
between neighbours in rank order. This module runs the library's algorithm on that chain with plain
floats:

* the same schedule: priors, likelihoods and team sums down once; then up to 10 sweeps over the
  differences (one pass for two players, else left to right then right to left) until the largest
  truncation update is at most `MIN_DELTA`; then messages back up to the ratings;
* the same formulas: v/w for a win and for a draw (equal ranks), the draw margin from the
  environment's draw probability, tau added to every prior;
* the same floating-point operations in the same order, including each variable's incremental
  update by message division and multiplication and the library's conversions between (mu, sigma)
  and (pi, tau), so results are bit-identical to the library (the tests use it as the oracle);
* the same failures: FloatingPointError where the library's w functions give up, and the same
  ZeroDivisionError, ValueError or OverflowError where its arithmetic fails at extreme ratings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from trueskill import DELTA, TrueSkill, calc_draw_margin

__all__ = ["MIN_DELTA", "FreeForAll", "rate_free_for_all"]

MIN_DELTA = DELTA
"""The library's default convergence threshold for `rate`."""

_ITERATIONS = 10
_INF = math.inf
_SQRT2 = math.sqrt(2)
_PDF_SCALE = 1 / math.sqrt(2 * math.pi)
_FLOATING_POINT_ERROR = 'Cannot calculate correctly, set backend to "mpmath"'


def _erfc(x: float) -> float:
    """Complementary error function: the Chebyshev fit of Numerical Recipes' erfcc, as the library's
    default backend evaluates it."""
    z = abs(x)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))
                    )
                )
            )
        )
    )
    return 2.0 - r if x < 0 else r


def _cdf(x: float) -> float:
    return 0.5 * _erfc(-x / _SQRT2)


def _pdf(x: float) -> float:
    # `** 2`, not `x * x`: like the library, overflow raises OverflowError instead of giving inf.
    return _PDF_SCALE * math.exp(-(x**2 / 2))


def _win(diff: float, margin: float) -> tuple[float, float]:
    """(v, w) for a decided pair: the library's v_win and w_win."""
    x = diff - margin
    denom = _cdf(x)
    v = _pdf(x) / denom if denom else -x
    w = v * (v + x)
    if 0 < w < 1:
        return v, w
    raise FloatingPointError(_FLOATING_POINT_ERROR)


def _draw(diff: float, margin: float) -> tuple[float, float]:
    """(v, w) for a tied pair: the library's v_draw and w_draw."""
    abs_diff = abs(diff)
    a, b = margin - abs_diff, -margin - abs_diff
    denom = _cdf(a) - _cdf(b)
    pdf_a, pdf_b = _pdf(a), _pdf(b)
    if not denom:
        raise FloatingPointError(_FLOATING_POINT_ERROR)
    v = (pdf_b - pdf_a) / denom
    w = v**2 + (a * pdf_a - b * pdf_b) / denom
    return (-v if diff < 0 else v), w


def _sum(pi1: float, tau1: float, pi2: float, tau2: float, sign: int) -> tuple[float, float]:
    """The message of a two-term sum factor, term1 + sign * term2, from its terms' cavities."""
    mu1 = pi1 and tau1 / pi1
    mu2 = pi2 and tau2 / pi2
    mu = mu1 + mu2 if sign > 0 else mu1 - mu2
    try:
        pi_inv = 1 / pi1
    except ZeroDivisionError:
        pi_inv = _INF
    if pi_inv != _INF:
        try:
            pi_inv += 1 / pi2
        except ZeroDivisionError:
            pi_inv = _INF
    pi = 1.0 / pi_inv
    return pi, pi * mu


def _copy(pi: float, tau: float) -> tuple[float, float]:
    """The message of a one-term sum factor with coefficient 1."""
    mu = pi and tau / pi
    try:
        pi_inv = 1 / pi
    except ZeroDivisionError:
        pi_inv = _INF
    pi = 1.0 / pi_inv
    return pi, pi * mu


@dataclass(frozen=True, slots=True)
class FreeForAll:
    """What the update needs of a TrueSkill environment, worked out once by `of`: the draw margin
    alone costs about a tenth of rating a game, so a caller that rates many games holds one."""

    beta2: float
    tau2: float
    draw_margin: float

    @classmethod
    def of(cls, env: TrueSkill) -> FreeForAll:
        """Only the library's default backend and a fixed draw probability are supported (that is
        what `arena_env` uses); a ValueError says so for any other environment."""
        if env.backend is not None or callable(env.draw_probability):
            raise ValueError("only the default backend with a fixed draw probability is supported")
        return cls(env.beta**2, env.tau**2, calc_draw_margin(env.draw_probability, 2, env))


def rate_free_for_all(
    env: TrueSkill | FreeForAll, ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """The (mu, sigma) of each player after one game, as `env.rate([(r,) for r in ratings], ranks)`
    gives them before wrapping them in `Rating`; lower rank is better, equal ranks are draws.

    `ratings` are (Rating.mu, Rating.sigma) pairs; `env` is the environment or, for a caller
    rating many games, its `FreeForAll`.
    """
    c = env if isinstance(env, FreeForAll) else FreeForAll.of(env)
    n = len(ratings)
    if n < 2:
        raise ValueError("Need multiple rating groups")
    if len(ranks) != n:
        raise ValueError("Wrong ranks")
    beta2, margin = c.beta2, c.draw_margin
    order = sorted(range(n), key=ranks.__getitem__)

    # Down the gray arrows: prior (with tau), performance, team performance; in rank order.
    prior_pi: list[float] = []
    prior_tau: list[float] = []
    perf_pi: list[float] = []
    perf_tau: list[float] = []
    team_pi: list[float] = []  # each team variable ...
    team_tau: list[float] = []
    sum_pi: list[float] = []  # ... and its message from the team-sum factor
    sum_tau: list[float] = []
    for i in order:
        mu, sigma = ratings[i]
        s = math.sqrt(sigma**2 + c.tau2)
        if s == 0:
            raise ValueError("sigma**2 should be greater than 0")
        pi = s**-2
        tau = pi * mu
        prior_pi.append(pi)
        prior_tau.append(tau)
        a = 1.0 / (1.0 + beta2 * pi)
        pi, tau = a * pi, a * tau
        perf_pi.append(pi)
        perf_tau.append(tau)
        pi, tau = _copy(pi, tau)
        team_pi.append(pi)
        team_tau.append(tau)
        sum_pi.append(pi)
        sum_tau.append(tau)

    # Messages from difference factor j to its left team j (left_*) and right team j + 1 (right_*),
    # to its difference variable (diff_msg_*), and from truncation factor j (trunc_*).
    pairs = n - 1
    left_pi = [0.0] * pairs
    left_tau = [0.0] * pairs
    right_pi = [0.0] * n
    right_tau = [0.0] * n
    diff_pi = [0.0] * pairs
    diff_tau = [0.0] * pairs
    diff_msg_pi = [0.0] * pairs
    diff_msg_tau = [0.0] * pairs
    trunc_pi = [0.0] * pairs
    trunc_tau = [0.0] * pairs
    vw = [_draw if ranks[order[j]] == ranks[order[j + 1]] else _win for j in range(pairs)]

    def diff_down(j: int) -> None:
        pi, tau = _sum(
            team_pi[j] - left_pi[j],
            team_tau[j] - left_tau[j],
            team_pi[j + 1] - right_pi[j + 1],
            team_tau[j + 1] - right_tau[j + 1],
            -1,
        )
        diff_pi[j] = diff_pi[j] - diff_msg_pi[j] + pi
        diff_tau[j] = diff_tau[j] - diff_msg_tau[j] + tau
        diff_msg_pi[j], diff_msg_tau[j] = pi, tau

    def truncate(j: int) -> float:
        """Update difference j from its truncation factor; return how far it moved."""
        pi = diff_pi[j] - trunc_pi[j]
        tau = diff_tau[j] - trunc_tau[j]
        sqrt_pi = math.sqrt(pi)
        v, w = vw[j](tau / sqrt_pi, margin * sqrt_pi)
        denom = 1.0 - w
        new_pi, new_tau = pi / denom, (tau + sqrt_pi * v) / denom
        old_pi, old_tau = diff_pi[j], diff_tau[j]
        trunc_pi[j] = new_pi + trunc_pi[j] - old_pi
        trunc_tau[j] = new_tau + trunc_tau[j] - old_tau
        diff_pi[j], diff_tau[j] = new_pi, new_tau
        pi_delta = abs(old_pi - new_pi)
        return 0.0 if pi_delta == _INF else max(abs(old_tau - new_tau), math.sqrt(pi_delta))

    def up_right(j: int) -> None:
        """Difference factor j to team j + 1 (= team j - difference)."""
        k = j + 1
        pi, tau = _sum(
            team_pi[j] - left_pi[j],
            team_tau[j] - left_tau[j],
            diff_pi[j] - diff_msg_pi[j],
            diff_tau[j] - diff_msg_tau[j],
            -1,
        )
        team_pi[k] = team_pi[k] - right_pi[k] + pi
        team_tau[k] = team_tau[k] - right_tau[k] + tau
        right_pi[k], right_tau[k] = pi, tau

    def up_left(j: int) -> None:
        """Difference factor j to team j (= difference + team j + 1)."""
        k = j + 1
        pi, tau = _sum(
            diff_pi[j] - diff_msg_pi[j],
            diff_tau[j] - diff_msg_tau[j],
            team_pi[k] - right_pi[k],
            team_tau[k] - right_tau[k],
            +1,
        )
        team_pi[j] = team_pi[j] - left_pi[j] + pi
        team_tau[j] = team_tau[j] - left_tau[j] + tau
        left_pi[j], left_tau[j] = pi, tau

    for _ in range(_ITERATIONS):
        if pairs == 1:
            diff_down(0)
            delta = truncate(0)
        else:
            delta = 0.0
            for j in range(pairs - 1):
                diff_down(j)
                delta = max(delta, truncate(j))
                up_right(j)
            for j in range(pairs - 1, 0, -1):
                diff_down(j)
                delta = max(delta, truncate(j))
                up_left(j)
        if delta <= MIN_DELTA:
            break
    up_left(0)
    up_right(pairs - 1)

    # Up the remaining black arrows: team -> performance -> rating.
    rated: list[tuple[float, float]] = [(0.0, 0.0)] * n
    for k, i in enumerate(order):
        pi, tau = _copy(team_pi[k] - sum_pi[k], team_tau[k] - sum_tau[k])
        perf_pi_k, perf_tau_k = perf_pi[k], perf_tau[k]
        pi = perf_pi_k + pi - perf_pi_k
        tau = perf_tau_k + tau - perf_tau_k
        a = 1.0 / (1.0 + beta2 * pi)
        pi = prior_pi[k] + a * pi
        tau = prior_tau[k] + a * tau
        rated[i] = (pi and tau / pi, math.sqrt(1 / pi) if pi else _INF)
    return rated
