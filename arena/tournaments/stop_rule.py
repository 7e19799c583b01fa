"""The stop rule: play rounds until every adjacent pair of the table is settled, or a game cap.

A stop-rule tournament plays one round at a time (a round has as many tables as the schedule the
tournament would play without the rule: a full round robin, or its N bounded rounds). Round 0 is
that schedule; later rounds seat the current neighbours together (`stop_round` in
`arena.tournaments.schedule`). After each complete round it looks at the order (`Evidence.order`)
and asks, for each adjacent pair of the top places (rank i above rank i+1, i = 1..K, K the
organiser's `top`, default every pair), whether the upper bot is *proven* stronger than the lower
one, or the two are *proven equal* within the organiser's `margin`. If every such pair is one or
the other, the tournament is **settled** and stops; if another round would go over `max_games`,
it stops with the **cap reached** and names the pairs still open.

**The tests, and why.** Let p be the chance that bot a finishes above bot b in a game they share
(ties, equal ranks, are left out); each shared game is one Bernoulli outcome X (1: a above b).

* *a above b*, **pooled** over every table (null: a is not stronger than b in the Bradley-Terry
  model of all the games). The tallies of every pair are fitted by Bradley-Terry (strengths held
  fixed, each bot with one virtual win and loss against a bot of strength 1), once freely and
  once with a and b held equal (`_climb`); twice the log-likelihood gap is the likelihood-ratio
  statistic for the pair, and it counts what a and b did against everybody else, not only against
  each other. The games' finishing orders make a game's pairs dependent (four players, six
  pairs, one order), so the statistic is scaled by the model's variance of the strength gap over
  the games' own (the sandwich, `pooled_proofs`), whichever is larger. It enters the test as the
  Gaussian likelihood ratio of a gap l > 0, exp(l s - l^2 v / 2) (s the statistic on the gap's
  scale, v its information), mixed over l half-normal of precision `POOLED_PRIOR_PRECISION`:
  2 sqrt(r / (v + r)) exp(s^2 / (2 (v + r))) Phi(s / sqrt(v + r)). In the Gaussian limit this is
  a test martingale for every null field; at small tallies the limit is only approximate, and
  `benchmarks/rating_quality.py --simulate` measures its error through this code. Its value is
  averaged with the **head-to-head** test martingale of the pair's own games, the likelihood
  ratio prod (2q)^X (2(1-q))^(1-X) mixed over q uniform in (1/2, 1], in closed form
  M(S, F) = sum_{j <= S} C(N+1, j) / ((N+1) C(N, S)), N = S + F, S and F the games a finished above
  and below b, a non-negative supermartingale under p <= 1/2 in every game whatever the model:
  the average of two such processes is one, decides short lopsided tallies (10-0) the Gaussian
  limit is slow on, and costs a factor of 2 where either alone would have passed.
* *a is not ahead by the margin* (null: p >= 1/2 + delta in every game), head-to-head: the
  likelihood ratio prod (q/p0)^X ((1-q)/(1-p0))^(1-X), p0 = 1/2 + delta, mixed over q uniform in
  [0, p0], in closed form E(S, F) = sum_{i <= F} C(N+1, S+1+i) r^i / ((N+1) C(N, S)),
  r = p0 / (1 - p0). Each factor has mean p q/p0 + (1-p)(1-q)/(1-p0) <= 1 once p >= p0 > q. The
  pair is **equal within delta** once both directions are shown (a not ahead of b by delta, b not
  ahead of a): the two-one-sided-tests form of an equivalence test, made sequential; its tallies
  are exact integers (`not_ahead`).

Ville's inequality bounds the chance that a test martingale *ever* reaches 1/alpha by alpha, so
every test may be looked at after every round, for as long as the tournament runs, and a pair that
reached it once stays decided. This is what an SPRT does, without its weakness: an SPRT needs the
effect size in advance and is only efficient near it; a mixture needs none and loses only a log
factor. Which pairs are adjacent depends on the data, so the bound is split (Bonferroni):
alpha = (1 - confidence) / (n(n-1)) for each of the four tests of each of the n(n-1)/2 pairs.
Whatever a pair's p, at most two of its four tests have a true null (p = 1/2: both orders;
p >= 1/2 + delta: "b above a" and "a not ahead"), so the chance of any wrong decision in the
tournament is at most n(n-1)/2 * 2 alpha = 1 - confidence. The order tests are run on the pairs
adjacent in the rule's own order after each round (only those are ever read). A fixed-sample test
repeated after every round would not hold its level (the repeated looks inflate it).

**What no test can do.** The rule's games are bounded below whatever its test: a rule that ends a
clear field reported in order, and reports a pair wrongly at most 1 - confidence of the time on
the same field with that pair tied, needs on average at least (n - 1) log(1 / (1 - confidence))
over the most any one table tells about the n - 1 pairs (`arena.ratings.plackett_luce.least_mean_games`,
Wald's bound): at 4 seats and 70/30 neighbours 41 games for 5 bots and 71 for 8, before any split
of the error over pairs. A fixed schedule long enough to be right 95% of the time (45 and 128
games there) needs no such proof, and only hindsight can choose it.

**Not a stop rule:** `arena.ratings.rank_confidence.superiority` (the posterior chance that the
upper bot is stronger) reaches any level on two *equal* bots too: their posteriors narrow while
their means drift apart by chance, so stopping once it passes 0.95 stops on a coin flip. Only the
tests above hold their error however often they are read.

**The order.** Which pairs are adjacent is read from the same Bradley-Terry fit (`Evidence.order`):
strengths held fixed over the tournament (TrueSkill's tau = 0: a tournament's field does not learn
while it plays), pooling every shared game, so a close pair is seen in its true order far sooner
than by the tournament's TrueSkill table, whose tau lets the ratings drift and keeps the order of
close bots wrong 13-20% of the time however long it plays.

**The promise.** Call a reported pair wrong if it is reported proven in an order the bots' true
strengths contradict, or reported equal while one finishes above the other at least
1/2 + delta of the time. The chance that a tournament ever reports a wrong pair, and so that it
stops settled on a wrong order or a wrong "equal", is at most 1 - confidence: for the head-to-head
tests whatever the bots are; for the pooled test where the games follow the Bradley-Terry model
(a bot's chance of finishing above another the same whoever else is at the table) and its
Gaussian limit holds. `benchmarks/rating_quality.py --simulate` measures the rate on
Plackett-Luce fields of known skill through this code (docs/benchmarks.md, "Rating quality"): no
field came near the promise. Bots whose strengths are not one ladder (a beats b, b beats c, c
beats a) have no true order; the pooled test then reports the Bradley-Terry order, which is the
order of their average strength. What it does not promise: bots below place K+1 are not compared
with the top.

**Determinism.** `Evidence` is fed complete rounds only and its order and decisions are functions
of their results (the fits start from strength 1, the games' variance is summed in a sorted order
of outcomes, not in the order the store returns them), so the decision after each round is a pure
function of the committed results of complete rounds: a resumed tournament decides the same as one
that never stopped.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import combinations, pairwise
from typing import Any

from arena.errors import InvalidSetting
from arena.tournaments.entries import MAX_GAMES
from arena.tournaments.schedule import MIXED_EVERY

DEFAULT_CONFIDENCE = 0.95
MIN_CONFIDENCE = 0.5
MAX_CONFIDENCE = 0.9999
DEFAULT_MAX_GAMES = 2000
"""Under it 8 entrants at 4-seat tables whose neighbours finish above each other 60% of the time
settle in every one of 200 simulated runs, in 1,278 games on average (docs/benchmarks.md, "Rating
quality"); 16 such entrants, or closer fields, mostly stop here, and so, with `margin` 0, does
any field holding two equal bots."""
DEFAULT_MARGIN = 0.1
"""Two bots are equal within the margin when neither finishes above the other in 60% or more of
their shared games; tighter margins take quadratically more games to show."""
MAX_MARGIN = 0.4
_MARGIN_DENOMINATOR = 1000
"""Margins are read to 1/1000 and tested as that exact fraction."""


@dataclass(frozen=True, slots=True)
class StopRule:
    """A stop-rule tournament's settings: the confidence, how many top places must be settled
    (None: all), the most games it may play, and the margin within which two bots count as equal
    (0: never equal, every pair must be ordered)."""

    confidence: float = DEFAULT_CONFIDENCE
    top: int | None = None
    max_games: int = DEFAULT_MAX_GAMES
    margin: float = DEFAULT_MARGIN

    def __post_init__(self) -> None:
        if (
            isinstance(self.confidence, bool)
            or not isinstance(self.confidence, (int, float))
            or not (MIN_CONFIDENCE <= self.confidence <= MAX_CONFIDENCE)
        ):
            raise InvalidSetting(
                f"the stop rule's confidence must be within {MIN_CONFIDENCE}..{MAX_CONFIDENCE}, not {self.confidence}"
            )
        if self.top is not None and (not isinstance(self.top, int) or self.top < 1):
            raise InvalidSetting(f"the stop rule's top places must be at least 1, not {self.top}")
        if not isinstance(self.max_games, int) or not 1 <= self.max_games <= MAX_GAMES:
            raise InvalidSetting(f"the stop rule's max games must be within 1..{MAX_GAMES}, not {self.max_games}")
        if (
            isinstance(self.margin, bool)
            or not isinstance(self.margin, (int, float))
            or not (0 <= self.margin <= MAX_MARGIN)
        ):
            raise InvalidSetting(f"the stop rule's equal margin must be within 0..{MAX_MARGIN}, not {self.margin}")

    def pair_error(self, entrants: int) -> Fraction:
        """The error allowed to each test of one pair of a field of `entrants` (exact)."""
        return (1 - Fraction(self.confidence)) / max(1, entrants * (entrants - 1))

    @property
    def exact_margin(self) -> Fraction:
        """The margin as the exact fraction the tests use (to 1/1000)."""
        return Fraction(round(self.margin * _MARGIN_DENOMINATOR), _MARGIN_DENOMINATOR)

    def to_json(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "top": self.top, "max_games": self.max_games, "margin": self.margin}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StopRule:
        """The stored rule; one stored before margins existed has none (0), as it was played."""
        unknown = set(data) - {"confidence", "top", "max_games", "margin"}
        if unknown:
            raise InvalidSetting(f"unknown stop rule settings: {', '.join(sorted(unknown))}")
        return cls(**{"margin": 0.0, **data})


class StopOutcome(StrEnum):
    """Where a stop-rule tournament stands after its last complete round."""

    PLAYING = "playing"
    """Not settled and another round fits under the cap: it plays on."""
    SETTLED = "settled"
    """Every adjacent pair of the top places is proven in the table's order, or proven equal."""
    CAP_REACHED = "cap-reached"
    """Not settled, and another round would go over `max_games`."""


@dataclass(frozen=True, slots=True)
class PairCheck:
    """One adjacent pair of the table: how often each finished above the other (ties left out),
    whether the upper one is proven stronger or the two proven equal within the margin, and, while
    neither, about how many more games the tournament needs for one of them (None: no estimate,
    the tally pointing to neither)."""

    upper: str
    lower: str
    above: int
    below: int
    settled: bool
    equal: bool = False
    games_needed: int | None = None

    @property
    def decided(self) -> bool:
        return self.settled or self.equal

    @property
    def state(self) -> str:
        """'settled' (the upper one proven stronger), 'equal' or 'open'."""
        return "settled" if self.settled else "equal" if self.equal else "open"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The stop rule's decision after `rounds` complete rounds (`games` games)."""

    rounds: int
    games: int
    outcome: StopOutcome
    pairs: tuple[PairCheck, ...]
    """The adjacent pairs of the top places, best first."""
    order: tuple[str, ...] = ()
    """Every entrant, in the order the pairs were read from (best first)."""

    @property
    def unsettled(self) -> tuple[PairCheck, ...]:
        """The pairs neither proven in order nor proven equal."""
        return tuple(p for p in self.pairs if not p.decided)


def not_ahead(above: int, below: int, margin: Fraction, alpha: Fraction) -> bool:
    """Whether E(above, below) (module docstring) reached 1/alpha: shown that the bot finishing
    `above` times is not ahead by `margin` (its chance of finishing above stays under 1/2 + margin).

    Exact, as integers. The mixture is at most the likelihood ratio at its best q, exp(N KL), so
    a float check of that bound (with room for rounding) turns most calls away first.
    """
    if margin <= 0:
        return False
    n = above + below
    p0 = Fraction(1, 2) + margin
    share = above / n if n else 0.0
    if n == 0 or share >= p0:
        return False
    q0 = float(p0)
    kl = (above * math.log(share / q0) if above else 0.0) + below * math.log((1 - share) / (1 - q0))
    if kl < math.log(alpha.denominator / alpha.numerator) - 1e-9:
        return False
    a, d = p0.numerator, p0.denominator - p0.numerator  # r = a / d
    # total = sum_i C(N+1, S+1+i) a^i d^(F-i), by Horner from i = F (where C(N+1, N+1) = 1) down.
    total = binomial = power = 1
    for i in range(below - 1, -1, -1):
        j = above + 1 + i
        binomial = binomial * (j + 1) // (n + 1 - j)
        power *= d
        total = total * a + binomial * power
    # E = total / (d^F (N+1) C(N, S)).
    return total * alpha.numerator >= power * (n + 1) * math.comb(n, above) * alpha.denominator


POOLED_PRIOR_PRECISION = 1.0
"""The precision of the pooled test's half-normal mixture over the strength gap (in log-odds):
a standard deviation of 1, a pair of neighbours finishing 73/27, where the fields that matter
to organisers lie; the test holds its level whatever the gap, and is quickest near this one."""
HEAD_TO_HEAD_WEIGHT = 0.2
"""The head-to-head test martingale's weight in the average with the pooled one (module docstring)."""
_NEWTON_STEPS = 100
"""Newton steps of a Bradley-Terry fit at most (a fit takes about ten)."""
_NEWTON_TOLERANCE = 1e-12
"""A fit stops when a step gains less log-likelihood than this, or moves no strength by more."""


def pooled_proofs(
    order: Sequence[str],
    strength: Mapping[str, float],
    above: Mapping[tuple[str, str], int],
    outcomes: Mapping[tuple[tuple[str, int], ...], int],
    alpha: Fraction,
) -> set[tuple[str, str]]:
    """The adjacent pairs (upper, lower) of `order` whose pooled test (module docstring) passes
    at `alpha`. `strength` is the Bradley-Terry fit of the tallies `above` (`Evidence._fit`);
    `outcomes` every game's ranks, counted, for the games' own variance."""
    n = len(order)
    theta = [math.log(strength[e]) for e in order]
    wins = [[above[a, b] if a != b else 0 for b in order] for a in order]
    fitted = _log_likelihood(theta, wins)
    model = _hessian(theta, wins)
    factor = _cholesky(model)
    index = {e: i for i, e in enumerate(order)}
    scores = [(_game_score(ranks, index, theta), count) for ranks, count in sorted(outcomes.items())]
    threshold = math.log(alpha.denominator / alpha.numerator)
    proofs = set()
    for i in range(n - 1):
        if theta[i] <= theta[i + 1]:
            continue
        u = _solve(factor, [1.0 if k == i else -1.0 if k == i + 1 else 0.0 for k in range(n)])
        model_variance = u[i] - u[i + 1]
        games_variance = sum(count * sum(g * u[k] for k, g in score) ** 2 for score, count in scores)
        variance = max(model_variance, games_variance)
        tied = [*theta[:i], (theta[i] + theta[i + 1]) / 2, (theta[i] + theta[i + 1]) / 2, *theta[i + 2 :]]
        ratio = 2 * (fitted - _log_likelihood(_climb(wins, tied, (i, i + 1)), wins))
        statistic = math.sqrt(max(0.0, ratio) * model_variance) / variance
        pooled = _log_half_normal_mixture(statistic, 1 / variance)
        direct = _log_mixture(wins[i][i + 1], wins[i + 1][i])
        weighted = (1 - HEAD_TO_HEAD_WEIGHT) * math.exp(pooled - threshold) + HEAD_TO_HEAD_WEIGHT * math.exp(
            direct - threshold
        )
        if weighted >= 1:
            proofs.add((order[i], order[i + 1]))
    return proofs


def _log_mixture(above: int, below: int) -> float:
    """log M(above, below), the head-to-head test martingale (module docstring)."""
    n = above + below
    terms = [math.lgamma(n + 2) - math.lgamma(j + 1) - math.lgamma(n + 2 - j) for j in range(above + 1)]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms)) - math.log(n + 1) - _log_comb(n, above)


