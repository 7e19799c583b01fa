"""Scale inside one arena (issue 18): the arena at 64 to 4,000 games in flight, against a bare gRPC
ping-pong with as many streams measured in the same run.

    .venv/bin/python benchmarks/arena_scale.py [--quick] [--games 64,256,1000,4000]
        [--per-bot 4,16,64,250] [--players 4] [--seconds 5] [--bot-processes 4]
    .venv/bin/python benchmarks/arena_scale.py --latency [--games 64,1000] [--per-bot 16]
        [--think-ms 500,2000] [--jitter-ms 100] [--seconds 20]
    .venv/bin/python benchmarks/arena_scale.py --idle [--idle-bots 1000] [--seconds 20]
    .venv/bin/python benchmarks/arena_scale.py --soak 10 [--games 1000] [--per-bot 16]

The phases are those of `arena_throughput.py` and `_arena.py` (this script imports them): the
arena runs in this process, the bots (`sdk.runner` sessions answering with a random legal action)
in client processes, and every bot is connected and every game started before a window opens.

* Scaling (the default): for each number of games in flight, the baseline with one stream per game
  (as many round trips in flight), then the arena with each games-per-bot shape: `games * players /
  per-bot` bot sessions (at least `players`; the shape is then capped, and the table says so).
  Reported per cell: decisions/s, the arena's CPU per decision, both as ratios to the baseline, and
  the arena process's RSS per game in flight (`Cell.rss_per_game_kb`). Each arena cell runs in a
  process of its own. Then, per games-per-bot
  shape, CPU per decision at each size against its value at the smallest (target: within 1.3x at
  1,000 games).
* `--latency`: bots think `--think-ms` (each answer `think` +- `--jitter-ms`, drawn from the
  request's ids, `_arena.think_s`), so the machine is not saturated. Reported: the
  arena-side overhead per decision (the round trip the arena saw from queueing the request to
  reading the answer, less the bot's think time: the arena, gRPC, loopback and the SDK's own
  handling) p50/p99/p99.9, the arena's CPU as a share of a core and per decision, and that CPU per
  decision against the same shape with bots answering at once, measured in the same run.
* `--idle`: `--idle-bots` connected bots and no game: the arena's CPU as a share of a core (target
  below 2%).
* `--soak M`: the first `--games` and `--per-bot` shape kept in flight for M minutes, the arena's
  RSS sampled every 30 s: no growth beyond the games' own state is expected.

The machine these run on is often shared: read the ratios against the baseline of the same run and
the "other processes" figure, not the absolute rates.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import grpc
from _arena import Arena, Shape, rss_mb, think_s
from arena_throughput import Window, baseline

SOAK_SAMPLE_S = 30.0


def shape_for(games: int, per_bot: int, players: int, processes: int, **think: float) -> Shape:
    bots = max(players, -(-games * players // per_bot))
    return Shape(games, players, bots, min(processes, bots), **think)


@dataclass
class Cell:
    """What one arena cell measured, in a process of its own (`run_cell`)."""

    per_second: float
    cpu_us: float
    cores: float
    """The arena's CPU over the window, as a share of one core."""
    other_cores: float
    rss_per_game_kb: float
    """RSS once every game ran through the warm-up and the window, less RSS with the bots
    connected and no game, over the games: in a fresh process, so no earlier cell's memory is
    reused."""
    writes_per_decision: float
    messages_per_write: float
    overhead_ms: tuple[float, float, float] = (float("nan"),) * 3
    """p50, p99 and p99.9 of the arena-side overhead per decision (thinking bots only)."""


def run_cell(shape: Shape, seconds: float) -> Cell:
    """Measure `shape` in a new process of this script (`cell_mode`)."""
    fields = [shape.games, shape.players, shape.bots, shape.processes, shape.think_ms, shape.jitter_ms, seconds]
    out = subprocess.run(
        [sys.executable, __file__, "--cell", *map(str, fields)], check=True, capture_output=True, text=True
    ).stdout
    return Cell(**json.loads(out.splitlines()[-1]))


def count_writes(window: Window) -> list[int]:
    """Count the arena's writes to bot streams and their messages while `window` is open."""
    from arena.play.sessions import Stream

    counts = [0, 0]
    next_batch = Stream.next_batch

    async def counted(stream: Stream) -> list[object]:
        batch = await next_batch(stream)
        if window.open and batch:
            counts[0] += 1
            counts[1] += len(batch)
        return batch  # type: ignore[return-value]

    Stream.next_batch = counted  # type: ignore[method-assign,assignment]
    return counts


