"""Head-to-head records: for each pair of bots, how their shared games went. Pure: no storage.

Two bots "share" a game when both sat at its table, whoever else sat there. Per pair: games
shared, how often each finished above the other (a lower final rank), how often they tied (equal
ranks: equal points, or both forfeited), the mean point difference in those games, and a
two-sided sign test on the above/below counts with ties left out: the probability, were the two
equally strong, of a split at least this lopsided. The sign test fits because each shared game
gives one paired comparison whatever the table size, and it assumes nothing about point scales;
it treats the games as independent, which a schedule of fresh deals and seatings makes them.
It is a figure per pair: read across many pairs, some small p-values come by chance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from arena.ratings.played_games import PlayedGame

__all__ = ["Crosstable", "PairRecord", "crosstable", "sign_test"]


@dataclass(frozen=True, slots=True)
class PairRecord:
    """How `bot` did against `other` in the games they shared, from `bot`'s side."""

    bot: str
    other: str
    games: int
    above: int
    """Games in which `bot` finished above `other`."""
    below: int
    ties: int
    point_difference: float
    """Mean of `bot`'s points minus `other`'s over the shared games."""
    p_value: float
    """Two-sided sign test on `above` against `below` (`sign_test`)."""

    def flipped(self) -> PairRecord:
        """The same record from `other`'s side."""
        return PairRecord(
            self.other,
            self.bot,
            self.games,
            self.below,
            self.above,
            self.ties,
            -self.point_difference,
            self.p_value,
        )


@dataclass(frozen=True, slots=True)
class Crosstable:
    """Every pair of bots that shared a game, once each (`bot` before `other` by name)."""

    pairs: tuple[PairRecord, ...]

    @property
    def bots(self) -> tuple[str, ...]:
        """Every bot that shares a game with another, by name."""
        return tuple(sorted({b for p in self.pairs for b in (p.bot, p.other)}))

    def between(self, bot: str, other: str) -> PairRecord | None:
        """`bot`'s record against `other`; None if they never shared a game."""
        for p in self.pairs:
            if (p.bot, p.other) == (bot, other):
                return p
            if (p.bot, p.other) == (other, bot):
                return p.flipped()
        return None

    def grid(self) -> dict[tuple[str, str], PairRecord]:
        """Every record from both sides, by (bot, other): what a crosstable's cells show."""
        out = {(p.bot, p.other): p for p in self.pairs}
        out.update({(p.other, p.bot): p.flipped() for p in self.pairs})
        return out


def sign_test(above: int, below: int) -> float:
    """Two-sided exact sign test: P(a split at least as uneven as above:below | p = 1/2), at most 1."""
    if above < 0 or below < 0:
        raise ValueError("counts cannot be negative")
    n, k = above + below, min(above, below)
    if n == 0 or 2 * k == n:
        return 1.0
    # Sum the binomial tail P(X <= k) from its largest term down; each is the last times j/(n-j+1).
    log_term = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    term = math.exp(log_term)
    tail = 0.0
    for j in range(k, -1, -1):
        tail += term
        if term < tail * 1e-17:
            break
        term *= j / (n - j + 1)
    return min(1.0, 2 * tail)


def crosstable(games: Iterable[PlayedGame]) -> Crosstable:
    """The head-to-head record of every pair that shared one of `games`."""
    tally: dict[tuple[str, str], list[int]] = {}  # above, below, ties, point difference
    for game in games:
        seats = sorted(range(len(game.bots)), key=game.bots.__getitem__)
        for i, j in combinations(seats, 2):
            t = tally.setdefault((game.bots[i], game.bots[j]), [0, 0, 0, 0])
            t[0 if game.ranks[i] < game.ranks[j] else 1 if game.ranks[i] > game.ranks[j] else 2] += 1
            t[3] += game.points[i] - game.points[j]
    return Crosstable(
        tuple(
            PairRecord(
                a, b, above + below + ties, above, below, ties, diff / (above + below + ties), sign_test(above, below)
            )
            for (a, b), (above, below, ties, diff) in sorted(tally.items())
        )
    )
