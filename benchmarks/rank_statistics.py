"""What the rank statistics cost: rank intervals, the bootstrap and the crosstable, by table size.

Run:  .venv/bin/python benchmarks/rank_statistics.py [--bots 8,100,1000] [--games 100,500] [--resamples 100] [--seed 1]

Fields of bots with evenly spread skills play 4-seat games at random tables (each bot finishes in
the order of its skill plus TrueSkill's performance noise); the arena's own rating code rates
them. It prints, per field size, the seconds of `rank_intervals` with the draws such a table gets
(`rank_samples`: 1000, fewer past 200 bots; every rating table carries them; a second call on the
same table, by the same `RankStatistics`, is the remembered answer) against sorting the table once, and per
game count the seconds of `bootstrap_superiority` with `--resamples` resamples against the baseline
of rating the same games once (the store's own recomputation path, `apply_game`), its cost per
game rating (what `BOOTSTRAP_WORK_LIMIT` is set from), and the seconds of the crosstable.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable

from arena.ratings.head_to_head import crosstable
from arena.ratings.played_games import PlayedGame
from arena.ratings.rank_confidence import BOOTSTRAP_WORK_LIMIT, RankStatistics, bootstrap_superiority, rank_samples
from arena.ratings.table import Standing, apply_game, arena_env, rating_table

SEATS = 4
NOISE = 25 / 6


def simulated(bots: int, games: int, seed: int) -> list[PlayedGame]:
    """`games` 4-seat games of `bots` bots with skills 15..35."""
    rng = random.Random(seed)
    names = [f"bot{i:04d}" for i in range(bots)]
    skills = {b: 15 + 20 * i / max(1, bots - 1) for i, b in enumerate(names)}
    out = []
    for _ in range(games):
        table = rng.sample(names, SEATS)
        perf = [skills[b] + rng.gauss(0, NOISE) for b in table]
        ranks = tuple(1 + sum(p > q for p in perf) for q in perf)
        out.append(PlayedGame(tuple(table), tuple(10 * (SEATS - r) for r in ranks), ranks))
    return out


def table_order(games: list[PlayedGame], bots: int) -> list[str]:
    env = arena_env()
    standings = {f"bot{i:04d}": Standing(f"bot{i:04d}", env.mu, env.sigma) for i in range(bots)}
    for g in games:
        standings.update(
            apply_game(
                env,
                {b: standings[b] for b in g.bots},
                dict(zip(g.bots, g.points, strict=True)),
                dict(zip(g.bots, g.ranks, strict=True)),
            )
        )
    return [r.bot for r in rating_table(standings.values())]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="8,100,1000")
    parser.add_argument("--games", default="100,500")
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}; command: {' '.join(sys.argv)}")

    print("\nrank intervals (the joint draws a table of that size gets)")
    rng = random.Random(args.seed)
    for n in (int(x) for x in args.bots.split(",")):
        skills = [(rng.uniform(15, 35), rng.uniform(0.8, 3.0)) for _ in range(n)]
        samples = rank_samples(n)
        baseline = timed(lambda n=n, skills=skills: sorted(range(n), key=lambda i: skills[i][0] - 3 * skills[i][1]))
        reader = RankStatistics()
        first = timed(
            lambda skills=skills, samples=samples, reader=reader: reader.rank_intervals(skills, samples=samples)
        )
        again = timed(
            lambda skills=skills, samples=samples, reader=reader: reader.rank_intervals(skills, samples=samples)
        )
        print(
            f"  {n:5d} bots, {samples:4d} draws: {first:6.3f} s = {first / baseline:,.0f} × baseline "
            f"(sorting the table once, {baseline * 1e6:.0f} µs); remembered: {again * 1e6:.0f} µs"
        )

    bots = 8
    print(f"\nbootstrap ({args.resamples} resamples) and crosstable, {bots} bots at {SEATS}-seat tables")
    for games in (int(x) for x in args.games.split(",")):
        played = simulated(bots, games, args.seed)
        order = table_order(played, bots)
        baseline = timed(lambda played=played: table_order(played, bots))
        boot = timed(lambda played=played, order=order: bootstrap_superiority(played, order, resamples=args.resamples))
        per_rating = boot / (games * args.resamples)
        cross = timed(lambda played=played: crosstable(played))
        print(
            f"  {games:6d} games: baseline (rating them once, as the store does) {baseline * 1e3:.0f} ms; "
            f"bootstrap {boot:.2f} s = {boot / baseline:.0f} × baseline, {per_rating * 1e6:.0f} µs per game rating "
            f"(the limit of {BOOTSTRAP_WORK_LIMIT:,} ratings: {BOOTSTRAP_WORK_LIMIT * per_rating:.1f} s); "
            f"crosstable {cross * 1e3:.1f} ms"
        )


if __name__ == "__main__":
    main()
