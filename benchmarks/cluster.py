"""Cluster mode (issue #31): what a cross-node hop adds to a decision.

    .venv/bin/python benchmarks/cluster.py [--postgres URL] [--nats URL] [--only hop]
        [--decisions 10000] [--hop-games 4] [--repeat 2]

Every figure runs on a fresh PostgreSQL schema of --postgres (dropped afterwards) and the NATS
server of --nats, the nodes' subjects under the default prefix (`scout`) with node and bot names of
this run's own. Each figure prints /proc/loadavg before and after it: other work on the machine
skews every figure.

* **hop**: the decision round trip seen by a referee (request sent to legal answer applied, the
  referee's `on_answer`), `--hop-games` games of 4 random bots at a time (`_arena.Arena`, bots in
  one client process) refereed by a cluster node in this process. Local: the bots' streams are on
  that node, as a node plays its own streams. Remote: they are on a second node, a real
  `scout-arena serve --nats` process, so every message goes through `arena.cluster.remote_bots`
  (a NATS request to the bot's subject, acknowledged; the answer published back to the referee's
  decision subject). The two alternate `--repeat` times, each until `--decisions` answers; also
  a bare NATS request/reply (500 bytes, one at a time) on the same server, for the transport
  alone, and each process's CPU per decision.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _arena import Arena, Shape
from arena_throughput import Window, cpu_seconds
from storage_commit import postgres_schema

from tests.tournaments.arena_process import ArenaProcess

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_NATS = "nats://127.0.0.1:4222"
ADMIN_TOKEN = "cluster-bench-admin-token-0123456789"
"""Every node is given the same admin token (they share the database that keeps its hash)."""
WARMUP_S = 1.0
HOP_TARGET_US = 2000.0
FIGURES = ("hop",)
STEM = f"cb{os.getpid()}"
"""This run's node and bot names start with it: nothing of another run on the NATS server is taken for ours."""


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile_us(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100)[q - 1] * 1e6


def node_process(url: str, nats: str, name: str, logs: Path, *args: str) -> ArenaProcess:
    """`scout-arena serve --nats` as node `name` of the cluster on `url`, its log in `logs`."""
    return ArenaProcess(
        url, logs / f"{name}.log", "--nats", nats, "--node", name, "--no-http", "--admin-token", ADMIN_TOKEN, *args
    )


# ---- hop -------------------------------------------------------------------------------------------


@dataclass
class Phase:
    """One measuring window of the hop figure."""

    where: str
    round_trips: list[float]
    seconds: float
    cpu: dict[str, float]
    """CPU seconds over the window, by process."""

    def line(self) -> str:
        count = len(self.round_trips)
        cpu = ", ".join(f"{who} {seconds / count * 1e6:4.0f}" for who, seconds in self.cpu.items())
        return (
            f"  {self.where:<7} {count:6d} decisions {count / self.seconds:6.0f}/s  round trip "
            f"p50 {percentile_us(self.round_trips, 50):6.0f} us  p99 {percentile_us(self.round_trips, 99):6.0f} us  "
            f"CPU us per decision: {cpu}"
        )


async def hop_phase(
    server: Any, windows: list[Window], where: str, bots_at: str | None, pids: dict[str, int], args: argparse.Namespace
) -> Phase:
    """Keep `--hop-games` games running on `server`, their bots connected to `bots_at` (None: to
    `server`), and gather round trips until `--decisions` of them."""
    window = Window()
    windows.append(window)
    bench = Arena(Shape(args.hop_games, 4, 4, 1), None, server, bots_at=bots_at, names=f"{STEM}-{len(windows)}")
    try:
        await bench.connect()
        await bench.start()
        await asyncio.sleep(WARMUP_S)
        watched = {**pids, "bots": bench.pids[0]}
        before = {who: cpu_seconds([pid]) for who, pid in watched.items()}
        start = time.perf_counter()
        window.open = True
        while len(window.round_trips) < args.decisions:
            await asyncio.sleep(0.02)
        window.open = False
        seconds = time.perf_counter() - start
        cpu = {who: cpu_seconds([pid]) - before[who] for who, pid in watched.items()}
    finally:
        await bench.close()
    return Phase(where, window.round_trips, seconds, cpu)


