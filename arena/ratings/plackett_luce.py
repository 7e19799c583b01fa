"""Tournaments simulated from known skills, through the arena's own scheduling, rating and stop rule.

Pure and fast (no games, no database, no processes), so the stop rule's promise can be measured on
thousands of tournaments (`benchmarks/rating_quality.py --simulate`, tests/ratings/test_plackett_luce.py).
A game's finishing order is drawn from the Plackett-Luce model: first place goes to a seated bot
with probability proportional to its weight, second to one of the rest likewise, and so on, so two
bots finish in a given order with the Bradley-Terry chance w_a / (w_a + w_b) whoever else is at the
table. A field's weights are a geometric ladder, so every pair of neighbours has one share:

* `clear`: neighbours finish above each other 70% of the time;
* `close`: 60%;
* `tied`: the clear ladder with its two middle bots of one weight (the pair is exactly 50/50).

`stop_rule_run` plays a stop-rule tournament as the store does: rounds from
`arena.tournaments.schedule.stop_round` (seeded by `round_seed`), results fed to
`arena.tournaments.stop_rule.Evidence` a complete round at a time, its verdict read after each.
`fixed_run` plays the fixed format instead (the format's round played again and again, as
`--games-per-table` does) and rates it with the arena's TrueSkill (`rate_skills`), recording after
each pass whether the table's order (by mu - 3 sigma) is right.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, pairwise, permutations

from arena.ratings.table import arena_env, rate_skills
from arena.tournaments.schedule import (
    MIXED_EVERY,
    Schedule,
    round_robin,
    round_seed,
    schedule_seed,
    stop_round,
    table_count,
)
from arena.tournaments.stop_rule import Evidence, PairCheck, StopOutcome, StopRule, open_pairs

__all__ = [
    "SCENARIOS",
    "FixedRun",
    "StopRun",
    "field",
    "finishing_ranks",
    "fixed_run",
    "least_mean_games",
    "stop_rule_run",
]

SCENARIOS = {"clear": 0.7, "close": 0.6, "tied": 0.7}
"""Each scenario's share: how often a bot finishes above the next one down."""
SCHEDULE_VARIANTS = 16
BALANCED_ROUNDS = 8
"""Balanced rounds are drawn from this many schedule seeds, and this many rounds of each, and
remembered (drawing one costs far more than playing it here); a run's own seed still draws its
rounds of open pairs and its games."""


def field(scenario: str, entrants: int) -> dict[str, float]:
    """The weights of a field, strongest first (names b00, b01, ...)."""
    share = SCENARIOS[scenario]
    ratio = share / (1 - share)
    weights = [ratio ** (entrants - 1 - i) for i in range(entrants)]
    if scenario == "tied":
        middle = entrants // 2
        weights[middle] = weights[middle - 1]
    return {f"b{i:02d}": w for i, w in enumerate(weights)}


def tied_pairs(weights: Mapping[str, float]) -> set[frozenset[str]]:
    """The pairs of bots of equal weight."""
    names = sorted(weights)
    return {frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1 :] if weights[a] == weights[b]}


def finishing_ranks(seats: Sequence[str], weights: Mapping[str, float], rng: random.Random) -> dict[str, int]:
    """One Plackett-Luce finishing order of the seated bots, as ranks (1 = first)."""
    left = list(seats)
    ranks = {}
    for rank in range(1, len(seats) + 1):
        pick = rng.random() * sum(weights[b] for b in left)
        for b in left:
            pick -= weights[b]
            if pick < 0:
                break
        ranks[b] = rank
        left.remove(b)
    return ranks


@cache
def _balanced(entrants: tuple[str, ...], table_size: int, seed: int, rounds: int | None) -> Schedule:
    return round_robin(entrants, table_size, seed, rounds)


@dataclass(frozen=True, slots=True)
class StopRun:
    """How a simulated stop-rule tournament ended."""

    games: int
    outcome: StopOutcome
    pairs: tuple[PairCheck, ...]
    wrong: bool
    """Some pair was reported wrongly: proven in the order the weights contradict, or equal
    though one finishes above the other at least 1/2 + margin of the time."""


def reported_wrongly(pair: PairCheck, weights: Mapping[str, float], margin: float) -> bool:
    share = weights[pair.upper] / (weights[pair.upper] + weights[pair.lower])
    if pair.settled and share <= 0.5:
        return True
    return pair.equal and not pair.settled and abs(share - 0.5) >= margin


