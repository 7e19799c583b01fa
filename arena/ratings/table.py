"""TrueSkill ratings for free-for-all games, and the rating table built from them. Pure: no storage.

Settings (`arena_env`): TrueSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300) with
draw_probability 0.01. Draws happen (equal final points share a rank): with random bots, 3-10% of
neighbouring places are ties (measured over 1,200 engine games, 2-5 players). A simulated SCOUT
ladder with 0.01 reached the true order of its strength classes in 12-16 games, and a public bot
ladder keeps it small for games with rare draws (docs/benchmarks.md, "Figures measured before this
project"); the measured tie rate, not this constant, is what a draw costs or earns.

Ratings are computed by `trueskill_ffa.rate_free_for_all`, the library's algorithm specialised to
free-for-all games of one-player teams: about ten times faster and bit-identical to
`TrueSkill.rate`, which the tests keep as the oracle.

At extreme ratings TrueSkill's default backend can raise FloatingPointError (mpmath would avoid it
but is not a dependency), or fail in plain arithmetic (a negative precision makes `math.sqrt`
raise ValueError; division by zero, overflow). `rate_game` then leaves the ratings of that game
unchanged and logs a warning: a game must never fail to commit for numeric reasons, and recomputation from the records
takes the same path, so stored and recomputed ratings still agree.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from trueskill import Rating, TrueSkill

from arena.ratings.trueskill_ffa import FreeForAll, rate_free_for_all

__all__ = [
    "DRAW_PROBABILITY",
    "Rating",
    "RatingRow",
    "Standing",
    "apply_game",
    "arena_env",
    "rate_game",
    "rate_skills",
    "rating_table",
    "win_shares",
]

log = logging.getLogger(__name__)

DRAW_PROBABILITY = 0.01

Bot = TypeVar("Bot", bound=Hashable)


def arena_env() -> TrueSkill:
    """The TrueSkill environment every arena rating uses."""
    return TrueSkill(draw_probability=DRAW_PROBABILITY)


def rate_game(env: TrueSkill, current: Mapping[Bot, Rating], ranks: Mapping[Bot, int]) -> dict[Bot, Rating]:
    """The ratings after one free-for-all game; lower rank is better, equal ranks are draws.

    `current` and `ranks` have the same keys (the game's bots). When the arithmetic fails the
    ratings are returned unchanged (see the module docstring).
    """
    bots = list(current)
    if set(bots) != set(ranks):
        raise ValueError("ratings and ranks must name the same bots")
    rated = rate_skills(env, [(current[b].mu, current[b].sigma) for b in bots], [ranks[b] for b in bots], bots)
    return {b: Rating(mu, sigma) for b, (mu, sigma) in zip(bots, rated, strict=True)}


def rate_skills(
    env: TrueSkill | FreeForAll, skills: Sequence[tuple[float, float]], ranks: Sequence[int], who: object = None
) -> list[tuple[float, float]]:
    """`rate_game` on (mu, sigma) pairs in seat order, for callers that rate many games and need
    no `Rating` objects (a bootstrap: it passes the environment's `FreeForAll`, worked out once);
    `who` names the game's bots in the warning."""
    try:
        return rate_free_for_all(env, skills, ranks)
    except (ArithmeticError, ValueError) as exc:  # the game's shape is checked: this is numeric
        log.warning("TrueSkill could not rate a game (%s); ratings of %s left unchanged", exc, who)
        return list(skills)


def win_shares(ranks: Mapping[Bot, int]) -> dict[Bot, float]:
    """Each bot's share of the win: 1/k for each of the k bots ranked first, 0 for the rest."""
    winners = sum(1 for r in ranks.values() if r == 1)
    return {b: (1 / winners if r == 1 else 0.0) for b, r in ranks.items()}


@dataclass(frozen=True, slots=True)
class Standing:
    """A bot's rating and tallies in one scope (a tournament, or the global ladder)."""

    bot: str
    mu: float
    sigma: float
    games: int = 0
    wins: float = 0.0
    points: int = 0
    placings: int = 0
    """The sum of the bot's ranks over its games."""

    def after_game(self, mu: float, sigma: float, points: int, rank: int, win_share: float) -> Standing:
        """This standing with one more game counted."""
        return Standing(
            self.bot,
            mu,
            sigma,
            self.games + 1,
            self.wins + win_share,
            self.points + points,
            self.placings + rank,
        )


def apply_game(
    env: TrueSkill,
    standings: Mapping[str, Standing],
    points: Mapping[str, int],
    ranks: Mapping[str, int],
) -> dict[str, Standing]:
    """The standings of one game's bots after it: new ratings and tallies.

    Both committing a game and recomputing from records go through here, in seat order, so they
    agree to the last bit. It rates as `rate_game` does, on floats (`_as_rating`): a commit rates
    twice, and the library's objects cost as much as the rating itself.
    """
    bots = list(standings)
    if set(bots) != set(ranks):
        raise ValueError("ratings and ranks must name the same bots")
    skills = [_as_rating(s.mu, s.sigma) for s in standings.values()]
    rated = rate_skills(env, skills, [ranks[b] for b in bots], bots)
    shares = win_shares(ranks)
    return {
        b: s.after_game(*_as_rating(mu, sigma), points[b], ranks[b], shares[b])
        for (b, s), (mu, sigma) in zip(standings.items(), rated, strict=True)
    }


def _as_rating(mu: float, sigma: float) -> tuple[float, float]:
    """(mu, sigma) as `Rating(mu, sigma)` gives them back. The library keeps precision and
    precision-adjusted mean and recomputes both from them, which can move the last bit; every
    stored rating went through that round trip, so this does the same arithmetic, and fails where
    `Rating` does."""
    if sigma == 0:
        raise ValueError("sigma**2 should be greater than 0")
    pi = sigma**-2
    tau = pi * mu
    return (pi and tau / pi), (math.sqrt(1 / pi) if pi else math.inf)


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One line of a rating table."""

    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    """mu - 3 sigma: the rating the bot has with high confidence; tables are sorted by it."""
    games: int
    wins: float
    """Shared wins count as fractions: a win shared by k bots is 1/k for each."""
    average_points: float | None
    average_placing: float | None
    """None until the bot has played."""
    rank_low: int | None = None
    rank_high: int | None = None
    """The ranks the bot holds at 95% (`arena.ratings.rank_confidence`); None until the table has them."""
    confidence: float | None = None
    """The probability, from both posteriors, that the bot of the row above is stronger than this
    one; None on the first row and until the table has it."""
    bootstrap_confidence: float | None = None
    """The same, as the share of bootstrap resamples of the games in which the row above comes out
    ahead; None unless a bootstrap was asked for."""


def rating_table(standings: Iterable[Standing]) -> list[RatingRow]:
    """Rows sorted by mu - 3 sigma (best first, then by name); equal values share a rank."""
    ordered = sorted(standings, key=lambda s: (-(s.mu - 3 * s.sigma), s.bot))
    values = [s.mu - 3 * s.sigma for s in ordered]
    ranks = [1 + values.index(v) for v in values]
    return [
        RatingRow(
            rank=rank,
            bot=s.bot,
            mu=s.mu,
            sigma=s.sigma,
            conservative=s.mu - 3 * s.sigma,
            games=s.games,
            wins=s.wins,
            average_points=s.points / s.games if s.games else None,
            average_placing=s.placings / s.games if s.games else None,
        )
        for rank, s in zip(ranks, ordered, strict=True)
    ]
