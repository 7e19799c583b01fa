"""Simulated fields of bots of known strength, for the rank statistics tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from arena.ratings.played_games import PlayedGame
from arena.ratings.table import RatingRow, Standing, apply_game, arena_env, rating_table

PERFORMANCE_NOISE = 25 / 6
"""TrueSkill's beta: a game's performance is the skill plus noise of this spread."""


def simulated_games(skills: Mapping[str, float], seats: int, games: int, seed: int) -> list[PlayedGame]:
    """`games` games at random tables of `seats`: each bot performs its skill plus normal noise,
    finishes in order of performance, and scores 10 points per bot it finished above."""
    rng = random.Random(seed)
    bots = sorted(skills)
    out = []
    for _ in range(games):
        table = rng.sample(bots, seats)
        perf = [skills[b] + rng.gauss(0, PERFORMANCE_NOISE) for b in table]
        ranks = [1 + sum(p > q for p in perf) for q in perf]
        out.append(PlayedGame(tuple(table), tuple(10 * (seats - r) for r in ranks), tuple(ranks)))
    return out


def rated_table(games: Sequence[PlayedGame], bots: Sequence[str]) -> list[RatingRow]:
    """The arena's rating table of `bots` after `games`, rated in order."""
    env = arena_env()
    standings = {b: Standing(b, env.mu, env.sigma) for b in bots}
    for g in games:
        standings.update(
            apply_game(
                env,
                {b: standings[b] for b in g.bots},
                dict(zip(g.bots, g.points, strict=True)),
                dict(zip(g.bots, g.ranks, strict=True)),
            )
        )
    return rating_table(standings.values())
