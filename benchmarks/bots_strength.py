"""Which example bot is stronger, by how much, and how fast? Seeded duplicate games, as Markdown.

    nice python benchmarks/bots_strength.py [--pairs strong:montecarlo,strong:greedy]
        [--players 2,3,4,5] [--deals 100] [--jobs 2]
        [--strong-iterations 2:4000,3:2300,4:2500,5:2500 | 2500 | --strong-move-time S]
        [--strong-candidates 8] [--strong-evidence P] [--strong-playout learned | greedy]
        [--strong-objective lead | mean] [--strong-horizon round | 4 | 4:4,5:5]
        [--mc-actions 4:59000,5:70000 | 12000 | --mc-iterations N | --mc-move-time S [--mc-clock process | wall]]
    nice python benchmarks/bots_strength.py --mc-calibrate 1.0 [--players 4,5] [--deals 40]

For a pair a:b at N seats each deal (seed `--seed` + d) is played twice: a's copies sit in one set
of seats and b's in the others, then the seats are swapped, so both bots hold every hand; the seats
a holds rotate and alternate between side by side and interleaved from deal to deal (at odd N a
has the majority in one game of each deal and b in the other). So each bot's fair share of tables
is 1/2 at every N.

Reported for a, with 95% intervals over deals (normal approximation, a deal's two games as one
sample): the share of tables a's copies win (ties split as the arena splits them), a's mean
points minus b's, a's mean placing minus b's (negative: better), and each bot's CPU ms per
answer (flip decisions included), and the Monte-Carlo bot's median deals per searched decision.
Both bots think by budgets of simulated actions, strong's and montecarlo's own defaults unless
told otherwise (`bots.strong.ITERATIONS`, `bots.montecarlo.ACTIONS`), with no time cap: they play
the same games on any machine under any load. `--mc-move-time S` makes montecarlo think by time
alone, with its Python rollout, as it did before it had a budget, its seconds read from
`time.process_time` (`--mc-clock process`, the default: its own CPU, the work S seconds of
wall-clock time buy on an idle core) or the wall clock (`--mc-clock wall`).

`--mc-calibrate S` plays no pairs: it measures, per table size, the actions montecarlo's Python
rollout simulates in S seconds of its own CPU a decision on this machine (the median over
`--deals` decisions of one montecarlo seat among greedy ones): the `--mc-actions` that stands for
"montecarlo given S seconds of CPU a move".
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bots import EXAMPLES, MonteCarloBot, StrongBot, make_example
from bots.montecarlo import ACTIONS as MC_ACTIONS
from bots.strong import ITERATIONS as STRONG_ITERATIONS
from sdk.bot import Bot
from sdk.engine import Flip, Game, Phase, observe


@dataclass(frozen=True)
class Deal:
    """One deal of a pair at a table size, and what a's copies scored over its two games."""

    players: int
    pair: tuple[str, str]
    index: int
    win_share: float
    points: float
    placing: float
    seconds: tuple[float, float]
    answers: tuple[int, int]
    mc_deals: tuple[int, ...]
    """Deals the Monte-Carlo copies searched, one entry per searched decision."""


def a_seats(players: int, deal: int) -> frozenset[int]:
    """The seats a holds in the first game of `deal`: side by side or interleaved, rotated."""
    half = (players + 1) // 2
    base = range(half) if deal % 2 == 0 else range(0, players, 2)
    shift = deal // 2
    return frozenset((s + shift) % players for s in base)


T = TypeVar("T")


def _by_table_size(text: str, defaults: Mapping[int, T], example: str) -> dict[int, T | int]:
    """`N` for every table size, or `SEATS:N` pairs over `defaults` (sizes left out keep theirs)."""
    try:
        if ":" not in text:
            return dict.fromkeys(defaults, int(text))
        found: dict[int, T | int] = dict(defaults)
        for item in text.split(","):
            seats, n = item.split(":")
            if int(seats) not in found:
                raise ValueError
            found[int(seats)] = int(n)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {example}, not {text!r}") from None
    return found


def per_table_size(text: str) -> dict[int, int]:
    """`2500` (every table size) or `2:4000,3:2300,...` (table sizes left out keep the default)."""
    budget = _by_table_size(text, STRONG_ITERATIONS, "a number or SEATS:N pairs like 2:4000,3:2300")
    if min(budget.values()) < 1:
        raise argparse.ArgumentTypeError(f"iterations are at least 1, not {text!r}")
    return budget