def _log_likelihood(theta: Sequence[float], wins: Sequence[Sequence[int]]) -> float:
    """The Bradley-Terry log-likelihood of the tallies (each pair's games independent), with each
    bot's virtual win and loss against a bot of strength 1 (`Evidence._fit`)."""
    total = sum(-_softplus(-t) - _softplus(t) for t in theta)
    for i, row in enumerate(wins):
        for j, count in enumerate(row):
            if count:
                total -= count * _softplus(theta[j] - theta[i])
    return total


def _softplus(x: float) -> float:
    """log(1 + e^x), without overflow: -log of the chance of a win by a gap of -x."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _hessian(theta: Sequence[float], wins: Sequence[Sequence[int]]) -> list[list[float]]:
    """Minus the log-likelihood's second derivatives at `theta` (the model's information)."""
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p = 1 / (1 + math.exp(-theta[i]))
        info[i][i] += 2 * p * (1 - p)
        for j in range(i + 1, n):
            shared = wins[i][j] + wins[j][i]
            if shared:
                p = 1 / (1 + math.exp(theta[j] - theta[i]))
                weight = shared * p * (1 - p)
                info[i][i] += weight
                info[j][j] += weight
                info[i][j] -= weight
                info[j][i] -= weight
    return info


def _climb(wins: Sequence[Sequence[int]], start: Sequence[float], tie: tuple[int, int] | None = None) -> list[float]:
    """The log-strengths of greatest likelihood (`_log_likelihood`), by Newton steps from `start`,
    with the bots `tie` (a, b) held equal if given, halving a step that would lower the
    likelihood: it is strictly concave (the virtual games), so this climbs to its one top."""
    n = len(start)
    keep = [k for k in range(n) if tie is None or k != tie[1]]

    def expand(free: Sequence[float]) -> list[float]:
        full = [0.0] * n
        for k, value in zip(keep, free, strict=True):
            full[k] = value
        if tie is not None:
            full[tie[1]] = full[tie[0]]
        return full

    free = [start[k] for k in keep]
    current = _log_likelihood(expand(free), wins)
    for _ in range(_NEWTON_STEPS):
        full = expand(free)
        gradient = [1 - 2 / (1 + math.exp(-t)) for t in full]
        for i, row in enumerate(wins):
            for j, count in enumerate(row):
                if count:
                    q = count / (1 + math.exp(full[i] - full[j]))  # i's wins times the chance of a loss
                    gradient[i] += q
                    gradient[j] -= q
        info = _hessian(full, wins)
        if tie is not None:
            a, b = tie
            for line in info:
                line[a] += line[b]
            info[a] = [x + y for x, y in zip(info[a], info[b], strict=True)]
            gradient[a] += gradient[b]
        step = _solve(_cholesky([[info[i][j] for j in keep] for i in keep]), [gradient[k] for k in keep])
        scale, value, trial = 1.0, -math.inf, free
        while scale > 1e-6 and value < current:
            trial = [x + scale * s for x, s in zip(free, step, strict=True)]
            value = _log_likelihood(expand(trial), wins)
            scale /= 2
        if value < current:
            break
        free, gain, current = trial, value - current, value
        if gain < _NEWTON_TOLERANCE or max(map(abs, step)) < _NEWTON_TOLERANCE:
            break
    return expand(free)


def _game_score(
    ranks: Sequence[tuple[str, int]], index: Mapping[str, int], theta: Sequence[float]
) -> list[tuple[int, float]]:
    """One game's score (the composite log-likelihood's gradient at `theta`), by entrant index:
    for each pair that did not tie, the win less its fitted chance."""
    score: dict[int, float] = {}
    for (a, rank_a), (b, rank_b) in combinations(ranks, 2):
        if rank_a != rank_b:
            i, j = (index[a], index[b]) if rank_a < rank_b else (index[b], index[a])
            x = 1 - 1 / (1 + math.exp(theta[j] - theta[i]))
            score[i] = score.get(i, 0.0) + x
            score[j] = score.get(j, 0.0) - x
    return sorted(score.items())


def _log_half_normal_mixture(s: float, v: float) -> float:
    """log of the Gaussian likelihood ratio exp(l s - l^2 v / 2), mixed over the gap l > 0 with a
    half-normal density of precision `POOLED_PRIOR_PRECISION`: for the statistic s ~ N(l v, v)
    it is 2 sqrt(r / (v + r)) exp(s^2 / (2 (v + r))) Phi(s / sqrt(v + r))."""
    r = POOLED_PRIOR_PRECISION
    t = v + r
    tail = 0.5 * math.erfc(-s / math.sqrt(2 * t))
    return math.log(2) + 0.5 * math.log(r / t) + s * s / (2 * t) + math.log(tail)


def _cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The lower triangular L with L L^T = `matrix` (symmetric positive definite)."""
    n = len(matrix)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = matrix[i][j] - sum(lower[i][k] * lower[j][k] for k in range(j))
            lower[i][j] = math.sqrt(total) if i == j else total / lower[j][j]
    return lower


