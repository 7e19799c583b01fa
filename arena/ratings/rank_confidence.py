"""How sure each rank of a rating table is. Pure: numbers in, numbers out, no storage.

Three figures, all about *skill* (the bot's true strength), not about one game's performance:

* `superiority`: the probability that one bot is stronger than another, from their TrueSkill
  posteriors: Phi((mu_a - mu_b) / sqrt(sigma_a² + sigma_b²)). TrueSkill's performance noise beta is
  left out on purpose: with it the figure would be the chance of the first bot beating the second
  in one game, which stays below Phi(Δmu / (beta·√2)) however many games are played, and so never
  says a rank is settled. The posteriors are treated as independent, as TrueSkill keeps them.
  It is a description, not a stop rule: on two *equal* bots it too passes 0.95 sooner or later
  (their means drift apart by chance while their sigmas shrink), so stopping a tournament once it
  does would stop on a coin flip. `arena.tournaments.stop_rule` holds its error however often it
  is read.
* `rank_intervals`: the ranks a bot holds in the central 95% of `RANK_SAMPLES` joint draws of
  every bot's skill from its posterior (ranked by the drawn skill, best first); a table of more
  than `RANK_DRAWS // RANK_SAMPLES` bots gets fewer draws (`rank_samples`, never under
  `MIN_RANK_SAMPLES`), so a large ladder's table stays well under a second. The draws come from a
  fixed seed, so one table always gets the same intervals.
* `bootstrap_superiority`: the same question answered from the games instead of the posteriors:
  resample the games actually played (with replacement, kept in the order they were rated),
  recompute every rating with the arena's own code (`arena.ratings.table.rate_skills`), and count how
  often the upper bot of each adjacent pair comes out with the higher mu. It does not trust TrueSkill's
  sigma, so where the two disagree the posterior is over- or under-confident. It costs one rating
  per game per resample, so it is computed only on demand, with at most `MAX_RESAMPLES`
  resamples and `BOOTSTRAP_WORK_LIMIT` game ratings a call.

`with_confidence` and `with_bootstrap` put the figures on the rows of a table
(`arena.ratings.table.RatingRow`), computed over the whole table before any page of it is cut.
A reader that serves tables again and again holds a `RankStatistics`, which remembers the figures
of its last tables; the module's functions compute afresh.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace

from arena.ratings.played_games import PlayedGame
from arena.ratings.table import RatingRow, arena_env, rate_skills
from arena.ratings.trueskill_ffa import FreeForAll
from sdk.memo import memoised

__all__ = [
    "BOOTSTRAP_SEED",
    "BOOTSTRAP_WORK_LIMIT",
    "INTERVAL_LEVEL",
    "MAX_RESAMPLES",
    "MIN_RANK_SAMPLES",
    "RANK_DRAWS",
    "RANK_SAMPLES",
    "RANK_SEED",
    "RankStatistics",
    "bootstrap_superiority",
    "max_resamples",
    "rank_intervals",
    "rank_samples",
    "superiority",
    "with_bootstrap",
    "with_confidence",
]

RANK_SAMPLES = 1000
"""Joint skill draws behind each rank interval: the 2.5% and 97.5% points of 1000 draws move by
about one draw's worth when the seed changes, which for a rank is nothing."""
RANK_DRAWS = 200_000
MIN_RANK_SAMPLES = 200
"""Skills drawn per table at most (samples × bots), and the fewest samples a large table gets:
the 2.5% point of 200 draws is their 5th lowest, still a fair estimate of a rank's edge."""
RANK_SEED = 16
BOOTSTRAP_SEED = 16
"""Fixed seeds: the same table (and games) always shows the same figures."""
INTERVAL_LEVEL = 0.95
MAX_RESAMPLES = 1000
BOOTSTRAP_WORK_LIMIT = 50_000
"""Game ratings one bootstrap may compute: 3 to 8 s of one core on the 2-core machine of
docs/benchmarks.md (benchmarks/rank_statistics.py)."""
INTERVAL_TABLES = 32
BOOTSTRAP_TABLES = 8
"""Tables (with their games, for the bootstrap) whose figures a `RankStatistics` remembers."""

_SQRT2 = math.sqrt(2)


