"""Benchmark: an honest tournament's games per second, without and with a flood of read calls.

    .venv/bin/python benchmarks/read_flood.py [--bots 6] [--table-size 4] [--seconds 20] [--callers 24]
                                              [--hosts 1] [--web-rate 0 [--unique-queries]]
                                              [--server-option=--read-rate=100000 ...]

An arena server process on a fresh SQLite file (`scout-arena serve --db URL`) plays one
tournament of example bots, each a `scout-bot run ... --tournament` process over loopback (so
each polls ShowTournament with its own token, as bot authors run them). Once the games flow, the
finished-game count is sampled over three windows of `--seconds`: quiet, flooded, quiet. During the
flooded window another process runs `--callers` unauthenticated callers, each on a connection of
its own, looping ListGames, ExportGames (a page of 1000 each) and ShowGame without pause. The
quiet rate is the mean of the two quiet windows (the machine's drift shows as their spread).

`--hosts N` spreads the callers over N loopback addresses, 127.0.0.1 to 127.0.0.N, standing for
N hosts: the flood process forwards each caller's connection from its address (a TCP relay per
address, whose connections to the arena are bound to it), so the arena sees N peers. `--web-rate
R` adds R page loads a second to the flood (open loop, plain HTTP/1.1 on kept-alive connections
spread over the same addresses: the ladder, the tournament's page, the games list and their JSON
in turn); with `--unique-queries` each load has a query string of its own (a parameter no page
reads), the way a flood would try to get past the page cache. `--callers 0` floods the pages alone.

Printed: games/s of each window, the flooded/quiet ratio (target: at least 0.80), and the flood's
calls answered and refused (its page loads: answered 200, refused 429, other). `--server-option`
passes an option to the arena, for example `--server-option=--read-rate=100000
--server-option=--read-burst=100000` to see the flood without the per-host read limits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.relay import relay

CONNECT_TIMEOUT_S = 60.0
WARMUP_S = 5.0
FLOOD_START_S = 2.0
"""Time the flood process is given to open its connections before the flooded window starts."""
TOURNAMENT = "flood"


def server_pid(db_url: str) -> int:
    """The pid of the `scout-arena serve` process on `db_url` (a file of this run's own)."""
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in argv and db_url.encode() in argv:
            return int(entry.name)
    raise SystemExit(f"no arena process serves {db_url}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid`, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def host_address(index: int) -> str:
    """The loopback address of flooding host `index` (from 0): 127.0.0.1, 127.0.0.2, ..."""
    return f"127.0.0.{index + 1}"


async def grpc_flood(target: str, callers: int, hosts: int, stop: float, counts: dict[str, int]) -> None:
    """`callers` tasks spread over `hosts` addresses, each on a connection of its own, looping
    read calls without a token until `stop`."""
    import grpc

    from sdk.wire import arena_pb2_grpc
    from sdk.wire.arena_client import request

    opened: set[asyncio.StreamWriter] = set()
    relays = (
        [target] if hosts == 1 else [f"127.0.0.1:{await relay(host_address(h), target, opened)}" for h in range(hosts)]
    )

    async def caller(index: int) -> None:
        rng = random.Random(index)
        options = [("grpc.use_local_subchannel_pool", 1)]
        async with grpc.aio.insecure_channel(relays[index % len(relays)], options=options) as channel:
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
    for writer in opened:
        writer.close()
    await asyncio.gather(*(writer.wait_closed() for writer in opened), return_exceptions=True)


WEB_PATHS = ["", f"tournaments/{TOURNAMENT}", "games", "api/ladder", f"api/tournaments/{TOURNAMENT}"]
"""What the page flood loads in turn."""


async def web_flood(
    url: str, rate: float, unique: bool, hosts: int, stop: float, counts: dict[str, int], spent: list[float]
) -> None:
    """`rate` page loads a second until `stop` (open loop: a slow answer does not slow the next),
    from `hosts` addresses in turn, on kept-alive connections (at most 64 at once). Each request's
    bytes are made by hand: an HTTP library's own CPU (about a millisecond a request) would be
    taken from the arena's cores."""
    split = urlsplit(url)
    host, port = split.hostname or "127.0.0.1", split.port or 80
    idle: dict[str, list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {}
    connections = asyncio.Semaphore(64)

    async def ask(
        address: str, request: bytes, reused: bool
    ) -> tuple[bytes, asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = (
            idle[address].pop() if reused else await asyncio.open_connection(host, port, local_addr=(address, 0))
        )
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        if length is None:
            raise OSError("an answer without a length")
        await reader.readexactly(int(length[1]))
        return head, reader, writer

    async def one(address: str, request: bytes) -> None:
        async with connections:
            start = time.perf_counter()
            try:
                try:
                    head, reader, writer = await ask(address, request, bool(idle.setdefault(address, [])))
                except (OSError, asyncio.IncompleteReadError):
                    head, reader, writer = await ask(address, request, False)
            except (OSError, asyncio.IncompleteReadError):
                counts["pages other"] += 1
                return
            status = head.split(b" ", 2)[1]
            if status == b"200":
                counts["pages answered"] += 1
                spent.append(time.perf_counter() - start)
            else:
                counts["pages refused" if status == b"429" else "pages other"] += 1
            idle[address].append((reader, writer))

    tasks = []
    begin, i = time.perf_counter(), 0
    while time.monotonic() < stop:
        await asyncio.sleep(max(0.0, begin + i / rate - time.perf_counter()))
        path = WEB_PATHS[i % len(WEB_PATHS)] + (f"?q={i}-{random.getrandbits(32):08x}" if unique else "")
        request = f"GET /{path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
        tasks.append(asyncio.create_task(one(host_address(i % hosts), request)))
        i += 1
    await asyncio.gather(*tasks)


async def flood(args: argparse.Namespace) -> None:
    """The flood process: the read calls and the page loads `args` ask for, for `args.flood_seconds`;
    prints what was answered as JSON."""
    counts = dict.fromkeys(("answered", "refused", "other", "pages answered", "pages refused", "pages other"), 0)
    spent: list[float] = []
    stop = time.monotonic() + args.flood_seconds
    jobs = []
    if args.callers:
        jobs.append(grpc_flood(args.flood_target, args.callers, args.hosts, stop, counts))
    if args.web_rate:
        jobs.append(web_flood(args.flood_web, args.web_rate, args.unique_queries, args.hosts, stop, counts, spent))
    await asyncio.gather(*jobs)
    p50 = statistics.median(spent) * 1000 if spent else float("nan")
    print(json.dumps({**counts, "pages p50 ms": p50}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=6, help="random bots entered (default 6)")
    parser.add_argument("--table-size", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each window (default 20)")
    parser.add_argument("--callers", type=int, default=24, help="flooding gRPC callers (default 24; 0: none)")
    parser.add_argument(
        "--hosts",
        type=int,
        default=1,
        help="loopback addresses the flood comes from, 127.0.0.1 to 127.0.0.N (default 1)",
    )
    parser.add_argument("--web-rate", type=float, default=0.0, help="page loads a second in the flood (default 0)")
    parser.add_argument("--unique-queries", action="store_true", help="give each page load a query string of its own")
    parser.add_argument("--server-option", action="append", default=[], help="an option for scout-arena serve")
    parser.add_argument("--flood-target", help=argparse.SUPPRESS)
    parser.add_argument("--flood-web", help=argparse.SUPPRESS)
    parser.add_argument("--flood-seconds", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.hosts <= 254:
        parser.error(f"--hosts must be 1 to 254, not {args.hosts}")
    if args.flood_seconds is not None:
        asyncio.run(flood(args))
        return
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, logs: Path) -> None:
    from arena.cli.demo import arena_process
    from arena.cli.remote import RemoteArena
    from arena.tournaments.settings import TournamentSettings

    names = [f"random-{i}" for i in range(args.bots)]
    options = ["--http-port", "0", *args.server_option]
    url = f"sqlite:///{logs / 'arena.db'}"
    with arena_process(url, 0, logs, options) as (target, admin_token, web):
        client = RemoteArena(target, admin_token)
        bots: list[subprocess.Popen[bytes]] = []
        try:
            tokens = {name: client.register_bot(name) for name in names}
            client.create_tournament(
                TournamentSettings(
                    TOURNAMENT,
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
                            TOURNAMENT,
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
            while len(client.tournament(TOURNAMENT).entrants) < len(names):
                if time.monotonic() > deadline:
                    raise SystemExit(f"the bots did not all enter within {CONNECT_TIMEOUT_S:g} s")
                time.sleep(0.2)
            client.start_tournament(TOURNAMENT)
            time.sleep(WARMUP_S)
            measure(args, client, target, web, server_pid(url))
        finally:
            client.close()
            for proc in bots:
                proc.terminate()
            for proc in bots:
                proc.wait(timeout=30)


def measure(args: argparse.Namespace, client: object, target: str, web: str | None, server: int) -> None:
    """Three windows, quiet / flooded / quiet, each `args.seconds` long: games finished per second,
    and the arena process's CPU seconds per finished game (which the machine's load inflates less)."""

    def finished() -> int:
        return client.tournament(TOURNAMENT).games.finished  # type: ignore[attr-defined]

    load = os.getloadavg()[0]
    rates, cpu = [], []
    report: dict[str, float] = {}
    for window in ("quiet", "flooded", "quiet"):
        flooder = None
        if window == "flooded":
            flooder = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    *sys.argv[1:],
                    "--flood-target",
                    target,
                    "--flood-web",
                    web or "",
                    "--flood-seconds",
                    str(args.seconds + FLOOD_START_S),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(FLOOD_START_S)
        before, start, used = finished(), time.monotonic(), cpu_seconds(server)
        time.sleep(args.seconds)
        games = finished() - before
        rates.append(games / (time.monotonic() - start))
        cpu.append((cpu_seconds(server) - used) / max(1, games))
        if flooder is not None:
            report = json.loads(flooder.communicate(timeout=120)[0])
    quiet = (rates[0] + rates[2]) / 2
    print(
        f"{os.cpu_count()} CPUs, load average {load:.1f} at the start; {args.bots} random bots at "
        f"{args.table_size}-seat tables, 8 games at once; windows of {args.seconds:g} s"
    )
    print("\n| window | games/s | arena CPU per game |\n|---|---|---|")
    for window, rate, spent in zip(("quiet", "flooded", "quiet"), rates, cpu, strict=True):
        print(f"| {window} | {rate:.2f} | {spent * 1000:.0f} ms |")
    print(f"\nflooded / quiet: {rates[1] / quiet:.2f} (target ≥ 0.80)")
    if args.callers:
        print(
            f"flood: {args.callers} callers without a token from {args.hosts} address(es); {report['answered']} calls "
            f"answered, {report['refused']} refused RESOURCE_EXHAUSTED, {report['other']} other errors"
        )
    if args.web_rate:
        print(
            f"pages: {args.web_rate:g} loads/s{' with unique query strings' if args.unique_queries else ''} from "
            f"{args.hosts} address(es); {report['pages answered']} answered (p50 {report['pages p50 ms']:.1f} ms), "
            f"{report['pages refused']} refused 429, {report['pages other']} other"
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