def _solve(lower: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    """x with L L^T x = b, by forward and back substitution."""
    n = len(lower)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(lower[i][k] * y[k] for k in range(i))) / lower[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, n))) / lower[i][i]
    return x


def _log_equivalence(above: int, below: int, margin: float) -> float:
    """log E(above, below) at margin `margin`, in floats: for estimates only."""
    n = above + below
    r = math.log((0.5 + margin) / (0.5 - margin))
    terms = [_log_comb(n + 1, above + 1 + i) + i * r for i in range(below + 1)]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms)) - math.log(n + 1) - _log_comb(n, above)


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def comparisons_needed(share: float, alpha: Fraction, margin: float, limit: int = 200_000) -> int | None:
    """About how many shared games (ties left out) a pair needs for a decision if the upper bot
    keeps finishing above the other a `share` of the time: the fewest N at which the order test
    (share above 1/2) or the equivalence tests (share within the margin) would pass on a tally of
    that share, the pair's own games its only evidence (the pooled test, counting the games against
    the others too, mostly needs fewer: an estimate from above). None when neither could within
    `limit` (a share of exactly 1/2 without a margin)."""
    threshold = math.log(alpha.denominator / alpha.numerator)

    def passes(n: int) -> bool:
        above = round(share * n)
        below = n - above
        information = n * share * (1 - share)
        statistic = math.sqrt(2 * n * _kl(share, 0.5) * information)
        if share > 0.5 and _log_half_normal_mixture(statistic, information) >= threshold:
            return True
        return (
            margin > 0
            and abs(share - 0.5) < margin
            and _log_equivalence(above, below, margin) >= threshold
            and _log_equivalence(below, above, margin) >= threshold
        )

    high = 1
    while not passes(high):
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if passes(mid) else (mid, high)
    return high


