"""Engine speed: random full games (uniform over legal actions) for 2–5 players, on one core.

Run:  .venv/bin/python benchmarks/engine_speed.py [--games N] [--seconds S] [--compare-with DIR]

For each player count it plays seeded random games and prints games/s, actions/s, the mean
cost of one legal-action enumeration and of one `Game.copy()` (of a determinised sample, what a
search copies, and of a full game mid-way, whose history lists are copied too). Times are the
process's CPU time, so other processes on a loaded machine change them little. The same games
are also played by a baseline policy that
materialises every legal action as a list before choosing (what `random.choice(list(actions))`
costs), so the ratio between the two is measured on the same machine in the same run.

`--compare-with DIR` also measures the random games with the engine found in DIR (e.g. a checkout
of main: `git worktree add --detach /tmp/main main`), in a child process right before each of
this engine's measurements, and prints the ratio: before and after a change, in the same run.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from sdk.engine import Action, Game

Pick = Callable[[Sequence[Action], random.Random], Action]


def pick_lazy(actions: Sequence[Action], rng: random.Random) -> Action:
    return actions[rng.randrange(len(actions))]


def pick_materialised(actions: Sequence[Action], rng: random.Random) -> Action:
    return rng.choice(list(actions))


def play(players: int, seed: int, pick: Pick) -> int:
    """One random game; returns the number of actions applied (flips included)."""
    game = Game(players, seed)
    rng = random.Random(seed)
    count = 0
    while not game.is_over:
        game.apply(game.to_move, pick(game.legal_actions(), rng))
        count += 1
    return count


def run(players: int, pick: Pick, games: int, seconds: float) -> tuple[int, int, float]:
    played = actions = 0
    start = time.process_time()
    while played < games and time.process_time() - start < seconds:
        actions += play(players, played, pick)
        played += 1
    return played, actions, time.process_time() - start


def enumeration_cost(players: int, samples: int = 20_000) -> float:
    """Mean µs of one `legal_actions()` call (with `len`), over states met in random games."""
    states: list[Game] = []
    seed = 10_000
    while len(states) < samples:
        game = Game(players, seed)
        rng = random.Random(seed)
        while not game.is_over and len(states) < samples:
            actions = game.legal_actions()
            if game.phase.value == "play":
                states.append(copy.deepcopy(game))
            game.apply(game.to_move, pick_lazy(actions, rng))
        seed += 1
    start = time.process_time()
    for state in states:
        len(state.legal_actions())
    return (time.process_time() - start) / len(states) * 1e6


def copy_cost(players: int, samples: int = 2_000) -> tuple[float, float]:
    """Mean µs of `Game.copy()` for a determinised sample and for the game it was drawn from,
    both taken half-way through a random game's PLAY decisions."""
    from sdk.engine import Determinizer, Phase, observe  # not in every engine --compare-with measures

    game, rng = Game(players, 7), random.Random(7)
    states = []
    while not game.is_over:
        actions = game.legal_actions()
        if game.phase is Phase.PLAY:
            states.append(game.copy())
        game.apply(game.to_move, pick_lazy(actions, rng))
    full = states[len(states) // 2]
    sample = Determinizer(observe(full, full.to_move)).sample(rng)
    costs = []
    for state in (sample, full):
        start = time.process_time()
        for _ in range(samples):
            state.copy()
        costs.append((time.process_time() - start) / samples * 1e6)
    return costs[0], costs[1]


def other_engine_rate(directory: str, players: int, args: argparse.Namespace) -> float:
    """Random games/s of the engine in `directory`, measured by this script in a child process."""
    argv = [
        sys.executable,
        __file__,
        "--rate-only",
        str(players),
        "--games",
        str(args.games),
        "--seconds",
        str(args.seconds),
    ]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, cwd=directory).stdout
    return float(json.loads(out)["games_per_second"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per player count and policy")
    parser.add_argument("--seconds", type=float, default=10.0, help="time cap per measurement")
    parser.add_argument("--compare-with", metavar="DIR", help="a checkout whose engine to measure too")
    parser.add_argument("--rate-only", type=int, metavar="PLAYERS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rate_only is not None:
        games, _, elapsed = run(args.rate_only, pick_lazy, args.games, args.seconds)
        print(json.dumps({"games_per_second": games / elapsed}))
        return
    if args.compare_with is not None and not os.path.isdir(os.path.join(args.compare_with, "sdk", "engine")):
        parser.error(f"--compare-with needs a checkout holding sdk/engine, not {args.compare_with!r}")
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(f"python {platform.python_version()} on {platform.machine()}, one process, CPU time")
    other = f" {'other engine':>12} {'this/other':>10}" if args.compare_with else ""
    print(
        f"{'players':>7} {'games/s':>9} {'actions/s':>10} {'actions/game':>12} "
        f"{'µs/enum':>8} {'µs/copy sample':>14} {'µs/copy game':>12} {'baseline games/s':>16} {'ratio':>6}{other}"
    )
    for players in (2, 3, 4, 5):
        other_rate = other_engine_rate(args.compare_with, players, args) if args.compare_with else 0.0
        games, actions, elapsed = run(players, pick_lazy, args.games, args.seconds)
        base_games, _, base_elapsed = run(players, pick_materialised, args.games, args.seconds)
        rate, base_rate = games / elapsed, base_games / base_elapsed
        sample_copy, game_copy = copy_cost(players)
        compared = f" {other_rate:>12.0f} {rate / other_rate:>9.2f}x" if args.compare_with else ""
        print(
            f"{players:>7} {rate:>9.0f} {actions / elapsed:>10.0f} {actions / games:>12.0f} "
            f"{enumeration_cost(players, 5_000):>8.2f} {sample_copy:>14.1f} {game_copy:>12.1f} "
            f"{base_rate:>16.0f} {rate / base_rate:>5.1f}x{compared}",
            flush=True,
        )


if __name__ == "__main__":
    main()