async def transport(nats: str, count: int) -> list[float]:
    """Round trips of a bare NATS request and its empty reply, 500 bytes, one at a time."""
    from nats.aio.client import Client

    nc = Client()
    await nc.connect(servers=[nats])
    subject = f"bench.{STEM}.echo"

    async def echo(msg: Any) -> None:
        await msg.respond(b"")

    await nc.subscribe(subject, cb=echo)
    payload = b"r" * 500
    times = []
    for _ in range(count):
        start = time.perf_counter()
        await nc.request(subject, payload, timeout=5)
        times.append(time.perf_counter() - start)
    await nc.close()
    return times


async def hop_run(url: str, other: ArenaProcess, args: argparse.Namespace) -> None:
    from arena.startup.arena import start_arena, tune_gc
    from arena.startup.settings import ArenaSettings, ClusterSettings

    windows: list[Window] = []

    def answered(seconds: float) -> None:
        windows[-1].record(seconds)

    settings = ArenaSettings(
        port=0, admin_token=ADMIN_TOKEN, database_url=url, cluster=ClusterSettings(args.nats, f"{STEM}-a")
    )
    server = await start_arena(settings, on_answer=answered)
    tune_gc()  # as `serve` does
    pids = {"referee node": os.getpid(), "bots' node": other.proc.pid}
    phases: dict[str, list[Phase]] = {"local": [], "remote": []}
    try:
        for _ in range(args.repeat):
            for where, bots_at in (("local", None), ("remote", other.target)):
                phase = await hop_phase(server, windows, where, bots_at, pids, args)
                print(phase.line(), flush=True)
                phases[where].append(phase)
        bare = await transport(args.nats, args.decisions)
    finally:
        await server.stop(0)
    local = [s for p in phases["local"] for s in p.round_trips]
    remote = [s for p in phases["remote"] for s in p.round_trips]
    added = {q: percentile_us(remote, q) - percentile_us(local, q) for q in (50, 99)}
    print(
        f"  all {len(local)} local and {len(remote)} remote decisions: local p50 {percentile_us(local, 50):.0f} us "
        f"p99 {percentile_us(local, 99):.0f} us, remote p50 {percentile_us(remote, 50):.0f} us "
        f"p99 {percentile_us(remote, 99):.0f} us"
    )
    print(
        f"  added by the cross-node hop: p50 {added[50]:+.0f} us, p99 {added[99]:+.0f} us "
        f"(target: p99 added <= {HOP_TARGET_US:.0f} us: {'met' if added[99] <= HOP_TARGET_US else 'NOT met'})"
    )
    print(
        f"  bare NATS request/reply, 500 bytes, one at a time ({len(bare)}): "
        f"p50 {percentile_us(bare, 50):.0f} us p99 {percentile_us(bare, 99):.0f} us"
    )


def hop(args: argparse.Namespace) -> None:
    print(
        f"hop: {args.hop_games} games of 4 random bots at a time, local vs remote bots, "
        f"{args.repeat} x {args.decisions} decisions each"
    )
    with postgres_schema(args.postgres) as url, tempfile.TemporaryDirectory() as logs:
        other = node_process(url, args.nats, f"{STEM}-b", Path(logs))
        try:
            asyncio.run(hop_run(url, other, args))
        finally:
            other.stop()


# ---- main ------------------------------------------------------------------------------------------


def figures(text: str) -> list[str]:
    chosen = [f.strip() for f in text.split(",") if f.strip()]
    unknown = set(chosen) - set(FIGURES)
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"choose among {','.join(FIGURES)}, not {text!r}")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES, help="PostgreSQL URL (a schema of its own is used)")
    parser.add_argument("--nats", default=DEFAULT_NATS, help="NATS server URL")
    parser.add_argument("--only", type=figures, default=list(FIGURES), help=f"figures to run, of {','.join(FIGURES)}")
    parser.add_argument("--decisions", type=int, default=10_000, help="hop: decisions per window")
    parser.add_argument("--hop-games", type=int, default=4, help="hop: games in flight")
    parser.add_argument("--repeat", type=int, default=2, help="hop: alternate local and remote this many times")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    run: dict[str, Callable[[argparse.Namespace], None]] = {"hop": hop}
    for figure in args.only:
        print(f"load average before {figure}: {load_average()}", flush=True)
        run[figure](args)
        print(f"load average after {figure}: {load_average()}", flush=True)


if __name__ == "__main__":
    main()