def games_to_settle(entrants: int, table_size: int, rule: StopRule, share: float = 0.65) -> int:
    """About how many games a field of `entrants` needs to settle every adjacent pair if each
    bot finishes above the next one a `share` of the time: each pair's shared games
    (`comparisons_needed`) over the rate at which the rounds seat a pair of neighbours together
    (k-1 tables of every n in a round of neighbours, k(k-1)/(n(n-1)) in a mixed round)."""
    needed = comparisons_needed(share, rule.pair_error(entrants), rule.margin)
    if needed is None:
        return MAX_GAMES + 1
    n, k = entrants, table_size
    focused = (k - 1) / n
    mixed = k * (k - 1) / (n * (n - 1))
    rate = ((MIXED_EVERY - 1) * focused + mixed) / MIXED_EVERY
    return math.ceil(needed / rate)


def shared_games_wanted(above: int, below: int, alpha: Fraction, margin: float) -> float:
    """A quick guess at the shared games (ties left out) an open pair still wants, for sharing
    out a round's tables (`arena.tournaments.schedule.open_pair_round`): the evidence a test
    needs, log(1/alpha) and the mixture's cost of about log(N), over the information a game gives
    at the pair's present share (the Kullback-Leibler divergence from the test's null), for
    whichever test is nearer; less what the pair has. Close to `comparisons_needed`, at a
    fraction of its cost."""
    n = above + below
    share = (above + 1) / (n + 2)
    evidence = math.log(alpha.denominator / alpha.numerator) + math.log(n + 2)
    best = evidence / _kl(max(share, 1 - share), 0.5)
    if margin > 0 and abs(share - 0.5) < margin:
        best = min(best, evidence / min(_kl(share, 0.5 + margin), _kl(share, 0.5 - margin)))
    return max(1.0, best - n)