def mc_budget(text: str) -> dict[int, int]:
    """montecarlo's `--mc-actions`: `6000` (every table size) or `4:30000,5:33000`."""
    budget = _by_table_size(text, MC_ACTIONS, "a number or SEATS:N pairs like 4:30000,5:33000")
    if min(budget.values()) < 1:
        raise argparse.ArgumentTypeError(f"actions are at least 1, not {text!r}")
    return budget


def horizons(text: str) -> dict[int, int | None]:
    """`round` (every rollout to the round's end), `4` (every table size), or `4:4,5:5` (table
    sizes left out play to the round's end)."""
    to_the_end: dict[int, int | None] = dict.fromkeys(STRONG_ITERATIONS)
    if text == "round":
        return to_the_end
    found = _by_table_size(text, to_the_end, "round, a number or SEATS:N pairs like 4:4,5:5")
    if any(h is not None and h < 0 for h in found.values()):
        raise argparse.ArgumentTypeError(f"a horizon is 0 actions or more, not {text!r}")
    return found


def make(name: str, seed: int, players: int, args: argparse.Namespace) -> Bot:
    if name == "strong":
        return StrongBot(
            seed=seed,
            move_time=args.strong_move_time,
            iterations=10**12 if args.strong_iterations is None else args.strong_iterations[players],
            candidates=args.strong_candidates,
            evidence=args.strong_evidence,
            playout=args.strong_playout,
            objective=args.strong_objective,
            horizon=args.strong_horizon[players],
        )
    if name == "montecarlo":
        if args.mc_move_time is not None:  # thinking by time alone, as it did before it had a budget
            clock = time.process_time if args.mc_clock == "process" else time.perf_counter
            return MonteCarloBot(seed=seed, actions=10**12, move_time=args.mc_move_time, clock=clock, compiled=False)
        return MonteCarloBot(seed=seed, actions=args.mc_actions[players], iterations=args.mc_iterations, move_time=None)
    return make_example(name, seed)


def play(bots: Sequence[Bot], seed: int, mc_work: list[tuple[int, int]]) -> tuple[Game, list[float], list[int]]:
    """One game; each seat's CPU seconds answering and number of answers. Appends to `mc_work`
    the deals each Monte-Carlo decision searched and the actions its rollouts simulated."""
    game = Game(len(bots), seed)
    seconds = [0.0] * len(bots)
    answers = [0] * len(bots)
    while not game.is_over:
        seat = game.awaiting[0]
        obs = observe(game, seat)
        bot = bots[seat]
        start = time.process_time()
        answer = bot.flip(obs) if game.phase is Phase.FLIP else bot.choose(obs)
        seconds[seat] += time.process_time() - start
        answers[seat] += 1
        if isinstance(bot, MonteCarloBot) and game.phase is Phase.PLAY and len(obs.legal_actions) > 1:
            mc_work.append((bot.deals_done, bot.actions_done))
        game.apply(seat, Flip(answer) if game.phase is Phase.FLIP else answer)  # type: ignore[arg-type]
    return game, seconds, answers


def play_deal(task: tuple[int, tuple[str, str], int, argparse.Namespace]) -> Deal:
    players, (a, b), index, args = task
    seed = args.seed + index
    first = a_seats(players, index)
    share = points = placing = 0.0
    seconds = [0.0, 0.0]
    answers = [0, 0]
    mc_work: list[tuple[int, int]] = []
    for game_no, mine in enumerate((first, frozenset(range(players)) - first)):
        bots = [make(a if s in mine else b, seed * 100 + game_no * 10 + s, players, args) for s in range(players)]
        game, spent, count = play(bots, seed, mc_work)
        outcome = game.outcome
        assert outcome is not None
        winners = outcome.winners
        share += sum(s in mine for s in winners) / len(winners)
        theirs = [s for s in range(players) if s not in mine]
        points += _mean(outcome.totals, mine) - _mean(outcome.totals, theirs)
        placing += _mean(outcome.ranks, mine) - _mean(outcome.ranks, theirs)
        for s in range(players):
            side = 0 if s in mine else 1
            seconds[side] += spent[s]
            answers[side] += count[s]
    return Deal(
        players,
        (a, b),
        index,
        share / 2,
        points / 2,
        placing / 2,
        (seconds[0], seconds[1]),
        (answers[0], answers[1]),
        tuple(deals for deals, _ in mc_work),
    )