async def measure_cell(shape: Shape, seconds: float) -> Cell:
    from sdk.protocol import Decision

    window = Window()
    writes = count_writes(window)
    thinking = bool(shape.think_ms or shape.jitter_ms)
    bench = Arena(shape, None if thinking else window.record)
    try:
        await bench.connect()
        window.clients += bench.pids
        if thinking:
            hub = bench.server.hub
            receive = hub.receive

            def timed(conn, msg):  # type: ignore[no-untyped-def]  (the hub's own signature)
                """The round trip of each answer as the referee will count it, less the think time."""
                if window.open and type(msg) is Decision:
                    table = conn.live_games.get(msg.game_id)
                    req = table.requests.get(msg.request_id) if table is not None else None
                    if req is not None and req.started is not None and not req.closed:
                        used = req.used + hub.clock.time() - req.started
                        think = think_s(shape.think_ms, shape.jitter_ms, msg.game_id, msg.request_id)
                        window.overheads.append(used - think)
                        window.record(used)
                receive(conn, msg)

            hub.receive = timed  # type: ignore[method-assign]
        before = rss_mb()
        await bench.start()
        got = await window.measure(seconds)
        return Cell(
            got.per_second,
            got.cpu_us,
            got.cpu_seconds / got.seconds,
            got.other_cpu_seconds / got.seconds,
            (rss_mb() - before) * 1024 / shape.games,
            writes[0] / max(1, got.count),
            writes[1] / max(1, writes[0]),
            overhead_quantiles(window.overheads),
        )
    finally:
        await bench.close()


def cell_mode(argv: list[str]) -> None:
    games, players, bots, processes = (int(x) for x in argv[:4])
    think_ms, jitter_ms, seconds = (float(x) for x in argv[4:7])
    logging.basicConfig(level=logging.CRITICAL)
    from arena.startup.arena import tune_gc

    tune_gc()
    cell = asyncio.run(measure_cell(Shape(games, players, bots, processes, False, think_ms, jitter_ms), seconds))
    print(json.dumps(dataclasses.asdict(cell)))


def overhead_quantiles(overheads: list[float]) -> tuple[float, float, float]:
    return quantile(overheads, 0.5), quantile(overheads, 0.99), quantile(overheads, 0.999)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


def scaling(args: argparse.Namespace) -> None:
    print(
        f"{'games':>6} {'per bot':>7} {'bots':>5} {'decisions/s':>11} {'CPU us':>7} {'base/s':>7} "
        f"{'base us':>7} {'thru x':>6} {'CPU x':>6} {'RSS KB/game':>11} {'writes':>6} {'msgs':>5} {'others':>6}",
        flush=True,
    )
    cpu: dict[int, dict[int, float]] = {}
    for games in args.games:
        base = asyncio.run(baseline(games, args.seconds))
        for per_bot in args.per_bot:
            shape = shape_for(games, per_bot, args.players, args.bot_processes)
            got = run_cell(shape, args.seconds)
            cpu.setdefault(per_bot, {})[games] = got.cpu_us
            capped = "" if shape.capacity == per_bot else f" (asked {per_bot} per bot: {shape.capacity})"
            print(
                f"{games:6d} {per_bot:7d} {shape.bots:5d} {got.per_second:11.0f} {got.cpu_us:7.0f} "
                f"{base.per_second:7.0f} {base.cpu_us:7.0f} {got.per_second / base.per_second:6.2f} "
                f"{got.cpu_us / base.cpu_us:6.2f} {got.rss_per_game_kb:11.1f} "
                f"{got.writes_per_decision:6.2f} {got.messages_per_write:5.1f} {got.other_cores:5.1f}c{capped}",
                flush=True,
            )
    smallest = args.games[0]
    print(f"\nCPU per decision against {smallest} games, per games-per-bot shape (target at 1000: <= 1.30):")
    for per_bot, by_games in cpu.items():
        line = "  ".join(f"{g}: {us / by_games[smallest]:.2f}" for g, us in by_games.items())
        print(f"  {per_bot:4d} per bot   {line}")


def latency(args: argparse.Namespace) -> None:
    per_bot, players, processes = args.per_bot[0], args.players, args.bot_processes
    print(
        f"{'games':>6} {'per bot':>7} {'think ms':>8} {'decisions/s':>11} {'overhead p50':>12} {'p99':>7} "
        f"{'p99.9 ms':>8} {'arena cores':>11} {'CPU us':>7} {'vs at once':>10} {'writes':>6} {'msgs':>5} "
        f"{'others':>6}",
        flush=True,
    )
    for games in args.games:
        shape = shape_for(games, per_bot, players, processes)
        saturated = run_cell(shape, args.seconds)
        print(
            f"{games:6d} {shape.capacity:7d} {'at once':>8} {saturated.per_second:11.0f} "
            f"{'':>12} {'':>7} {'':>8} {saturated.cores:11.3f} {saturated.cpu_us:7.0f} {'':>10} "
            f"{saturated.writes_per_decision:6.2f} {saturated.messages_per_write:5.1f} {saturated.other_cores:5.1f}c",
            flush=True,
        )
        for think in args.think_ms:
            shape = shape_for(games, per_bot, players, processes, think_ms=think, jitter_ms=args.jitter_ms)
            got = run_cell(shape, args.seconds)
            p50, p99, p999 = got.overhead_ms
            print(
                f"{games:6d} {shape.capacity:7d} {think:8.0f} {got.per_second:11.0f} {p50:12.2f} {p99:7.2f} "
                f"{p999:8.2f} {got.cores:11.3f} {got.cpu_us:7.0f} {got.cpu_us / saturated.cpu_us:10.2f} "
                f"{got.writes_per_decision:6.2f} {got.messages_per_write:5.1f} {got.other_cores:5.1f}c",
                flush=True,
            )
            base = asyncio.run(baseline(games, args.seconds, think, args.jitter_ms))
            p50, p99, p999 = overhead_quantiles(base.overheads)
            print(
                f"{'base':>6} {'':>7} {think:8.0f} {base.per_second:11.0f} {p50:12.2f} {p99:7.2f} {p999:8.2f} "
                f"{base.cpu_seconds / base.seconds:11.3f} {base.cpu_us:7.0f} {'':>10} {'':>6} {'':>5} "
                f"{base.other_cpu_seconds / base.seconds:5.1f}c",
                flush=True,
            )