def _kl(p: float, q: float) -> float:
    """The Kullback-Leibler divergence of a Bernoulli(q) from a Bernoulli(p); tiny, not 0, at p = q."""
    return max(1e-9, p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q)))


def open_pairs(verdict: Verdict, rule: StopRule) -> dict[tuple[str, str], float]:
    """The verdict's open pairs (upper, lower), each with the shared games it still wants."""
    alpha = rule.pair_error(len(verdict.order))
    return {(p.upper, p.lower): shared_games_wanted(p.above, p.below, alpha, rule.margin) for p in verdict.unsettled}


def largest_settled_field(table_size: int, rule: StopRule, most: int, share: float = 0.65) -> int | None:
    """The most entrants, up to `most`, that `games_to_settle` puts within the rule's cap (None:
    not even a field of `table_size`); the games grow with the field, so a binary search."""
    if games_to_settle(table_size, table_size, rule, share) > rule.max_games:
        return None
    low, high = table_size, most + 1
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if games_to_settle(mid, table_size, rule, share) <= rule.max_games else (low, mid)
    return low


class Evidence:
    """The head-to-head tallies of a stop-rule tournament, the pairs decided so far and the order,
    fed one complete round at a time."""

    def __init__(self, rule: StopRule, entrants: Sequence[str]) -> None:
        self.rule = rule
        self.entrants = tuple(sorted(entrants))
        self.rounds = 0
        self.games = 0
        self._alpha = rule.pair_error(len(self.entrants))
        self._margin = rule.exact_margin
        self._above: dict[tuple[str, str], int] = {(a, b): 0 for a in self.entrants for b in self.entrants if a != b}
        self._looked: dict[tuple[str, str], int] = {}
        self.proven: set[tuple[str, str]] = set()
        """Ordered pairs (a, b) with a proven stronger than b at some look."""
        self.not_ahead: set[tuple[str, str]] = set()
        """Ordered pairs (a, b) with a shown not ahead of b by the margin at some look."""
        self._outcomes: Counter[tuple[tuple[str, int], ...]] = Counter()
        """Every game's ranks so far (as sorted items), counted: the pooled test's data."""
        self._strength: dict[str, float] = dict.fromkeys(self.entrants, 1.0)
        """The Bradley-Terry strengths of the tallies so far (`_fit`)."""

    def add_round(self, games: Iterable[Mapping[str, int]]) -> None:
        """Count one complete round (each game's ranks by bot, 1 = first), then look once."""
        for ranks in games:
            self.games += 1
            self._outcomes[tuple(sorted(ranks.items()))] += 1
            for a, b in combinations(ranks, 2):
                if ranks[a] < ranks[b]:
                    self._above[a, b] += 1
                elif ranks[b] < ranks[a]:
                    self._above[b, a] += 1
        self.rounds += 1
        for pair, above in self._above.items():
            below = self._above[pair[::-1]]
            if self._looked.get(pair) == above + below:
                continue
            self._looked[pair] = above + below
            if pair not in self.not_ahead and not_ahead(above, below, self._margin, self._alpha):
                self.not_ahead.add(pair)
        self._strength = self._fit()
        self.proven |= pooled_proofs(self.order(), self._strength, self._above, self._outcomes, self._alpha)

    def _fit(self) -> dict[str, float]:
        """Bradley-Terry strengths of the tallies (`_climb`), each bot also holding one virtual
        win and one virtual loss against a bot of strength 1 (so a bot that never lost still has
        a finite strength). Fitted after each round, always from strength 1, so the order is a
        function of the tallies alone: the same after a resume as after round-by-round looks."""
        wins = [[self._above[a, b] if a != b else 0 for b in self.entrants] for a in self.entrants]
        theta = _climb(wins, [0.0] * len(self.entrants))
        return {e: math.exp(t) for e, t in zip(self.entrants, theta, strict=True)}

    def order(self) -> list[str]:
        """Every entrant by Bradley-Terry strength, best first (by name on equal strength)."""
        return sorted(self.entrants, key=lambda e: (-self._strength[e], e))

    def above(self, a: str, b: str) -> int:
        """Games in which `a` finished above `b` so far."""
        return self._above[a, b]

    def equal(self, a: str, b: str) -> bool:
        """Whether `a` and `b` are proven equal within the margin."""
        return (a, b) in self.not_ahead and (b, a) in self.not_ahead

    def verdict(self, order: Sequence[str] | None, round_games: int, *, estimate: bool = True) -> Verdict:
        """The decision now: `order` the table to read the pairs from (best first; None: the
        rule's own, `order()`), `round_games` the games another round would add; `estimate`
        False leaves out the open pairs' estimates of games needed (a simulation needs none)."""
        order = self.order() if order is None else list(order)
        places = len(order) - 1 if self.rule.top is None else min(self.rule.top, len(order) - 1)
        pairs = tuple(self._check(upper, lower, estimate) for upper, lower in pairwise(order[: places + 1]))
        if all(p.decided for p in pairs):
            outcome = StopOutcome.SETTLED
        elif self.games + round_games > self.rule.max_games:
            outcome = StopOutcome.CAP_REACHED
        else:
            outcome = StopOutcome.PLAYING
        return Verdict(self.rounds, self.games, outcome, pairs, tuple(order))

    def _check(self, upper: str, lower: str, estimate: bool) -> PairCheck:
        above, below = self._above[upper, lower], self._above[lower, upper]
        settled, equal = (upper, lower) in self.proven, self.equal(upper, lower)
        needed = None
        if estimate and not (settled or equal) and self.games:
            needed = self._games_needed(above, below)
        return PairCheck(upper, lower, above, below, settled, equal, needed)

    def _games_needed(self, above: int, below: int) -> int | None:
        """More games, at the pair's rate of shared games so far, until the tally at its present
        share (pulled a game each way towards even) would decide it."""
        shared = above + below
        share = (above + 1) / (shared + 2)
        needed = comparisons_needed(share, self._alpha, float(self._margin))
        if needed is None or shared == 0:
            return None
        return max(1, math.ceil(max(0, needed - shared) * self.games / shared))
