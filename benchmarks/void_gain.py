"""Benchmark: what a bot gains by dropping its connection whenever it is dealt a weak hand.

Two tournaments of the same seed, schedule and opponents (three greedy bots) at 3-seat tables,
played by the real tournament runner, failure policy and store on a SQLite file: in one the
fourth entrant is a greedy bot that disconnects on a weak hand (tests/security/void_play.py), in
the other its honest twin. Printed for each: the subject's rating (mu, mu - 3 sigma), its points
per counted game, voids it caused and games it forfeited, and the cheater's gain over the twin.
Run under the default failure policy; with `--thrifty` also with a cheater that drops only the
weak hands its void allowance covers (once a game) and plays every other hand out; with
`--uncapped` also with the per-bot void cap (and the per-game replay cap) at their maximum.

A tournament voids only a few games, so `--replays N` measures the deal itself, over many: for
each of the deals of seeds 0..N-1 that gives seat 0 of a 3-seat greedy table a weak hand in some
round, seat 0's final points in the game as dealt, and in its replay (the next attempt's seed)
dealt as the arena deals it (seat 0 keeps its hands) and wholly afresh (as before issue #30):
the mean gain of a drop, with its standard error.

    .venv/bin/python benchmarks/void_gain.py [--games-per-table 30] [--seed 2026] [--thrifty] [--uncapped]
    .venv/bin/python benchmarks/void_gain.py --replays 4000
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.play.results import PolicyDecision
from arena.storage.database import open_database
from arena.tournaments.failure_policy import MAX_REPLAYS, MAX_VOIDS_PER_BOT, FailurePolicy
from arena.tournaments.fairness import attempt_seed
from bots.greedy import GreedyBot
from sdk.engine import Flip, Game, Kept, Phase, deal_rounds, observe
from tests.security.void_play import CHEATER, HONEST, Outcome, play, weak

REPLAY_SEAT = 0


def greedy_points(seed: int, kept: Kept | None = None) -> int:
    """Seat `REPLAY_SEAT`'s points in a 3-seat game of greedy bots dealt from `seed` (and `kept`)."""
    bot, game = GreedyBot(), Game(3, seed, kept=kept)
    while not game.is_over:
        seat = game.awaiting[0]
        obs = observe(game, seat)
        game.apply(seat, Flip(bot.flip(obs)) if game.phase is Phase.FLIP else bot.choose(obs))
    return game.totals[REPLAY_SEAT]


def replays(deals: int) -> None:
    """The gain of dropping a weak hand, per deal: the replay's points less the deal's own."""
    kept, fresh = [], []
    for seed in range(deals):
        hands = tuple(deal[REPLAY_SEAT] for deal in deal_rounds(3, seed))
        if not any(weak(hand) for hand in hands):
            continue
        dealt = greedy_points(seed)
        again = attempt_seed(seed, 0, 0, 2)
        kept.append(greedy_points(again, {REPLAY_SEAT: hands}) - dealt)
        fresh.append(greedy_points(again) - dealt)
    for label, gains in (("kept hands (the arena's replay)", kept), ("dealt afresh (before)", fresh)):
        error = statistics.stdev(gains) / len(gains) ** 0.5
        print(f"  {label:<32} {len(gains)} weak deals: gain {statistics.mean(gains):+.2f} ± {error:.2f} points a game")


def line(label: str, o: Outcome) -> str:
    forfeits = o.forfeits(PolicyDecision.BOT_VOID_CAP_REACHED) + o.forfeits(PolicyDecision.CAP_REACHED)
    return (
        f"  {label:<8} mu {o.rating.mu:6.2f}  mu-3sigma {o.rating.conservative:6.2f}  "
        f"points/game {o.points / o.rating.games:6.2f}  games {o.rating.games}  weak hands dropped {o.drops:3d}  "
        f"voids caused {o.voids:3d}  forfeited at a cap {forfeits:3d}"
    )


def compare(label: str, policy: FailurePolicy, args: argparse.Namespace, folder: Path, thrifty: bool = False) -> None:
    engine = open_database(f"sqlite:///{folder / f'{label}.db'}")
    start = time.perf_counter()
    cheat = play(engine, "cheat", CHEATER, args.games_per_table, args.seed, policy, timeout_s=3600, thrifty=thrifty)
    honest = play(engine, "honest", HONEST, args.games_per_table, args.seed, policy, timeout_s=3600)
    engine.dispose()
    print(
        f"{label} (max_voids_per_bot {policy.max_voids_per_bot}, max_replays {policy.max_replays}), "
        f"{time.perf_counter() - start:.0f} s:"
    )
    print(line("cheater", cheat))
    print(line("honest", honest))
    print(
        f"  cheater - honest: mu {cheat.rating.mu - honest.rating.mu:+.2f}, "
        f"mu-3sigma {cheat.rating.conservative - honest.rating.conservative:+.2f}, "
        f"points/game {cheat.points / cheat.rating.games - honest.points / honest.rating.games:+.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games-per-table", type=int, default=30, help="4 tables: the subject plays 3 in 4 games")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--thrifty", action="store_true", help="also play a cheater that spends only its allowed voids")
    parser.add_argument("--uncapped", action="store_true", help="also play with the caps at their maximum")
    parser.add_argument("--replays", type=int, metavar="N", help="measure the replay's deal over seeds 0..N-1 instead")
    args = parser.parse_args()
    print("command:", shlex.join([".venv/bin/python", "benchmarks/void_gain.py", *sys.argv[1:]]))
    if args.replays is not None:
        replays(args.replays)
        return
    with tempfile.TemporaryDirectory() as tmp:
        compare("default policy", FailurePolicy(absent_wait_ms=0), args, Path(tmp))
        if args.thrifty:
            compare("thrifty cheater", FailurePolicy(absent_wait_ms=0), args, Path(tmp), thrifty=True)
        if args.uncapped:
            uncapped = FailurePolicy(absent_wait_ms=0, max_replays=MAX_REPLAYS, max_voids_per_bot=MAX_VOIDS_PER_BOT)
            compare("uncapped", uncapped, args, Path(tmp))


if __name__ == "__main__":
    main()
