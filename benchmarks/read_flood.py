"""Benchmark: an honest tournament's games per second, without and with a flood of read calls.

    .venv/bin/python benchmarks/read_flood.py [--bots 6] [--table-size 4] [--seconds 20] [--callers 24]
                                              [--server-option=--read-rate=100000 ...]

An arena server process on a fresh SQLite file (`scout-arena serve --db URL`) plays one
tournament of example bots, each a `scout-bot run ... --tournament` process over loopback (so
each polls ShowTournament with its own token, as bot authors run them). Once the games flow, the
finished-game count is sampled over three windows of `--seconds`: quiet, flooded, quiet. During the
flooded window another process runs `--callers` unauthenticated callers, each on a connection of
its own, looping ListGames, ExportGames (a page of 1000 each) and ShowGame without pause. The
quiet rate is the mean of the two quiet windows (the machine's drift shows as their spread).

Printed: games/s of each window, the flooded/quiet ratio (target: at least 0.80), and the flood's
calls answered and refused. `--server-option` passes an option to the arena, for example
`--server-option=--read-rate=100000 --server-option=--read-burst=100000` to see the flood
without the read limits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

CONNECT_TIMEOUT_S = 60.0
WARMUP_S = 5.0
FLOOD_START_S = 2.0
"""Time the flood process is given to open its connections before the flooded window starts."""


async def flood(target: str, callers: int, seconds: float) -> None:
    """`callers` tasks, each on a connection of its own, looping read calls without a token; prints
    'answered refused other' when `seconds` have passed."""
    import grpc

    from sdk.wire import arena_pb2_grpc
    from sdk.wire.arena_client import request

    counts = {"answered": 0, "refused": 0, "other": 0}
    stop = time.monotonic() + seconds

    async def caller(index: int) -> None:
        rng = random.Random(index)
        async with grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]
            while time.monotonic() < stop:
                kind = rng.randrange(3)
                try:
                    if kind == 0:
                        await stub.ListGames(
                            request("ListGames", tournament=None, status=None, page_size=1000), timeout=10
                        )
                    elif kind == 1:
                        async for _ in stub.ExportGames(
                            request("ExportGames", tournament=None, page_size=1000), timeout=10
                        ):
                            pass
                    else:
                        await stub.ShowGame(request("ShowGame", id=rng.randint(1, 300)), timeout=10)
                    counts["answered"] += 1
                except grpc.aio.AioRpcError as exc:
                    counts["refused" if exc.code() is grpc.StatusCode.RESOURCE_EXHAUSTED else "other"] += 1

    await asyncio.gather(*(caller(i) for i in range(callers)))
    print(counts["answered"], counts["refused"], counts["other"], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=6, help="random bots entered (default 6)")
    parser.add_argument("--table-size", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each window (default 20)")
    parser.add_argument("--callers", type=int, default=24, help="flooding callers (default 24)")
    parser.add_argument("--server-option", action="append", default=[], help="an option for scout-arena serve")
    parser.add_argument("--flood-client", nargs=3, metavar=("TARGET", "CALLERS", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood_client:
        target, callers, seconds = args.flood_client
        asyncio.run(flood(target, int(callers), float(seconds)))
        return
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, logs: Path) -> None:
    from arena.cli.clients import RemoteArena
    from arena.cli.demo import arena_process
    from arena.tournaments.settings import TournamentSettings

    names = [f"random-{i}" for i in range(args.bots)]
    with arena_process(f"sqlite:///{logs / 'arena.db'}", 0, logs, args.server_option) as (target, admin_token, _web):
        client = RemoteArena(target, admin_token)
        bots: list[subprocess.Popen[bytes]] = []
        try:
            tokens = {name: client.register_bot(name) for name in names}
            client.create_tournament(
                TournamentSettings(
                    "flood",
                    args.table_size,
                    1000,
                    datetime.now(UTC) + timedelta(days=1),
                    2000,
                    concurrency=8,
                    seed=1,
                )
            )
            for i, name in enumerate(names):
                bots.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "sdk.cli",
                            "run",
                            "random",
                            "--name",
                            name,
                            "--seed",
                            str(i),
                            "--token",
                            tokens[name],
                            "--tournament",
                            "flood",
                            "--target",
                            target,
                            "--capacity",
                            "8",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=(logs / f"{name}.log").open("wb"),
                    )
                )
            deadline = time.monotonic() + CONNECT_TIMEOUT_S
            while len(client.tournament("flood").entrants) < len(names):
                if time.monotonic() > deadline:
                    raise SystemExit(f"the bots did not all enter within {CONNECT_TIMEOUT_S:g} s")
                time.sleep(0.2)
            client.start_tournament("flood")
            time.sleep(WARMUP_S)
            measure(args, client, target)
        finally:
            client.close()
            for proc in bots:
                proc.terminate()
            for proc in bots:
                proc.wait(timeout=30)


def measure(args: argparse.Namespace, client: object, target: str) -> None:
    """Three windows, quiet / flooded / quiet, each `args.seconds` long: games finished per second."""

    def finished() -> int:
        return client.tournament("flood").games.finished  # type: ignore[attr-defined]

    load = os.getloadavg()[0]
    rates = []
    flood_counts = ""
    for window in ("quiet", "flooded", "quiet"):
        flooder = None
        if window == "flooded":
            flooder = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--flood-client",
                    target,
                    str(args.callers),
                    str(args.seconds + FLOOD_START_S),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(FLOOD_START_S)
        before, start = finished(), time.monotonic()
        time.sleep(args.seconds)
        rates.append((finished() - before) / (time.monotonic() - start))
        if flooder is not None:
            flood_counts = flooder.communicate(timeout=60)[0].strip()
    quiet = (rates[0] + rates[2]) / 2
    answered, refused, other = flood_counts.split()
    print(
        f"{os.cpu_count()} CPUs, load average {load:.1f} at the start; {args.bots} random bots at "
        f"{args.table_size}-seat tables, 8 games at once; windows of {args.seconds:g} s"
    )
    print("\n| window | games/s |\n|---|---|")
    for window, rate in zip(("quiet", "flooded", "quiet"), rates, strict=True):
        print(f"| {window} | {rate:.2f} |")
    print(f"\nflooded / quiet: {rates[1] / quiet:.2f} (target ≥ 0.80)")
    print(
        f"flood: {args.callers} callers without a token; {answered} calls answered, {refused} refused "
        f"RESOURCE_EXHAUSTED, {other} other errors; load average {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