async def idle(bots: int, processes: int, seconds: float) -> None:
    bench = Arena(Shape(games=1, players=1, bots=bots, processes=min(processes, bots)), None)
    try:
        await bench.connect()
        await asyncio.sleep(2.0)  # the connections settle
        wall, cpu = time.perf_counter(), time.process_time()
        await asyncio.sleep(seconds)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"idle arena, {bots} bots connected, no game: {cpu / wall * 100:.2f}% of a core over {wall:.0f} s")
        print(f"arena RSS {rss_mb():.0f} MB")
    finally:
        await bench.close()


async def soak(shape: Shape, minutes: float) -> None:
    window = Window()
    bench = Arena(shape, window.record)
    try:
        await bench.connect()
        connected = rss_mb()
        await bench.start()
        print(f"{'t (s)':>6} {'decisions/s':>11} {'RSS MB':>7}  (bots connected, no game: {connected:.1f} MB)")
        samples: list[float] = []
        start = time.monotonic()
        while time.monotonic() - start < minutes * 60:
            window.open, window.round_trips = True, []
            await asyncio.sleep(SOAK_SAMPLE_S)
            samples.append(rss_mb())
            elapsed = time.monotonic() - start
            print(f"{elapsed:6.0f} {len(window.round_trips) / SOAK_SAMPLE_S:11.0f} {samples[-1]:7.1f}", flush=True)
        print(
            f"RSS: first sample {samples[0]:.1f} MB, last {samples[-1]:.1f}, max {max(samples):.1f}, "
            f"median {statistics.median(samples):.1f}; growth first to last {samples[-1] - samples[0]:+.1f} MB"
        )
    finally:
        await bench.close()


def numbers(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main() -> None:
    if sys.argv[1:2] == ["--cell"]:
        cell_mode(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=numbers, default=None, help="games in flight, comma-separated")
    parser.add_argument("--per-bot", type=numbers, default=None, help="games per bot session, comma-separated")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--seconds", type=float, default=None, help="measuring window of each cell")
    parser.add_argument("--bot-processes", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="a smaller grid: 64 and 256 games, 4 and 64 per bot")
    parser.add_argument("--latency", action="store_true", help="bots think: overhead percentiles and CPU")
    parser.add_argument("--think-ms", type=numbers, default=[500, 2000])
    parser.add_argument("--jitter-ms", type=float, default=100.0)
    parser.add_argument("--idle", action="store_true", help="connected bots, no game: the arena's CPU")
    parser.add_argument("--idle-bots", type=int, default=1000)
    parser.add_argument("--soak", type=float, default=None, metavar="MINUTES", help="RSS over a long run")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    from google.protobuf.internal import api_implementation

    from arena.startup.arena import tune_gc

    tune_gc()  # as the arena process does: every phase runs with it
    print("command: .venv/bin/python", " ".join(sys.argv))
    print(
        f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()[0]:.1f}; "
        f"protobuf {api_implementation.Type()}, grpcio {grpc.__version__}, {os.cpu_count()} cores",
        flush=True,
    )
    if args.idle:
        asyncio.run(idle(args.idle_bots, args.bot_processes, args.seconds or 20.0))
    elif args.soak is not None:
        shape = shape_for((args.games or [1000])[0], (args.per_bot or [16])[0], args.players, args.bot_processes)
        asyncio.run(soak(shape, args.soak))
    elif args.latency:
        args.games = args.games or [64, 1000]
        args.per_bot = args.per_bot or [16]
        args.seconds = args.seconds or 20.0
        latency(args)
    else:
        args.games = args.games or ([64, 256] if args.quick else [64, 256, 1000, 4000])
        args.per_bot = args.per_bot or ([4, 64] if args.quick else [4, 16, 64, 250])
        args.seconds = args.seconds or (3.0 if args.quick else 5.0)
        scaling(args)
    print(f"ended {time.strftime('%H:%M UTC', time.gmtime())}, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