def superiority(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """P(skill a > skill b) for independent normal skills N(mu, sigma²); 0.5 when both are equal."""
    spread = math.hypot(sigma_a, sigma_b)
    if spread == 0:
        return 0.5 if mu_a == mu_b else float(mu_a > mu_b)
    return 0.5 * math.erfc(-(mu_a - mu_b) / (spread * _SQRT2))


def rank_intervals(
    skills: Sequence[tuple[float, float]],
    *,
    samples: int = RANK_SAMPLES,
    seed: int = RANK_SEED,
    level: float = INTERVAL_LEVEL,
) -> list[tuple[int, int]]:
    """For each (mu, sigma), the lowest and highest rank (1 best) it holds in the central `level`
    share of `samples` joint draws of all skills. Same skills and seed, same intervals."""
    return RankStatistics().rank_intervals(skills, samples=samples, seed=seed, level=level)


def _rank_intervals(
    skills: tuple[tuple[float, float], ...], samples: int, seed: int, level: float
) -> tuple[tuple[int, int], ...]:
    n = len(skills)
    rng = random.Random(seed)
    gauss = rng.gauss
    held: list[list[int]] = [[0] * samples for _ in range(n)]
    positions = range(n)
    for s in range(samples):
        drawn = [gauss(mu, sigma) for mu, sigma in skills]
        for rank, i in enumerate(sorted(positions, key=drawn.__getitem__, reverse=True), 1):
            held[i][s] = rank
    tail = (1 - level) / 2
    low_at = min(samples - 1, math.floor(tail * samples))
    high_at = max(0, math.ceil((1 - tail) * samples) - 1)
    out = []
    for ranks in held:
        ranks.sort()
        out.append((ranks[low_at], ranks[high_at]))
    return tuple(out)


def rank_samples(bots: int) -> int:
    """The joint draws a table of `bots` bots gets: RANK_SAMPLES, fewer for a large table."""
    return max(MIN_RANK_SAMPLES, min(RANK_SAMPLES, RANK_DRAWS // max(1, bots)))


def with_confidence(rows: Sequence[RatingRow]) -> list[RatingRow]:
    """The rows of a whole table (in its order) with each row's rank interval and the posterior
    probability that the row above is stronger (None on the first row)."""
    return RankStatistics().with_confidence(rows)


def max_resamples(games: int) -> int:
    """The most resamples one bootstrap of `games` games may take: each rates every game once, and
    a call rates at most `BOOTSTRAP_WORK_LIMIT` games (0 when even one resample is more)."""
    return min(MAX_RESAMPLES, BOOTSTRAP_WORK_LIMIT // max(1, games))


def bootstrap_superiority(
    games: Sequence[PlayedGame], order: Sequence[str], *, resamples: int, seed: int = BOOTSTRAP_SEED
) -> list[float]:
    """For each adjacent pair of `order` (upper bot first), the share of `resamples` resamples of
    `games` in which the upper bot's recomputed mu is higher (equal counts half).

    Every bot starts from the arena's prior; a resample applies each game as often as it was
    drawn, in the games' own order, so the recomputation is the arena's rating of those games.
    """
    return RankStatistics().bootstrap_superiority(games, order, resamples=resamples, seed=seed)


def _bootstrap(games: tuple[PlayedGame, ...], order: tuple[str, ...], resamples: int, seed: int) -> tuple[float, ...]:
    env = arena_env()
    rules = FreeForAll.of(env)
    index = {bot: i for i, bot in enumerate(dict.fromkeys(order + tuple(b for g in games for b in g.bots)))}
    seated = [(tuple(index[b] for b in g.bots), g.ranks) for g in games]
    upper = [index[b] for b in order]
    rng = random.Random(seed)
    held = [0.0] * max(0, len(order) - 1)
    for _ in range(resamples):
        drawn = [0] * len(games)
        for i in rng.choices(range(len(games)), k=len(games)):
            drawn[i] += 1
        skills = [(env.mu, env.sigma)] * len(index)
        for (seats, ranks), times in zip(seated, drawn, strict=True):
            for _ in range(times):
                rated = rate_skills(rules, [skills[i] for i in seats], ranks, seats)
                for i, skill in zip(seats, rated, strict=True):
                    skills[i] = skill
        for j in range(len(held)):
            a, b = skills[upper[j]][0], skills[upper[j + 1]][0]
            held[j] += 1.0 if a > b else 0.5 if a == b else 0.0
    return tuple(h / resamples for h in held)


def with_bootstrap(
    rows: Sequence[RatingRow], games: Sequence[PlayedGame], *, resamples: int, seed: int = BOOTSTRAP_SEED
) -> list[RatingRow]:
    """The rows of a whole table with each row's bootstrap share (None on the first row)."""
    return RankStatistics().with_bootstrap(rows, games, resamples=resamples, seed=seed)


class RankStatistics:
    """The figures above for one reader of rating tables (a servicer, a local client), remembered
    for its last tables: a table is read page after page, and again while no game changes it, and
    its figures take up to seconds to draw. Same arguments as the functions of the same names."""

    def __init__(self) -> None:
        self._intervals = memoised(_rank_intervals, size=INTERVAL_TABLES)
        self._bootstrap = memoised(_bootstrap, size=BOOTSTRAP_TABLES)

    def rank_intervals(
        self,
        skills: Sequence[tuple[float, float]],
        *,
        samples: int = RANK_SAMPLES,
        seed: int = RANK_SEED,
        level: float = INTERVAL_LEVEL,
    ) -> list[tuple[int, int]]:
        if samples < 1 or not 0 < level < 1:
            raise ValueError("rank intervals need at least one sample and a level between 0 and 1")
        return list(self._intervals(tuple(skills), samples, seed, level))

    def with_confidence(self, rows: Sequence[RatingRow]) -> list[RatingRow]:
        intervals = self.rank_intervals([(r.mu, r.sigma) for r in rows], samples=rank_samples(len(rows)))
        return [
            replace(
                row,
                rank_low=low,
                rank_high=high,
                confidence=None if i == 0 else superiority(rows[i - 1].mu, rows[i - 1].sigma, row.mu, row.sigma),
            )
            for i, (row, (low, high)) in enumerate(zip(rows, intervals, strict=True))
        ]

    def bootstrap_superiority(
        self, games: Sequence[PlayedGame], order: Sequence[str], *, resamples: int, seed: int = BOOTSTRAP_SEED
    ) -> list[float]:
        if not 1 <= resamples <= MAX_RESAMPLES:
            raise ValueError(f"a bootstrap takes 1 to {MAX_RESAMPLES} resamples, not {resamples}")
        return list(self._bootstrap(tuple(games), tuple(order), resamples, seed))

    def with_bootstrap(
        self, rows: Sequence[RatingRow], games: Sequence[PlayedGame], *, resamples: int, seed: int = BOOTSTRAP_SEED
    ) -> list[RatingRow]:
        shares = self.bootstrap_superiority(games, [r.bot for r in rows], resamples=resamples, seed=seed)
        return [replace(row, bootstrap_confidence=None if i == 0 else shares[i - 1]) for i, row in enumerate(rows)]
