"""Arena throughput over loopback, against a bare gRPC ping-pong measured in the same run.

    .venv/bin/python benchmarks/arena_throughput.py [--games 64] [--players 4] [--seconds 5]
        [--repeat 3] [--bots 16] [--bot-processes 2] [--legal-actions]

This process is the server in both phases; clients run in subprocesses (this script again, in
client mode), so "server CPU" is this process's CPU time over the measuring window.

1. Baseline: a bare grpc.aio bidirectional stream service; the server writes a ~500-byte message,
   the client answers ~20 bytes, repeated, on `--games` streams at once.
2. Arena: the real arena server (`arena.startup.arena.start_arena`) keeps `--games` games of
   `--players` random bots running; the bots are `sdk.runner` sessions (`--bots` of them, spread
   over `--bot-processes` processes, each seated in games up to its capacity) with the SDK's
   defaults: they compute legal actions themselves unless `--legal-actions` has the arena list them.
   Every bot is connected and every game started before the warm-up (`Arena`), so the window
   measures play alone. `arena_scale.py` runs the same phases over a grid of shapes.

Reported: round trips (decisions) per second, server CPU per round trip (decision), the round
trip seen by the server (request written to answer read) p50/p99, the clients' CPU, and how many
cores other processes of the machine used meanwhile (they skew everything: look at it first).
The two phases alternate `--repeat` times; the closing line gives the median arena/baseline
ratios (targets: throughput >= 0.5, CPU per decision <= 2.0).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from _arena import Arena, Shape, think_s

REQUEST = b"r" * 500
REPLY = b"a" * 20
PING_METHOD = "/bench.PingPong/Play"
WARMUP_S = 1.5


@dataclass
class Figures:
    """What one phase measured over its window."""

    count: int
    seconds: float
    cpu_seconds: float
    client_cpu_seconds: float
    other_cpu_seconds: float
    round_trips: list[float]
    overheads: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.count / self.seconds

    @property
    def cpu_us(self) -> float:
        return self.cpu_seconds / self.count * 1e6

    def percentile(self, q: float) -> float:
        return (
            statistics.quantiles(self.round_trips, n=100)[q - 1] * 1e6 if len(self.round_trips) > 100 else float("nan")
        )

    def line(self, what: str) -> str:
        return (
            f"{what:<34} {self.per_second:7.0f}/s  server CPU {self.cpu_us:5.0f} us each  "
            f"round trip p50 {self.percentile(50):6.0f} us p99 {self.percentile(99):6.0f} us  "
            f"clients' CPU {self.client_cpu_seconds / self.count * 1e6:4.0f} us each  "
            f"other processes {self.other_cpu_seconds / self.seconds:3.1f} cores"
        )


def machine_cpu_seconds() -> float:
    """CPU time the whole machine has spent busy, from /proc/stat (Linux)."""
    with open("/proc/stat") as stat:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in stat.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of processes, from /proc (Linux)."""
    ticks = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class Window:
    """Counts events and round trips between `start()` and `stop()`, with the process's CPU time."""

    def __init__(self, clients: list[int] | None = None) -> None:
        self.open = False
        self.round_trips: list[float] = []
        self.overheads: list[float] = []
        """Round trips less the other end's think time, for phases whose other end thinks."""
        self.clients: list[int] = clients or []

    def record(self, seconds: float) -> None:
        if self.open:
            self.round_trips.append(seconds)

    async def measure(self, seconds: float) -> Figures:
        await asyncio.sleep(WARMUP_S)
        ours = [os.getpid(), *self.clients]
        wall, cpu, clients, machine = (
            time.perf_counter(),
            time.process_time(),
            cpu_seconds(self.clients),
            machine_cpu_seconds(),
        )
        others = machine - cpu_seconds(ours)
        self.open = True
        await asyncio.sleep(seconds)
        self.open = False
        wall, cpu, clients = time.perf_counter() - wall, time.process_time() - cpu, cpu_seconds(self.clients) - clients
        others = machine_cpu_seconds() - cpu_seconds(ours) - others
        return Figures(len(self.round_trips), wall, cpu, clients, others, self.round_trips, self.overheads)


# ---- baseline --------------------------------------------------------------------------------------


