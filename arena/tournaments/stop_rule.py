"""The stop rule: play balanced rounds until the top of the rating table is settled, or a game cap.

A stop-rule tournament plays its schedule one round at a time (a round is the schedule the
tournament would play without the rule: a full round robin, or its N bounded rounds; round r's
tables are drawn from `arena.tournaments.schedule.round_seed`). After each complete round it looks at the
rating table and asks, for each adjacent pair of the top places (rank i above rank i+1, i = 1..K,
K the organiser's `top`, default every pair), whether the upper bot is *proven* stronger than the
lower one. If every such pair is, the tournament is **settled** and stops; if another round would
go over `max_games`, it stops with the **cap reached** and names the pairs still open.

**The test, and why.** Strength here is what the table claims: bot a is stronger than bot b if a
finishes above b in more than half of the games they share (ties, equal ranks, are left out).
Each shared game is one Bernoulli outcome X (1: a above b). For every q in (1/2, 1] the
likelihood ratio prod (2q)^X (2(1-q))^(1-X) is a non-negative supermartingale whenever a's chance
of finishing above b is at most 1/2 in every game, whatever the table, seats and earlier games
were; so is their mixture with a uniform weight over q, which has the closed form

    M(S, F) = sum_{j <= S} C(N+1, j) / ((N+1) C(N, S)),   N = S + F,

S and F the games a finished above and below b. Ville's inequality bounds the chance that such a
test martingale *ever* reaches 1/alpha by alpha, so it may be looked at after every round, for as
long as the tournament runs, and a pair that reached it once stays proven. Which pairs are
adjacent depends on the data, so the bound is split (Bonferroni) over all n(n-1) ordered pairs of
the n entrants: alpha = (1 - confidence) / (n(n-1)) each. A fixed-sample test repeated after
every round would not hold its level (the repeated looks inflate it); an SPRT needs an effect size
chosen in advance, which an organiser cannot know, and is only optimal near it; a mixture needs
none and loses only a log factor. The tallies are exact integers (`proven`), so a decision never
depends on floating point and resume repeats it bit for bit.

**The promise.** Call a reported pair wrong if, in every game the two share, the lower bot's
chance of finishing above the upper one is at least 1/2. The chance that a tournament ever
reports a wrong pair as settled, and so that it stops settled on a wrong order, is at most
1 - confidence. Where that chance varies from game to game (seats, the other players) and is at
least 1/2 only on average, the bound holds only as far as the seat-balanced rounds even it out;
tests/tournaments/test_stop_rule.py measures the rate on simulated equal bots and
benchmarks/rating_quality.py on real games. What it does not promise: bots below place K+1 are
not compared with the top.

**Determinism.** `Evidence` is fed complete rounds only and `Evidence.verdict` takes the rating
order after them, so the decision after each round is a pure function of the committed results
of complete rounds: a resumed tournament decides the same as one that never stopped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import combinations, pairwise
from typing import Any

from arena.errors import InvalidSetting
from arena.tournaments.entries import MAX_GAMES

DEFAULT_CONFIDENCE = 0.95
MIN_CONFIDENCE = 0.5
MAX_CONFIDENCE = 0.9999
DEFAULT_MAX_GAMES = 2000
"""Enough for a field of 5-8 bots whose neighbours finish above each other 70% of the time to
settle at 95% (docs/benchmarks.md, "Rating quality"); a field of equal bots stops here."""


@dataclass(frozen=True, slots=True)
class StopRule:
    """A stop-rule tournament's settings: the confidence, how many top places must be settled
    (None: all) and the most games it may play."""

    confidence: float = DEFAULT_CONFIDENCE
    top: int | None = None
    max_games: int = DEFAULT_MAX_GAMES

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

    def pair_error(self, entrants: int) -> Fraction:
        """The error allowed to one ordered pair of a field of `entrants` (exact)."""
        return (1 - Fraction(self.confidence)) / max(1, entrants * (entrants - 1))

    def to_json(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "top": self.top, "max_games": self.max_games}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StopRule:
        unknown = set(data) - {"confidence", "top", "max_games"}
        if unknown:
            raise InvalidSetting(f"unknown stop rule settings: {', '.join(sorted(unknown))}")
        return cls(**data)


class Outcome(StrEnum):
    """Where a stop-rule tournament stands after its last complete round."""

    PLAYING = "playing"
    """Not settled and another round fits under the cap: it plays on."""
    SETTLED = "settled"
    """Every adjacent pair of the top places is proven in the table's order."""
    CAP_REACHED = "cap-reached"
    """Not settled, and another round would go over `max_games`."""


