"""What a search bot's thinking costs, on one core: its rollout policies per action, and the
strong bot's CPU per answer at the strength benchmark's budgets.

Run:  .venv/bin/python benchmarks/search_speed.py [--positions 1000] [--repeat 5] [--games 2]
          [--players 2,3,4,5] [--compare-with DIR] [--strong-iterations 4:100000,...]

Samples: for each table size, `--positions` decisions of seeded greedy games, and µs per
`Determinizer.sample` of them (20 each, the fastest of `--repeat` passes).

Rollouts: a determinised sample of each of those decisions (`Determinizer(observe(game,
seat)).sample`, seeded, so every run gets the same ones; a checkout that deals its samples
otherwise gets others), each finished to its round's end by the greedy rollout
(`bots.montecarlo.finish_round`) and by the learned playout (`LinearPlayout.shipped().finish`), on
a copy, each policy with a warm memo: µs per simulated action (the copy included, as a search pays
it; the fastest of `--repeat` passes, since a shared core only ever slows a pass) and actions per
rollout. The same samples played out by the compiled playout (`LinearPlayout.play_out`, in C
where bots/_playout.c was built; "—" where it was not, or in a checkout without it): µs per
action, the call's reading of the position included, and how many times cheaper than the learned
playout in Python that is.

Answers: `--games` seeded games with `StrongBot` at its default budgets (`bots.strong.ITERATIONS`,
or `--strong-iterations`; no time cap) in every seat, CPU ms of each answer (flips and forced
moves included): mean, median, p90 and max; and of the round-start flips alone, mean and max.
The budgets were set from this figure: a mean under the 100 ms the issue allows, on the machine
they were set on (docs/benchmarks.md says which; a slower core needs smaller ones).

`--fit-cost`: instead, `--games` games per table size of strong in every seat, each decision at a
budget drawn from `FIT_BUDGETS`, and a least-squares fit of each decision's CPU time to its
rollouts and simulated actions: the µs a rollout costs besides its actions, the µs an action costs,
and their ratio, from which `bots.strong.ROLLOUT_COST` was set (numpy, from the test extra).

Times are the process's CPU time. `--compare-with DIR` measures the same in the checkout DIR (e.g.
`git worktree add --detach /tmp/main main`), in a child process right before this checkout's own
measurement of each table size, and prints this/other ratios: before and after a change, in the
same run, on the same games; each checkout at its own budgets unless `--strong-iterations` sets
both.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from bots_strength import per_table_size

import bots.playout as playout_module
from bots.greedy import GreedyBot, hand_values
from bots.montecarlo import finish_round
from bots.playout import LinearPlayout
from bots.strong import ITERATIONS, ROLLOUT_COST, StrongBot
from sdk.engine import Determinizer, Flip, Game, Observation, Phase, observe
from sdk.local import play_game


def decisions(players: int, count: int) -> list[Observation]:
    """`count` observations from decisions of seeded greedy games with a choice to make, one in
    three taken."""
    rng = random.Random(players)
    found: list[Observation] = []
    seed = 0
    while len(found) < count:
        game = Game(players, seed)
        bot = GreedyBot()
        while not game.is_over and len(found) < count:
            seat = game.awaiting[0]
            obs = observe(game, seat)
            if game.phase is Phase.FLIP:
                game.apply(seat, Flip(bot.flip(obs)))
                continue
            if len(obs.legal_actions) > 1 and rng.random() < 1 / 3:
                found.append(obs)
            game.apply(seat, bot.choose(obs))
        seed += 1
    return found


def positions(observations: list[Observation]) -> list[Game]:
    """A determinised sample of each of `observations`, seeded."""
    rng = random.Random(len(observations))
    return [Determinizer(obs).sample(rng) for obs in observations]


def sample_cost(observations: list[Observation], repeat: int) -> float:
    """µs per `Determinizer.sample`, 20 from each of `observations` (the determiniser built once
    each, as a decision does), the fastest of `repeat` passes."""
    worlds = [Determinizer(obs) for obs in observations]
    rng = random.Random(0)
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        for world in worlds:
            for _ in range(20):
                world.sample(rng)
        best = min(best, (time.process_time() - start) / (20 * len(worlds)) * 1e6)
    return best


def rollout_cost(samples: list[Game], finish: Callable[[Game], None], repeat: int) -> tuple[float, float]:
    """µs per simulated action (the fastest of `repeat` timed passes, after one untimed pass that
    warms the policy's memo as a bot's first decisions do) and actions per rollout of `finish`
    over copies of `samples`."""
    for world in samples:
        finish(world.copy())
    best = float("inf")
    for _ in range(repeat):
        actions = 0
        start = time.process_time()
        for world in samples:
            game = world.copy()
            finish(game)
            actions += game.round_actions - world.round_actions
        best = min(best, (time.process_time() - start) / actions * 1e6)
    return best, actions / len(samples)


def compiled_cost(samples: list[Game], repeat: int) -> float:
    """µs per simulated action of the compiled `LinearPlayout.play_out` over `samples`, the
    fastest of `repeat` passes; NaN where there is no compiled playout to measure."""
    playout = LinearPlayout.shipped()
    if getattr(playout_module, "compiled", None) is None:
        return math.nan
    best = math.inf
    for _ in range(repeat):
        actions = 0
        start = time.process_time()
        for world in samples:
            actions += playout.play_out(world)[1]
        best = min(best, (time.process_time() - start) / actions * 1e6)
    return best


def answer_costs(players: int, games: int, iterations: int) -> tuple[list[float], list[float]]:
    """CPU ms of every answer of `StrongBot(iterations=...)` in every seat of `games` games, and of
    its flips alone."""
    costs = []
    flips = []
    for g in range(games):
        game = Game(players, 50 + g)
        bots = [StrongBot(seed=100 * g + s, move_time=None, iterations=iterations) for s in range(players)]
        while not game.is_over:
            seat = game.awaiting[0]
            obs = observe(game, seat)
            start = time.process_time()
            if game.phase is Phase.FLIP:
                answer: object = Flip(bots[seat].flip(obs))
            else:
                answer = bots[seat].choose(obs)
            costs.append((time.process_time() - start) * 1000)
            if game.phase is Phase.FLIP:
                flips.append(costs[-1])
            game.apply(seat, answer)  # type: ignore[arg-type]
    return costs, flips


FIT_BUDGETS = (2000, 6000, 12000, 20000)


class _Counted(StrongBot):
    """StrongBot that records each decision's CPU time, rollouts and simulated actions."""

    def __init__(self, rows: list[tuple[float, int, int]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rows = rows

    def best(self, worlds: Any, options: Any, values: Any, start: float, budget: int | None = None) -> Any:
        """`StrongBot.best` at a budget drawn from `FIT_BUDGETS` instead of the table's."""
        rollouts = 0

        def counted(world: Game, some: Any) -> list[float]:
            nonlocal rollouts
            rollouts += len(some)
            return values(world, some)  # type: ignore[no-any-return]

        self.iterations = self._rng.choice(FIT_BUDGETS)
        began = time.process_time()
        chosen = super().best(worlds, options, counted, start)
        self._rows.append((time.process_time() - began, rollouts, self.steps_done - ROLLOUT_COST * rollouts))
        return chosen


def fit_cost(sizes: list[int], games: int) -> None:
    """Print the per-rollout and per-action CPU cost fitted over decisions at random budgets."""
    import numpy as np

    rows: list[tuple[float, int, int]] = []
    for players in sizes:
        for g in range(games):
            bots = [_Counted(rows, seed=100 * g + s, move_time=None, iterations=1) for s in range(players)]
            play_game(bots, seed=g)
    data = np.array(rows)
    design = np.c_[data[:, 1], data[:, 2], np.ones(len(data))]
    (per_rollout, per_action, _), *_ = np.linalg.lstsq(design, data[:, 0], rcond=None)
    print(
        f"{len(rows)} decisions at {sizes} seats: {per_rollout * 1e6:.1f} µs a rollout besides its actions, "
        f"{per_action * 1e6:.2f} µs an action, ratio {per_rollout / per_action:.1f} (ROLLOUT_COST is {ROLLOUT_COST})"
    )


def measure(players: int, args: argparse.Namespace) -> dict[str, float]:
    observations = decisions(players, args.positions)
    samples = positions(observations)
    value = hand_values()
    greedy_us, greedy_len = rollout_cost(samples, lambda game: finish_round(game, value), args.repeat)
    learned_us, learned_len = rollout_cost(samples, LinearPlayout.shipped().finish, args.repeat)
    compiled_us = compiled_cost(samples, args.repeat)
    costs, flips = answer_costs(players, args.games, (args.strong_iterations or ITERATIONS)[players])
    return {
        "sample_us": sample_cost(observations, args.repeat),
        "greedy_us": greedy_us,
        "greedy_len": greedy_len,
        "learned_us": learned_us,
        "learned_len": learned_len,
        "compiled_us": compiled_us,
        "compiled_gain": learned_us / compiled_us,
        "mean": statistics.mean(costs),
        "median": statistics.median(costs),
        "p90": statistics.quantiles(costs, n=10)[-1],
        "max": max(costs),
        "flip_mean": statistics.mean(flips),
        "flip_max": max(flips),
    }


def measure_other(directory: str, players: int, args: argparse.Namespace) -> dict[str, float]:
    """`measure` run by this script in a child process on the checkout in `directory`."""
    sizes = ["--positions", str(args.positions), "--repeat", str(args.repeat), "--games", str(args.games)]
    if args.strong_iterations:
        sizes += ["--strong-iterations", ",".join(f"{n}:{i}" for n, i in args.strong_iterations.items())]
    argv = [sys.executable, __file__, "--one", str(players), *sizes]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=directory).stdout
    return {k: float(v) for k, v in json.loads(out).items()}


def table_sizes(text: str) -> list[int]:
    try:
        sizes = [int(n) for n in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected table sizes like 2,3,4,5, not {text!r}") from None
    if not all(2 <= n <= 5 for n in sizes):
        raise argparse.ArgumentTypeError(f"table sizes are from 2 to 5, not {text!r}")
    return sizes


COLUMNS = (
    "sample_us",
    "greedy_us",
    "greedy_len",
    "learned_us",
    "learned_len",
    "compiled_us",
    "compiled_gain",
    "mean",
    "median",
    "p90",
    "max",
    "flip_mean",
    "flip_max",
)
HEADERS = (
    "µs/sample",
    "greedy µs/action",
    "greedy actions/rollout",
    "learned µs/action",
    "learned actions/rollout",
    "compiled µs/action",
    "learned/compiled",
    "strong ms/answer mean",
    "median",
    "p90",
    "max",
    "flip ms mean",
    "flip max",
)


def cell(figure: float, digits: int) -> str:
    return "—" if math.isnan(figure) else f"{figure:.{digits}f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000, help="determinised samples per table size")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over them; the fastest counts")
    parser.add_argument("--games", type=int, default=2, help="games of strong in every seat per table size")
    parser.add_argument("--players", type=table_sizes, default=[2, 3, 4, 5], help="table sizes, comma-separated")
    parser.add_argument("--compare-with", metavar="DIR", help="a checkout to measure too, in the same run")
    parser.add_argument(
        "--strong-iterations",
        type=per_table_size,
        help="strong's budgets for the answers, as bots_strength.py takes them (default: each checkout's ITERATIONS)",
    )
    parser.add_argument("--fit-cost", action="store_true", help="fit strong's CPU per rollout and per action")
    parser.add_argument("--one", type=int, metavar="PLAYERS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.positions, args.repeat, args.games) < 1:
        parser.error("--positions, --repeat and --games are at least 1")
    if args.one is not None:
        print(json.dumps(measure(args.one, args)))
        return
    if args.fit_cost:
        print(f"command: {' '.join([sys.executable, *sys.argv])}")
        fit_cost(args.players, args.games)
        return
    if args.compare_with is not None and not os.path.isfile(os.path.join(args.compare_with, "bots", "strong.py")):
        parser.error(f"--compare-with needs a checkout holding bots/strong.py, not {args.compare_with!r}")
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, one process, CPU time; "
        f"load average at start {os.getloadavg()[0]:.1f}; strong's budgets {args.strong_iterations or ITERATIONS}\n"
    )
    print("| players | checkout | " + " | ".join(HEADERS) + " |")
    print("|---" * (len(HEADERS) + 2) + "|")
    for players in args.players:
        rows = []
        if args.compare_with:
            rows.append(("other", measure_other(args.compare_with, players, args)))
        rows.append(("this", measure(players, args)))
        if args.compare_with:
            rows.append(("this/other", {k: rows[1][1][k] / rows[0][1][k] for k in COLUMNS}))
        for name, figures in rows:
            cells = " | ".join(
                cell(figures[k], 2 if name == "this/other" or k == "compiled_us" else 1) for k in COLUMNS
            )
            print(f"| {players} | {name} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