def calibrate(seconds: float, counts: Sequence[int], decisions: int, seed: int) -> None:
    """Print what montecarlo's Python rollout (`compiled=False`, as it ran before the C one) searches
    in `seconds` of its own CPU a decision on this machine, per table size: the median deals and
    simulated actions over `decisions` decisions of one montecarlo seat among greedy ones. The
    median actions is the budget (`--mc-actions`) that plays as `seconds` of that CPU did."""
    print(
        "| players | decisions | montecarlo deals/decision (median) | actions/decision (median, mean) | load average |"
    )
    print("|---|---|---|---|---|")
    for players in counts:
        work: list[tuple[int, int]] = []
        game = seed
        while len(work) < decisions:
            searcher = MonteCarloBot(
                seed=game, actions=10**12, move_time=seconds, clock=time.process_time, compiled=False
            )
            play([searcher, *(make_example("greedy") for _ in range(players - 1))], game, work)
            game += 1
        work = work[:decisions]
        actions = [a for _, a in work]
        print(
            f"| {players} | {len(work)} | {statistics.median(d for d, _ in work):.0f} "
            f"| {statistics.median(actions):.0f}, {statistics.mean(actions):.0f} | {os.getloadavg()[0]:.1f} |",
            flush=True,
        )


def _mean(values: Sequence[int], seats: Sequence[int] | frozenset[int]) -> float:
    return sum(values[s] for s in seats) / len(seats)