@dataclass(frozen=True, slots=True)
class PairCheck:
    """One adjacent pair of the table: how often each finished above the other (ties left out)
    and whether the upper one is proven stronger."""

    upper: str
    lower: str
    above: int
    below: int
    settled: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    """The stop rule's decision after `rounds` complete rounds (`games` games)."""

    rounds: int
    games: int
    outcome: Outcome
    pairs: tuple[PairCheck, ...]
    """The adjacent pairs of the top places, best first."""

    @property
    def unsettled(self) -> tuple[PairCheck, ...]:
        return tuple(p for p in self.pairs if not p.settled)


def proven(above: int, below: int, alpha: Fraction) -> bool:
    """Whether the uniform mixture martingale M(above, below) (module docstring) reached 1/alpha.

    Exact: M * alpha >= 1 is compared as integers. M < 1 when above <= below, so that is never
    proof; otherwise the sum is 2^(N+1) minus its short upper tail, and 2^(N+1) alone (an upper
    bound) settles most calls.
    """
    if above <= below:
        return False
    n = above + below
    needed = (n + 1) * math.comb(n, above) * alpha.denominator
    if (1 << (n + 1)) * alpha.numerator < needed:
        return False
    tail = sum(math.comb(n + 1, j) for j in range(above + 1, n + 2))
    return ((1 << (n + 1)) - tail) * alpha.numerator >= needed


class Evidence:
    """The head-to-head tallies of a stop-rule tournament and the ordered pairs proven so far,
    fed one complete round at a time."""

    def __init__(self, rule: StopRule, entrants: Sequence[str]) -> None:
        self.rule = rule
        self.entrants = tuple(sorted(entrants))
        self.rounds = 0
        self.games = 0
        self._alpha = rule.pair_error(len(self.entrants))
        self._above: dict[tuple[str, str], int] = {(a, b): 0 for a in self.entrants for b in self.entrants if a != b}
        self.proven: set[tuple[str, str]] = set()
        """Ordered pairs (a, b) with a proven stronger than b at some look."""

    def add_round(self, games: Iterable[Mapping[str, int]]) -> None:
        """Count one complete round (each game's ranks by bot, 1 = first), then look once."""
        for ranks in games:
            self.games += 1
            for a, b in combinations(ranks, 2):
                if ranks[a] < ranks[b]:
                    self._above[a, b] += 1
                elif ranks[b] < ranks[a]:
                    self._above[b, a] += 1
        self.rounds += 1
        for pair in self._above:
            if pair not in self.proven and proven(self._above[pair], self._above[pair[::-1]], self._alpha):
                self.proven.add(pair)

    def above(self, a: str, b: str) -> int:
        """Games in which `a` finished above `b` so far."""
        return self._above[a, b]

    def verdict(self, order: Sequence[str], round_games: int) -> Verdict:
        """The decision now: `order` is the rating table after the rounds counted (best first),
        `round_games` the games another round would add."""
        places = len(order) - 1 if self.rule.top is None else min(self.rule.top, len(order) - 1)
        pairs = tuple(
            PairCheck(upper, lower, self._above[upper, lower], self._above[lower, upper], (upper, lower) in self.proven)
            for upper, lower in pairwise(order[: places + 1])
        )
        if all(p.settled for p in pairs):
            outcome = Outcome.SETTLED
        elif self.games + round_games > self.rule.max_games:
            outcome = Outcome.CAP_REACHED
        else:
            outcome = Outcome.PLAYING
        return Verdict(self.rounds, self.games, outcome, pairs)
