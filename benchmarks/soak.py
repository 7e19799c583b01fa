"""Soak: many connected bots and many games in flight on loopback for a long time.

    .venv/bin/python benchmarks/soak.py [--minutes 10] [--bots 200] [--games 1000]
        [--bot-processes 4] [--sample-seconds 30] [--move-ms 30000] [--stall-seconds 60]
        [--drain-seconds 600]

This process runs the arena (`arena.startup.arena.start_arena`, in memory) and keeps `--games` games in
flight, each of 2–5 seats drawn from the least busy of `--bots` random bots; the bots are
`sdk.runner` sessions spread over `--bot-processes` client processes (this script again, in client
mode), answering at once with a random legal action. The move limit is generous (`--move-ms`) so
that an overloaded arena shows up as latency, not as forfeits; forfeits are counted anyway.

Reported every `--sample-seconds`: decisions/s over the interval, p50/p99 decision overhead (the
referee's round trip per decision: request queued to answer applied, which for a bot that answers at
once is all arena, gRPC and loopback cost), the arena's RSS, games finished and forfeits, and the
most games seen stalled so far. A game is stuck when neither its public events nor its requests have
moved for `--stall-seconds` (0 expected). At the end no new game starts and the games in flight are
drained until they are done, all remaining ones are stuck, or `--drain-seconds` pass. Exit status 1
if a game stalled, failed or did not finish.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from _arena import rss_mb

if TYPE_CHECKING:
    from arena.play.sessions import SessionHub

CONNECT_S = 120.0
"""Bound on the wait for every bot to connect before the first game starts."""


@dataclass
class Stats:
    """What the soak has measured so far; `answers` is emptied at each sample."""

    answers: list[float] = field(default_factory=list)
    finished: int = 0
    in_flight: int = 0
    forfeits: int = 0
    failed: list[str] = field(default_factory=list)

    def record(self, seconds: float) -> None:
        self.answers.append(seconds)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Stalls:
    """Counts the games in flight whose event count and request count have not moved for `seconds`."""

    def __init__(self, hub: SessionHub, seconds: float) -> None:
        self._hub = hub
        self._seconds = seconds
        self._last_change: dict[str, tuple[tuple[int, int], float]] = {}

    def __call__(self, now: float) -> int:
        seen = {}
        for conn in list(self._hub._bots.values()):
            for game_id, table in conn.live_games.items():
                seen[game_id] = (len(table.game.events), len(table.asked))  # type: ignore[attr-defined]
        for game_id, mark in seen.items():
            if game_id not in self._last_change or self._last_change[game_id][0] != mark:
                self._last_change[game_id] = (mark, now)
        for game_id in set(self._last_change) - set(seen):
            del self._last_change[game_id]
        return sum(1 for _, since in self._last_change.values() if now - since > self._seconds)


async def drain(tables: list[asyncio.Task[None]], stalled: Stalls, bound_s: float) -> tuple[float, int]:
    """Wait for the games in flight to finish, until every one left is stuck or `bound_s` pass;
    the seconds it took and the games stuck at the end."""
    start = time.monotonic()
    stuck = 0
    while any(not t.done() for t in tables):
        await asyncio.sleep(1.0)
        now = time.monotonic()
        stuck = stalled(now)
        running = sum(1 for t in tables if not t.done())
        if stuck == running or now - start > bound_s:
            break
    return time.monotonic() - start, stuck


async def soak(args: argparse.Namespace) -> int:
    from arena.play.referee import Limits
    from arena.play.sessions import Unavailable
    from arena.startup.arena import start_arena, tune_gc
    from arena.startup.settings import ArenaSettings

    stats = Stats()
    server = await start_arena(ArenaSettings(port=0), on_answer=stats.record)
    tune_gc()  # as `arena.startup.arena.serve` does in the arena process
    target = f"127.0.0.1:{server.port}"
    names = [f"soak-{i}" for i in range(args.bots)]
    tokens = [await server.directory.register(name) for name in names]
    capacity = min(64, max(4, -(-args.games * 5 // args.bots)))
    per_process = -(-args.bots // args.bot_processes)
    clients = [
        subprocess.Popen(
            [sys.executable, __file__, "--bot-client", target, str(capacity), *tokens[i : i + per_process]],
            stderr=subprocess.DEVNULL,
        )
        for i in range(0, args.bots, per_process)
    ]
    deadline = time.monotonic() + CONNECT_S
    while sum(1 for n in names if (c := server.hub.get(n)) is not None and c.connected) < args.bots:
        if time.monotonic() > deadline:
            print(f"not every bot connected within {CONNECT_S} s", flush=True)
            return 1
        await asyncio.sleep(0.1)
    limits = Limits(move_ms=args.move_ms, time_bank_ms=0, grace_ms=args.move_ms)
    seated = [0] * args.bots
    stop = asyncio.Event()

    async def table(index: int) -> None:
        rng = random.Random(index)
        game = 0
        while not stop.is_set():
            players = rng.randint(2, 5)
            order = sorted(range(args.bots), key=lambda b: (seated[b], rng.random()))[:players]
            for b in order:
                seated[b] += 1
            stats.in_flight += 1
            try:
                result = await server.referee.play(
                    f"s{index}-{game}", [names[b] for b in order], rng.getrandbits(64), limits
                )
                stats.finished += 1
                stats.forfeits += sum(s.forfeit is not None for s in result.seats)
            except Unavailable as exc:
                stats.failed.append(f"table {index} game {game}: {exc}")  # every bot was connected
                await asyncio.sleep(1.0)
            except Exception as exc:
                stats.failed.append(f"table {index} game {game}: {exc!r}")
            finally:
                stats.in_flight -= 1
                for b in order:
                    seated[b] -= 1
            game += 1

    stalled = Stalls(server.hub, args.stall_seconds)
    print(
        f"{'t (s)':>7} {'decisions/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'RSS MB':>8} {'finished':>9} "
        f"{'forfeits':>9} {'in flight':>9} {'stalled':>8}",
        flush=True,
    )
    tables = [asyncio.create_task(table(i)) for i in range(args.games)]
    start = last = next_sample = time.monotonic()
    rss: list[float] = []
    overheads: list[float] = []
    total_decisions = 0
    most_stalled = 0
    end = start + args.minutes * 60
    while (now := time.monotonic()) < end:
        await asyncio.sleep(min(1.0, end - now))
        now = time.monotonic()
        most_stalled = max(most_stalled, stalled(now))
        if now < next_sample + args.sample_seconds and now < end:
            continue
        next_sample = now
        answers, stats.answers = stats.answers, []
        total_decisions += len(answers)
        overheads += random.Random(len(overheads)).sample(answers, min(len(answers), 20_000))
        rss.append(rss_mb())
        print(
            f"{now - start:7.0f} {len(answers) / (now - last):12.0f} {percentile(answers, 0.5) * 1000:8.2f} "
            f"{percentile(answers, 0.99) * 1000:8.2f} {rss[-1]:8.1f} {stats.finished:9d} {stats.forfeits:9d} "
            f"{stats.in_flight:9d} {most_stalled:8d}",
            flush=True,
        )
        last = now
    elapsed = time.monotonic() - start
    stop.set()
    drained, stuck = await drain(tables, stalled, args.drain_seconds)
    unfinished = [t for t in tables if not t.done()]
    for task in unfinished:
        task.cancel()
    for client in clients:
        client.kill()
        client.wait(timeout=10)
    await server.stop(0)
    print(f"\n{args.bots} bots, {args.games} games in flight, {elapsed / 60:.1f} min, {os.cpu_count()} cores")
    print(
        f"decisions: {total_decisions} ({total_decisions / elapsed:.0f}/s); games finished: {stats.finished}; "
        f"forfeits: {stats.forfeits}; failed games: {len(stats.failed)}"
    )
    print(
        f"decision overhead p50 {percentile(overheads, 0.5) * 1000:.2f} ms, "
        f"p99 {percentile(overheads, 0.99) * 1000:.2f} ms"
    )
    if rss:
        print(
            f"arena RSS: first sample {rss[0]:.1f} MB, min {min(rss):.1f}, max {max(rss):.1f}, last {rss[-1]:.1f}, "
            f"median {statistics.median(rss):.1f}"
        )
    print(f"drain: the last games took {drained:.0f} s to finish after the last start; unfinished: {len(unfinished)}")
    print(
        f"stuck games (no progress for {args.stall_seconds:g} s): most at any sample {most_stalled}, at the end {stuck}"
    )
    for line in stats.failed[:10]:
        print("  failed:", line)
    return 1 if most_stalled or stuck or unfinished or stats.failed else 0


async def bot_client(target: str, capacity: int, tokens: list[str]) -> None:
    from sdk import Action, Bot, Observation
    from sdk.runner import run_async

    class RandomBot(Bot):
        """Answers at once with a random legal action."""

        def choose(self, obs: Observation) -> Action:
            actions = obs.legal_actions
            return actions[random.randrange(len(actions))]

    await asyncio.gather(*(run_async(RandomBot(), target=target, token=t, capacity=capacity) for t in tokens))


def main() -> None:
    if sys.argv[1:2] == ["--bot-client"]:
        logging.basicConfig(level=logging.CRITICAL)
        asyncio.run(bot_client(sys.argv[2], int(sys.argv[3]), sys.argv[4:]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--games", type=int, default=1000, help="games kept in flight")
    parser.add_argument("--bot-processes", type=int, default=4)
    parser.add_argument("--sample-seconds", type=float, default=30.0)
    parser.add_argument("--move-ms", type=int, default=30_000)
    parser.add_argument("--drain-seconds", type=float, default=600.0, help="bound on the final drain")
    parser.add_argument("--stall-seconds", type=float, default=60.0, help="no progress this long: stuck")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    print("command: .venv/bin/python", " ".join(sys.argv), flush=True)
    print(f"started {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}", flush=True)
    sys.exit(asyncio.run(soak(args)))


if __name__ == "__main__":
    main()