def interval(values: Sequence[float], sign: str = "+") -> str:
    """'mean ± half-width' of a 95% normal-approximation interval."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else float("nan")
    return f"{mean:{sign}.2f} ± {1.96 * sd / math.sqrt(n):.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="strong:montecarlo,strong:greedy", help="a:b pairs, comma-separated")
    parser.add_argument("--players", default="2,3,4,5", help="table sizes, comma-separated")
    parser.add_argument("--deals", type=int, default=100, help="deals per pair and table size (2 games each)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument(
        "--first-deal",
        type=int,
        default=0,
        help="play deals FIRST..FIRST+DEALS-1 of the seed: a run continued, its rows to be pooled with the first's",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--strong-iterations",
        type=per_table_size,
        default=None,
        help="strong: simulated actions per decision, one number or SEATS:N per table size "
        f"(default {','.join(f'{n}:{i}' for n, i in STRONG_ITERATIONS.items())})",
    )
    parser.add_argument("--strong-move-time", type=float, default=None, help="strong: seconds per decision")
    parser.add_argument("--strong-candidates", type=int, default=8, help="strong: greedy's best actions it searches")
    parser.add_argument(
        "--strong-playout",
        choices=("learned", "greedy"),
        default="learned",
        help="strong: how its rollouts play (bots.playout), the shipped learned weights or greedy's",
    )
    parser.add_argument(
        "--strong-objective",
        choices=("lead", "mean"),
        default="lead",
        help="strong: what a rollout's end is worth (StrongBot._margin): the lead blend, or the round margin alone",
    )
    parser.add_argument(
        "--strong-evidence",
        type=float,
        default=None,
        help="strong: the share of samples kept that the other seats' scouts speak against (default: no weighing)",
    )
    parser.add_argument(
        "--strong-horizon",
        type=horizons,
        default=horizons("round"),
        help="strong: actions each rollout plays after the move it judges before the round evaluation "
        "reads the rest: round (to the round's end), one number, or SEATS:N per table size",
    )
    parser.add_argument(
        "--mc-actions",
        type=mc_budget,
        default=dict(MC_ACTIONS),
        help="montecarlo: simulated actions per decision, one number or SEATS:N per table size "
        f"(default {','.join(f'{n}:{i}' for n, i in MC_ACTIONS.items())}, its own)",
    )
    parser.add_argument("--mc-iterations", type=int, default=None, help="montecarlo: deals per decision")
    parser.add_argument(
        "--mc-move-time",
        type=float,
        default=None,
        help="montecarlo: think by time alone, this many seconds a decision, with its Python rollout "
        "(as before it had a budget)",
    )
    parser.add_argument(
        "--mc-calibrate",
        type=float,
        default=None,
        metavar="SECONDS",
        help="only measure what montecarlo's Python rollout searches in SECONDS of its CPU a decision "
        "(--deals decisions per table size): its equivalent --mc-actions on this machine",
    )
    parser.add_argument(
        "--mc-clock",
        choices=("process", "wall"),
        default="process",
        help="montecarlo: its seconds are its own CPU time (process) or wall-clock time (wall)",
    )
    args = parser.parse_args(argv)
    try:
        counts = [int(n) for n in args.players.split(",")]
    except ValueError:
        parser.error(f"--players takes table sizes like 2,3,4,5, not {args.players!r}")
    if not all(2 <= n <= 5 for n in counts):
        parser.error(f"--players are table sizes from 2 to 5, not {args.players!r}")
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
    for pair in pairs:
        if len(pair) != 2 or not set(pair) <= set(EXAMPLES):
            parser.error(f"pairs are a:b with a and b among {', '.join(EXAMPLES)}, not {':'.join(pair)!r}")
    if args.strong_iterations is not None and args.strong_move_time is not None:
        parser.error("give strong --strong-iterations or --strong-move-time, not both")
    if args.strong_iterations is None and args.strong_move_time is None:
        args.strong_iterations = STRONG_ITERATIONS
    if args.strong_candidates < 1:
        parser.error(f"--strong-candidates is at least 1, not {args.strong_candidates}")
    if args.strong_evidence is not None and not 0 < args.strong_evidence <= 1:
        parser.error(f"--strong-evidence is a probability above 0, not {args.strong_evidence}")
    if args.mc_move_time is not None and args.mc_move_time <= 0:
        parser.error(f"--mc-move-time is above 0 seconds, not {args.mc_move_time}")
    if args.mc_calibrate is not None:
        if args.mc_calibrate <= 0:
            parser.error(f"--mc-calibrate is above 0 seconds, not {args.mc_calibrate}")
        print(f"$ python benchmarks/bots_strength.py {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
        calibrate(args.mc_calibrate, counts, args.deals, args.seed)
        return
    if args.first_deal < 0:
        parser.error(f"--first-deal is a deal number, 0 or more, not {args.first_deal}")

    print(f"$ python benchmarks/bots_strength.py {' '.join(sys.argv[1:] if argv is None else argv)}".rstrip())
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, {args.jobs} jobs; "
        f"load average at start {os.getloadavg()[0]:.1f}\n"
    )
    print(
        "| players | a vs b | deals (games) | a's table-win share | a − b points | a − b placing "
        "| a CPU ms/answer | b CPU ms/answer | montecarlo deals/decision |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    deals = range(args.first_deal, args.first_deal + args.deals)
    tasks = [(n, pair, d, args) for pair in pairs for n in counts for d in deals]
    start = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        done: dict[tuple[int, tuple[str, str]], list[Deal]] = {}
        for deal in pool.imap(play_deal, tasks):
            key = (deal.players, deal.pair)
            done.setdefault(key, []).append(deal)
            if len(done[key]) == args.deals:
                _print_row(deal.players, deal.pair, done.pop(key))
    print(f"\n{time.perf_counter() - start:.0f} s wall in all. Fair share of tables: 0.50 at every table size.")


def _print_row(players: int, pair: tuple[str, str], deals: list[Deal]) -> None:
    share = interval([d.win_share for d in deals], sign="")
    points = interval([d.points for d in deals])
    placing = interval([d.placing for d in deals])
    ms = [1000 * sum(d.seconds[i] for d in deals) / max(1, sum(d.answers[i] for d in deals)) for i in (0, 1)]
    mc_deals = [n for d in deals for n in d.mc_deals]
    median = f"{statistics.median(mc_deals):.0f}" if mc_deals else "–"
    print(
        f"| {players} | {pair[0]} vs {pair[1]} | {len(deals)} ({2 * len(deals)}) | {share} | {points} "
        f"| {placing} | {ms[0]:.1f} | {ms[1]:.1f} | {median} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