def ping_pong_handler(window: Window, think_ms: float = 0.0, jitter_ms: float = 0.0) -> grpc.GenericRpcHandler:
    """The baseline's server; with thinking clients each request names its key for `think_s`, and
    `window.overheads` gets each round trip less the client's think time."""
    calls = itertools.count()

    async def play(requests: object, context: grpc.aio.ServicerContext) -> None:
        loop = asyncio.get_running_loop()
        call = next(calls)
        for seq in itertools.count():
            key = f"{call}/{seq}"
            sent = loop.time()
            await context.write(key.encode().ljust(len(REQUEST)) if think_ms or jitter_ms else REQUEST)
            if await context.read() is grpc.aio.EOF:
                return
            round_trip = loop.time() - sent
            window.record(round_trip)
            if window.open and (think_ms or jitter_ms):
                window.overheads.append(round_trip - think_s(think_ms, jitter_ms, key, 0))

    handler = grpc.stream_stream_rpc_method_handler(play)
    return grpc.method_handlers_generic_handler("bench.PingPong", {"Play": handler})


async def ping_pong_client(target: str, streams: int, think_ms: float, jitter_ms: float) -> None:
    async def one() -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            call = channel.stream_stream(PING_METHOD)()
            while (request := await call.read()) is not grpc.aio.EOF:
                if think_ms or jitter_ms:
                    await asyncio.sleep(think_s(think_ms, jitter_ms, bytes(request).rstrip().decode(), 0))
                await call.write(REPLY)

    await asyncio.gather(*(one() for _ in range(streams)), return_exceptions=True)


async def baseline(streams: int, seconds: float, think_ms: float = 0.0, jitter_ms: float = 0.0) -> Figures:
    """The bare gRPC ping-pong on `streams` streams; its clients think as `Shape` says bots do."""
    window = Window()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((ping_pong_handler(window, think_ms, jitter_ms),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    client = spawn("--ping-client", f"127.0.0.1:{port}", str(streams), str(think_ms), str(jitter_ms))
    window.clients.append(client.pid)
    try:
        return await window.measure(seconds)
    finally:
        client.kill()
        client.wait(timeout=10)
        await server.stop(0)


# ---- arena -----------------------------------------------------------------------------------------


async def arena(shape: Shape, seconds: float) -> Figures:
    window = Window()
    bench = Arena(shape, window.record)
    try:
        await bench.connect()
        window.clients += bench.pids
        await bench.start()
        return await window.measure(seconds)
    finally:
        await bench.close()


# ---- driver ----------------------------------------------------------------------------------------


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, *args], stderr=subprocess.DEVNULL)


def client_mode(argv: list[str]) -> Callable[[], object] | None:
    if argv[:1] == ["--ping-client"]:
        return lambda: asyncio.run(ping_pong_client(argv[1], int(argv[2]), float(argv[3]), float(argv[4])))
    return None


def main() -> None:
    client = client_mode(sys.argv[1:])
    if client is not None:
        client()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window of each phase")
    parser.add_argument("--repeat", type=int, default=3, help="alternate the two phases this many times")
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--bot-processes", type=int, default=2)
    parser.add_argument(
        "--legal-actions",
        action="store_true",
        help="bots ask the arena to list legal actions (the SDK's default computes them itself)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    from google.protobuf.internal import api_implementation

    from arena.startup.arena import tune_gc

    tune_gc()  # as the arena process does: both phases run with it
    print("command: python", " ".join(sys.argv))
    print(f"protobuf backend {api_implementation.Type()}, grpcio {grpc.__version__}, {os.cpu_count()} cores")
    throughput, cpu = [], []
    for _ in range(args.repeat):
        base = asyncio.run(baseline(args.games, args.seconds))
        print(base.line(f"baseline ping-pong, {args.games} streams"), flush=True)
        shape = Shape(args.games, args.players, args.bots, args.bot_processes, args.legal_actions)
        got = asyncio.run(arena(shape, args.seconds))
        print(got.line(f"arena, {args.games} games x {args.players} bots"), flush=True)
        throughput.append(got.per_second / base.per_second)
        cpu.append(got.cpu_us / base.cpu_us)
    print(
        f"arena/baseline (median of {args.repeat}): throughput {statistics.median(throughput):.2f} (target >= 0.50), "
        f"CPU per decision {statistics.median(cpu):.2f} (target <= 2.00)"
    )


if __name__ == "__main__":
    main()
