"""How many games a rating table needs to be right, and whether the stop rule stops right.

A field of bots of known, separated strength (greedy bots that play a random legal move with
probability p: the smaller p, the stronger; `field` spaces them evenly from 0.6 to 1) plays many
simulated tournaments in this process, with the SDK's local play (the rules engine, no gRPC)
and the project's own schedule (`arena.tournaments.schedule`), TrueSkill ratings
(`arena.ratings.table`) and stop rule (`arena.tournaments.stop_rule`), each tournament from its
own seed:

* **random tables**: every game seats `--seats` bots drawn at random;
* **balanced tables**: the project's schedule (a full round robin), its tables played again and
  again in the order the arena plays them (each table's first game, then each one's second, ...);
* **stop rule**: rounds of that schedule, one after another, until the rule settles every
  adjacent pair (or `--max-games`).

For the first two, "games to a settled correct order" is the number of games after which the
rating table (by mu - 3 sigma, as the arena ranks) is in the true order and stays so up to the
horizon (`--horizon` games); a tournament still wrong at the horizon counts as not settled. That
needs the truth, so it is an oracle's figure: the least a fixed schedule could get away with. The
stop rule's figure is the games it played before it stopped, and whether the order it stopped on
was right. For a fixed budget it also prints the share of tournaments whose order is right after
10, 25, 50, ... games. A last field of equal bots (`--null-tournaments`, all p = `--null-p`) measures how often
the rule stops at all where every stop is wrong. Prints its command, then the figures.

    nice .venv/bin/python benchmarks/rating_quality.py [--tournaments 20] [--bots 5] [--seats 4]

**--simulate** plays no games: finishing orders are drawn from known skills (Plackett-Luce,
`arena.ratings.plackett_luce`: `--scenario clear` neighbours 70/30, `close` 60/40, `tied` clear
with its middle pair exactly equal), through the arena's own round scheduling (`stop_round`),
stop rule (`Evidence`) and, for the fixed format, TrueSkill; `--tournaments` runs of each, one
process. It prints `wrong_share` (runs that reported a pair wrongly; promised at most
1 - confidence), `mean_games_at_stop`, `settled_share` (runs settled under the cap),
`equal_share` (runs whose tied pair ended "equal"), and `fixed_games_equal_accuracy`: the
fewest games of the fixed format (its round robin played again and again, as `--games-per-table`
plays it) whose final mu - 3 sigma order was wrong in at most 1 - confidence of the same number
of runs (None: not within the cap).

    nice .venv/bin/python benchmarks/rating_quality.py --simulate --scenario clear --entrants 8 --tournaments 500 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.ratings import plackett_luce
from arena.ratings.table import Standing, apply_game, arena_env, rating_table
from arena.tournaments.schedule import game_seed, round_robin, round_seed, schedule_seed, stop_round, table_count
from arena.tournaments.stop_rule import Evidence, StopOutcome, StopRule, open_pairs
from bots.greedy import hand_values, prefer_flip, ranked_actions
from sdk import Action, Bot, Observation
from sdk.local import play_game_async


class NoisyGreedy(Bot):
    """Greedy, but a uniformly random legal move (and flip) with probability `p`."""

    def __init__(self, p: float, seed: int) -> None:
        super().__init__()
        self.p = p
        self._rng = random.Random(seed)
        self._hand_value = hand_values()

    def choose(self, obs: Observation) -> Action:
        if self._rng.random() < self.p:
            return self._rng.choice(obs.legal_actions)
        return ranked_actions(obs, self._hand_value)[0][1]

    def flip(self, obs: Observation) -> bool:
        if self._rng.random() < self.p:
            return self._rng.random() < 0.5
        return prefer_flip(obs.hand, self._hand_value)


def field(bots: int) -> list[float]:
    """The noise of each bot, strongest first: evenly spaced from 0.6 to 1 (a random bot); for 5
    bots 0.6, 0.7, 0.8, 0.9, 1, where neighbours finish above each other in 70-83% of their games
    (200 four-seat games, measured while writing this). Mostly random play keeps games cheap."""
    return [round(0.6 + 0.4 * i / max(1, bots - 1), 3) for i in range(bots)]


@dataclass
class Table:
    """A tournament in progress: ratings, and after each game whether the order is right."""

    names: list[str]
    truth: list[str]
    standings: dict[str, Standing]
    right: list[bool]

    @classmethod
    def fresh(cls, truth: list[str]) -> Table:
        env = arena_env()
        return cls(sorted(truth), truth, {b: Standing(b, env.mu, env.sigma) for b in truth}, [])

    def order(self) -> list[str]:
        return [row.bot for row in rating_table(self.standings.values())]

    def add(self, seats: Sequence[str], totals: Sequence[int], ranks: Sequence[int]) -> None:
        after = apply_game(
            arena_env(),
            {b: self.standings[b] for b in seats},
            dict(zip(seats, totals, strict=True)),
            dict(zip(seats, ranks, strict=True)),
        )
        self.standings.update(after)
        self.right.append(self.order() == self.truth)

    def settled_after(self) -> int | None:
        """Games after which the order is right and stays so, None if wrong at the end."""
        if not self.right or not self.right[-1]:
            return None
        wrong = [i for i, ok in enumerate(self.right) if not ok]
        return wrong[-1] + 2 if wrong else 1


async def play(
    bots: dict[str, NoisyGreedy], seats: Sequence[str], seed: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    result = await play_game_async([bots[b] for b in seats], seed=seed)
    return result.totals, result.ranks


async def random_tables(bots: dict[str, NoisyGreedy], truth: list[str], k: int, seed: int, horizon: int) -> Table:
    rng = random.Random(seed)
    table = Table.fresh(truth)
    for g in range(horizon):
        seats = rng.sample(truth, k)
        table.add(seats, *await play(bots, seats, game_seed(seed, g, 0)))
    return table


async def balanced_tables(bots: dict[str, NoisyGreedy], truth: list[str], k: int, seed: int, horizon: int) -> Table:
    schedule = round_robin(truth, k, schedule_seed(seed))
    table = Table.fresh(truth)
    g = 0
    while g < horizon:
        for index, t in enumerate(schedule.tables):
            if g == horizon:
                break
            table.add(t.seats, *await play(bots, t.seats, game_seed(seed, index, g // len(schedule.tables))))
            g += 1
    return table


async def stop_rule(
    bots: dict[str, NoisyGreedy], truth: list[str], k: int, seed: int, rule: StopRule
) -> tuple[int, StopOutcome, bool, int]:
    """Rounds as the store draws them (`stop_round`) until the rule stops: (games, outcome,
    whether every pair proven in order is in the true order, how many pairs were proven in order)."""
    evidence = Evidence(rule, truth)
    seats = {b: [0] * k for b in truth}
    verdict = evidence.verdict(None, table_count(len(truth), k), estimate=False)
    first = 0
    for r in range(rule.max_games + 1):
        schedule = stop_round(
            truth, k, round_seed(schedule_seed(seed), r), r, None, verdict.order, open_pairs(verdict, rule), seats
        )
        games = []
        for index, t in enumerate(schedule.tables, start=first):
            _, ranks = await play(bots, t.seats, game_seed(seed, index, 0))
            games.append(dict(zip(t.seats, ranks, strict=True)))
            for s, bot in enumerate(t.seats):
                seats[bot][s] += 1
        first += len(schedule.tables)
        evidence.add_round(games)
        verdict = evidence.verdict(None, len(schedule.tables), estimate=False)
        if verdict.outcome is not StopOutcome.PLAYING:
            claimed = [(p.upper, p.lower) for p in verdict.pairs if p.settled]
            right = all(truth.index(a) < truth.index(b) for a, b in claimed)
            return verdict.games, verdict.outcome, right, len(claimed)
    raise AssertionError("the cap always ends it")


def spread(values: Sequence[float | None]) -> str:
    """'median [10th-90th percentile]' of the games, '>' when unsettled runs reach into it."""
    finite = sorted(float("inf") if v is None else v for v in values)

    def at(q: float) -> str:
        v = finite[min(len(finite) - 1, int(q * (len(finite) - 1) + 0.5))]
        return ">horizon" if v == float("inf") else f"{v:.0f}"

    return f"{at(0.5)} [{at(0.1)}-{at(0.9)}]"


def simulate(args: argparse.Namespace) -> dict[str, object]:
    """The --simulate figures (module docstring)."""
    weights = plackett_luce.field(args.scenario, args.entrants)
    rule = StopRule(confidence=args.confidence, max_games=args.max_games, margin=args.margin)
    tied = plackett_luce.tied_pairs(weights)
    started = time.perf_counter()
    runs = [plackett_luce.stop_rule_run(weights, rule, args.seats, args.seed + t) for t in range(args.tournaments)]
    stop_seconds = time.perf_counter() - started
    fixed_games = None
    budget = min(args.max_games, 64)
    while fixed_games is None:
        # Fixed runs of twice the games each time, until some length is accurate enough or the cap.
        fixed = [plackett_luce.fixed_run(weights, args.seats, args.seed + t, budget) for t in range(args.tournaments)]
        fixed_games = next(
            (
                (i + 1) * fixed[0].round_games
                for i in range(min(len(f.right) for f in fixed))
                if sum(not f.right[i] for f in fixed) <= (1 - args.confidence) * len(fixed)
            ),
            None,
        )
        if budget >= args.max_games:
            break
        budget = min(args.max_games, 2 * budget)
    mean_games = sum(r.games for r in runs) / len(runs)
    least = plackett_luce.least_mean_games(weights, args.seats, 1 - args.confidence)
    equal = [any(p.equal and not p.settled and frozenset((p.upper, p.lower)) in tied for p in r.pairs) for r in runs]
    return {
        "scenario": args.scenario,
        "entrants": args.entrants,
        "seats": args.seats,
        "tournaments": args.tournaments,
        "confidence": args.confidence,
        "margin": args.margin,
        "max_games": args.max_games,
        "promise": round(1 - args.confidence, 6),
        "wrong_share": sum(r.wrong for r in runs) / len(runs),
        "mean_games_at_stop": round(mean_games, 1),
        "settled_share": sum(r.outcome is StopOutcome.SETTLED for r in runs) / len(runs),
        "equal_share": sum(equal) / len(runs) if tied else None,
        "fixed_games_equal_accuracy": fixed_games,
        "stop_to_fixed": round(mean_games / fixed_games, 2) if fixed_games else None,
        "least_mean_games_any_rule": None if least is None else round(least, 1),
        "seconds": round(time.perf_counter() - started, 1),
        "stop_rule_seconds": round(stop_seconds, 1),
        "loadavg": open("/proc/loadavg").read().split()[:3],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulate", action="store_true", help="known skills, no games (module docstring)")
    parser.add_argument("--scenario", choices=sorted(plackett_luce.SCENARIOS), default="clear", help="with --simulate")
    parser.add_argument("--entrants", type=int, default=8, help="with --simulate: bots in the field")
    parser.add_argument("--margin", type=float, default=0.1, help="the stop rule's equal margin")
    parser.add_argument("--json", action="store_true", help="with --simulate: one JSON object")
    parser.add_argument("--tournaments", type=int, default=20, help="simulated tournaments per format")
    parser.add_argument("--bots", type=int, default=5, help="bots in the field, each of its own strength")
    parser.add_argument("--seats", type=int, default=4, help="seats at every table")
    parser.add_argument("--horizon", type=int, default=300, help="games of each fixed-format tournament")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--max-games", type=int, default=2000, help="the stop rule's game cap")
    parser.add_argument("--null-tournaments", type=int, default=10, help="stop-rule tournaments of equal bots")
    parser.add_argument("--null-p", type=float, default=1.0, help="the equal bots' noise (1: random bots)")
    parser.add_argument("--null-max-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if args.simulate:
        if not 2 <= args.seats <= args.entrants:
            parser.error(f"--seats must be within 2..--entrants ({args.entrants}), not {args.seats}")
        figures = simulate(args)
        command = " ".join([sys.executable, *sys.argv])
        if args.json:
            print(json.dumps({"command": command, **figures}))
        else:
            print("command:", command)
            for key, value in figures.items():
                print(f"{key}: {value}")
        return
    if not 2 <= args.seats <= args.bots:
        parser.error(f"--seats must be within 2..--bots ({args.bots}), not {args.seats}")
    print("command:", " ".join([sys.executable, *sys.argv]))
    noise = field(args.bots)
    truth = [f"p{p:.2f}" for p in noise]
    print(
        f"field: {args.bots} bots, greedy with a random move at p = {', '.join(f'{p:g}' for p in noise)} "
        f"(strongest first); {args.seats}-seat tables; {args.tournaments} tournaments per format"
    )
    rule = StopRule(confidence=args.confidence, max_games=args.max_games, margin=args.margin)
    started = time.perf_counter()

    def bots_for(seed: int, ps: Sequence[float], names: Sequence[str]) -> dict[str, NoisyGreedy]:
        return {name: NoisyGreedy(p, seed * 100 + i) for i, (name, p) in enumerate(zip(names, ps, strict=True))}

    fixed: dict[str, list[int | None]] = {"random tables": [], "balanced tables": []}
    right: dict[str, list[list[bool]]] = {"random tables": [], "balanced tables": []}
    formats: dict[str, Callable[..., object]] = {"random tables": random_tables, "balanced tables": balanced_tables}
    stops: list[tuple[int, StopOutcome, bool, int]] = []
    for t in range(args.tournaments):
        seed = args.seed + t
        for name, run in formats.items():
            table = asyncio.run(run(bots_for(seed, noise, truth), truth, args.seats, seed, args.horizon))  # type: ignore[arg-type]
            fixed[name].append(table.settled_after())
            right[name].append(table.right)
        stops.append(asyncio.run(stop_rule(bots_for(seed, noise, truth), truth, args.seats, seed, rule)))
    equal = [f"e{i}" for i in range(args.bots)]
    null_rule = StopRule(confidence=args.confidence, max_games=args.null_max_games, margin=args.margin)
    null = [
        asyncio.run(stop_rule(bots_for(seed, [args.null_p] * args.bots, equal), equal, args.seats, seed, null_rule))
        for seed in range(args.seed + 10_000, args.seed + 10_000 + args.null_tournaments)
    ]
    seconds = time.perf_counter() - started

    print("\n| format | games to a settled correct order, median [10-90%] | not settled |")
    print("|---|---|---|")
    for name, values in fixed.items():
        unsettled = sum(v is None for v in values)
        print(f"| {name} (oracle, horizon {args.horizon}) | {spread(values)} | {unsettled} of {len(values)} |")
    settled = [g for g, outcome, _, _ in stops if outcome is StopOutcome.SETTLED]
    capped = sum(outcome is StopOutcome.CAP_REACHED for _, outcome, _, _ in stops)
    wrong = sum(outcome is StopOutcome.SETTLED and not right for _, outcome, right, _ in stops)
    print(
        f"| stop rule at {args.confidence:g} (games when it stopped) | {spread([g for g, _, _, _ in stops])} | "
        f"{capped} of {len(stops)} reached the cap of {args.max_games} |"
    )
    checkpoints = [g for g in (10, 25, 50, 100, 200, 300) if g <= args.horizon]
    print(f"\n| format | order right after {' / '.join(map(str, checkpoints))} games (share of tournaments) |")
    print("|---|---|")
    for name, runs in right.items():
        shares = [sum(run[g - 1] for run in runs) / len(runs) for g in checkpoints]
        print(f"| {name} | {' / '.join(f'{share:.0%}' for share in shares)} |")
    print(
        f"\nstop rule: settled {len(settled)} of {len(stops)}, {wrong} on a wrong order "
        f"(promised at most {1 - args.confidence:.0%} of runs)"
    )
    null_wrong = sum(ordered > 0 for _, _, _, ordered in null)
    null_equal = sum(outcome is StopOutcome.SETTLED and ordered == 0 for _, outcome, _, ordered in null)
    print(
        f"equal bots (p = {args.null_p:g}, cap {args.null_max_games}): a pair proven in some order (wrongly) in "
        f"{null_wrong} of {len(null)} tournaments (promised at most {1 - args.confidence:.0%}); "
        f"settled as all equal in {null_equal}"
    )
    print(f"\n{seconds:.0f} s")


if __name__ == "__main__":
    main()