def stop_rule_run(weights: Mapping[str, float], rule: StopRule, table_size: int, seed: int) -> StopRun:
    """A stop-rule tournament of one game a table, as the store plays it (module docstring)."""
    rng = random.Random(seed)
    entrants = tuple(sorted(weights))
    variant = schedule_seed(seed % SCHEDULE_VARIANTS)
    own = schedule_seed(seed)
    round_games = table_count(len(entrants), table_size)
    evidence = Evidence(rule, entrants)
    seats: dict[str, list[int]] = {e: [0] * table_size for e in entrants}
    verdict = evidence.verdict(None, round_games, estimate=False)
    for r in range(rule.max_games // round_games + 1):
        if r % MIXED_EVERY == 0:
            schedule = _balanced(entrants, table_size, round_seed(variant, r // MIXED_EVERY % BALANCED_ROUNDS), None)
        else:
            schedule = stop_round(
                entrants,
                table_size,
                round_seed(own, r),
                r,
                None,
                verdict.order,
                open_pairs(verdict, rule),
                seats,
            )
        games = []
        for table in schedule.tables:
            for s, bot in enumerate(table.seats):
                seats[bot][s] += 1
            games.append(finishing_ranks(table.seats, weights, rng))
        evidence.add_round(games)
        verdict = evidence.verdict(None, round_games, estimate=False)
        if verdict.outcome is not StopOutcome.PLAYING:
            break
    wrong = any(reported_wrongly(p, weights, rule.margin) for p in verdict.pairs)
    return StopRun(verdict.games, verdict.outcome, verdict.pairs, wrong)


@dataclass(frozen=True, slots=True)
class FixedRun:
    """A fixed-format tournament played pass after pass: after each pass (every table of the
    round once more), whether the table's order was right."""

    round_games: int
    right: tuple[bool, ...]


def fixed_run(weights: Mapping[str, float], table_size: int, seed: int, games: int) -> FixedRun:
    """The format's round robin, its tables played again and again, rated by the arena's TrueSkill
    (tau included, as every tournament's table is), for at most `games` games. The order is right
    when it is the weights' order (either way round for bots of equal weight)."""
    rng = random.Random(seed)
    entrants = tuple(sorted(weights))
    schedule = _balanced(entrants, table_size, schedule_seed(seed % SCHEDULE_VARIANTS), None)
    env = arena_env()
    skills = {e: (env.mu, env.sigma) for e in entrants}
    right = []
    for _ in range(games // len(schedule.tables)):
        for table in schedule.tables:
            ranks = finishing_ranks(table.seats, weights, rng)
            rated = rate_skills(env, [skills[b] for b in table.seats], [ranks[b] for b in table.seats])
            skills.update(zip(table.seats, rated, strict=True))
        order = sorted(entrants, key=lambda e: (-(skills[e][0] - 3 * skills[e][1]), e))
        right.append(all(weights[a] >= weights[b] for a, b in pairwise(order)))
    return FixedRun(len(schedule.tables), tuple(right))


def least_mean_games(weights: Mapping[str, float], table_size: int, error: float) -> float | None:
    """A lower bound on the mean games of ANY stop rule, whatever its test and schedule, that ends
    with every adjacent pair of unequal weight reported in order while keeping its promise (a
    wrong report at most `error` of the time) on every field: Wald's bound. For pair i let Q_i
    be the field with that pair tied (both at their geometric mean); under Q_i a report of the
    pair is wrong, so it happens at most `error` of the time, and under the true field almost
    always, so the expected log-likelihood ratio of the games against Q_i, the sum over games
    of KL_i(table), is at least log(1 / error). Summed over the pairs, the games are at least
    (pairs) log(1 / error) / max over tables of sum_i KL_i(table). Every table of `table_size`
    is tried for fields of up to 5,000 of them, else the windows of consecutive places (the
    best tables of a ladder). None when no adjacent pair is unequal."""
    names = sorted(weights, key=lambda e: -weights[e])
    pairs = [i for i in range(len(names) - 1) if weights[names[i]] != weights[names[i + 1]]]
    if not pairs:
        return None
    tied = []
    for i in pairs:
        null = dict(weights)
        null[names[i]] = null[names[i + 1]] = math.sqrt(weights[names[i]] * weights[names[i + 1]])
        tied.append((i, null))
    if math.comb(len(names), table_size) <= 5000:
        tables = list(combinations(range(len(names)), table_size))
    else:
        tables = [tuple(range(s, s + table_size)) for s in range(len(names) - table_size + 1)]
    best = max(
        sum(_kl(tuple(names[k] for k in table), weights, null) for i, null in tied if i in table and i + 1 in table)
        for table in tables
    )
    return len(pairs) * math.log(1 / error) / best


def _kl(seats: tuple[str, ...], weights: Mapping[str, float], null: Mapping[str, float]) -> float:
    """The Kullback-Leibler divergence of the null's finishing orders at a table from the field's."""
    return sum(_chance(o, weights) * math.log(_chance(o, weights) / _chance(o, null)) for o in permutations(seats))


def _chance(order: Sequence[str], weights: Mapping[str, float]) -> float:
    """The Plackett-Luce chance of one finishing order."""
    chance, left = 1.0, sum(weights[b] for b in order)
    for b in order:
        chance *= weights[b] / left
        left -= weights[b]
    return chance
