"""How strong and how fast are the example bots? Seeded local games, printed as a Markdown table.

    python benchmarks/bots_strength.py [--games 20] [--players 2,3,4,5]
        [--matchups greedy:random,montecarlo:greedy] [--mc-move-time 0.2 | --mc-iterations N]

Each matchup `a:b` seats one `a` against `b` in every other seat, for `--games` games per table
size, with seats rotated and game g dealt from seed `--seed` + g (sdk.local.play_match). A fair
share of wins is 1/N at N players. ms/answer is the bot's mean thinking time per answer, flip
decisions included. Montecarlo runs with its default 0.2 s budget per move unless told otherwise.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from bots import EXAMPLES, MonteCarloBot, make_example
from sdk.bot import Bot
from sdk.local import play_match


def make(name: str, seed: int, args: argparse.Namespace) -> Bot:
    if name == "montecarlo" and (args.mc_iterations is not None or args.mc_move_time is not None):
        move_time = None if args.mc_iterations is not None and args.mc_move_time is None else args.mc_move_time
        return MonteCarloBot(seed=seed, move_time=move_time, iterations=args.mc_iterations)
    return make_example(name, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per matchup and table size")
    parser.add_argument("--players", default="2,3,4,5", help="table sizes, comma-separated")
    parser.add_argument("--matchups", default="greedy:random,montecarlo:greedy", help="a:b pairs, comma-separated")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--mc-move-time", type=float, default=None, help="montecarlo seconds per move")
    parser.add_argument("--mc-iterations", type=int, default=None, help="montecarlo deals per move")
    args = parser.parse_args()
    counts = [int(n) for n in args.players.split(",")]
    matchups = [tuple(pair.split(":")) for pair in args.matchups.split(",")]
    for pair in matchups:
        if len(pair) != 2 or not set(pair) <= set(EXAMPLES):
            parser.error(f"matchups are a:b with a and b among {', '.join(EXAMPLES)}, not {':'.join(pair)!r}")

    print(f"$ python benchmarks/bots_strength.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}\n")
    print("| players | matchup | bot | games | win % | avg points | avg place | ms/answer |")
    print("|---|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for challenger, field in matchups:
        for n in counts:
            bots = [make(challenger, args.seed, args)] + [make(field, args.seed + k, args) for k in range(1, n)]
            match = play_match(bots, games=args.games, seed=args.seed)
            rows = match.summary()
            shown = [rows[0], min(rows[1:], key=lambda r: r.mean_placing)]  # the challenger, the field's best
            for row in shown:
                print(
                    f"| {n} | {challenger} vs {field} | {row.name} | {row.games} | {100 * row.win_rate:.0f} "
                    f"| {row.mean_points:.1f} | {row.mean_placing:.2f} | {1000 * row.seconds_per_decision:.2f} |",
                    flush=True,
                )
    elapsed = time.perf_counter() - start
    print(f"\n{elapsed:.0f} s in all. Ties share wins; the field's row is its entrant with the best placing.")


if __name__ == "__main__":
    main()
