"""Cluster mode (issue #31): what a cross-node hop adds to a decision, what three nodes cost against
one, and how soon a killed node's games are played again elsewhere.

    .venv/bin/python benchmarks/cluster.py [--postgres URL] [--nats URL] [--only hop,nodes,kill]
        [--decisions 10000] [--hop-games 1,4] [--repeat 2]
        [--bots 12] [--capacity 8] [--rounds 1] [--games-per-table 10]
        [--in-flight 1000] [--lease-s 5] [--think-ms 2000] [--kill-rounds 10]

Every figure runs on a fresh PostgreSQL schema of --postgres (dropped afterwards) and the NATS
server of --nats, the nodes' subjects under the default prefix (`scout`) with node and bot names of
this run's own. Each figure prints /proc/loadavg before and after it: other work on the machine
skews every figure.

* **hop**: the decision round trip seen by a referee (request sent to legal answer applied: the
  referee's `on_answer`) of 4 random bots (`_arena.Arena`, in one client process) playing each of
  `--hop-games` games at a time on a cluster node in this process. Local: the bots' streams are on
  that node, as a node plays its own streams. Remote: they are on a second node, a real
  `scout-arena serve --nats` process, so every message goes through `arena.cluster.remote_bots`
  (a NATS message to the bot's subject; the answer published back to the referee's
  decision subject). The two alternate `--repeat` times, each until `--decisions` answers. One
  game at a time measures the hop itself; more keep the machine's cores busy, and queueing adds
  to it. Also: a bare NATS request/reply on the same server, and each process's CPU per decision.
* **nodes**: one tournament of `bots.random_bot` processes (`--bots`, each of `--capacity`),
  played on one `scout-arena serve --nats` node and then, on a fresh schema, on three (each bot
  connected to one, in turn): decisions/s from making it due to its end, and the CPU time of the
  nodes' processes and of the bots' per decision (not PostgreSQL's, nor the NATS server's).
* **kill**: three nodes (`--lease-s`) play `--in-flight` games at once of bots that think
  `--think-ms` a decision (`_arena.py --bot-client` sessions, three processes); the node holding
  most is sent SIGKILL, and the killed node's games are watched in the database until each is
  being played under another node's lease.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _arena import Arena, Shape, spawn
from arena_throughput import Window, cpu_seconds
from storage_commit import postgres_schema

from tests.tournaments.arena_process import ArenaProcess

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_NATS = "nats://127.0.0.1:4222"
ADMIN_TOKEN = "cluster-bench-admin-token-0123456789"
"""Every node is given the same admin token (they share the database that keeps its hash)."""
WARMUP_S = 1.0
HOP_TARGET_US = 2000.0
FIGURES = ("hop", "nodes", "kill")
NODES_TARGET = 1.3
PRESENCE_S = 2.5
"""Bots connected, a node's claims wait for presence to settle (`arena.cluster.node.PRESENCE_SETTLE_S`)."""
KILL_CAPACITY = 250
KILL_WAIT_S = 120.0
"""How long past the lease the kill figure waits for the last of the killed node's games."""
KILL_RAMP_S = 300.0
"""How long the kill figure waits for its games in flight."""
KILL_ROOM = 50
"""The kill tournament's concurrency above --in-flight."""
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
            f"    {self.where:<7} {count:6d} decisions {count / self.seconds:6.0f}/s  round trip "
            f"p50 {percentile_us(self.round_trips, 50):6.0f} us  p99 {percentile_us(self.round_trips, 99):6.0f} us  "
            f"CPU us per decision: {cpu}"
        )


async def hop_phase(
    server: Any,
    windows: list[Window],
    games: int,
    where: str,
    bots_at: str | None,
    pids: dict[str, int],
    args: argparse.Namespace,
) -> Phase:
    """Keep `games` games running on `server`, their bots connected to `bots_at` (None: to
    `server`), and gather round trips until `--decisions` of them."""
    window = Window()
    windows.append(window)
    bench = Arena(Shape(games, 4, 4, 1), None, server, bots_at=bots_at, names=f"{STEM}-{len(windows)}")
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
    try:
        for games in args.hop_games:
            print(f"  {games} game{'s' if games > 1 else ''} of 4 random bots at a time:")
            phases: dict[str, list[Phase]] = {"local": [], "remote": []}
            for _ in range(args.repeat):
                for where, bots_at in (("local", None), ("remote", other.target)):
                    phase = await hop_phase(server, windows, games, where, bots_at, pids, args)
                    print(phase.line(), flush=True)
                    phases[where].append(phase)
            hop_report(phases)
        bare = await transport(args.nats, args.decisions)
    finally:
        await server.stop(0)
    print(
        f"  bare NATS request/reply, 500 bytes, one at a time ({len(bare)}): "
        f"p50 {percentile_us(bare, 50):.0f} us p99 {percentile_us(bare, 99):.0f} us"
    )


def hop_report(phases: dict[str, list[Phase]]) -> None:
    local = [s for p in phases["local"] for s in p.round_trips]
    remote = [s for p in phases["remote"] for s in p.round_trips]
    added = {q: percentile_us(remote, q) - percentile_us(local, q) for q in (50, 99)}
    print(
        f"    all {len(local)} local and {len(remote)} remote decisions: local p50 {percentile_us(local, 50):.0f} us "
        f"p99 {percentile_us(local, 99):.0f} us, remote p50 {percentile_us(remote, 50):.0f} us "
        f"p99 {percentile_us(remote, 99):.0f} us"
    )
    print(
        f"    added by the cross-node hop: p50 {added[50]:+.0f} us, p99 {added[99]:+.0f} us "
        f"(target: p99 added <= {HOP_TARGET_US:.0f} us: {'met' if added[99] <= HOP_TARGET_US else 'NOT met'})"
    )


def hop(args: argparse.Namespace) -> None:
    print(
        f"hop: local vs remote bots, {args.repeat} x {args.decisions} decisions each, "
        f"at {', '.join(map(str, args.hop_games))} games at a time"
    )
    with postgres_schema(args.postgres) as url, tempfile.TemporaryDirectory() as logs:
        other = node_process(url, args.nats, f"{STEM}-b", Path(logs))
        try:
            asyncio.run(hop_run(url, other, args))
        finally:
            other.stop()


# ---- a cluster of processes on a tournament --------------------------------------------------------


@dataclass
class Tournament:
    """A tournament of `bots` entrants at `seats`-seat tables: `rounds` rounds (each entrant once in
    every seat per round) of `games_per_table` games, `concurrency` of them at once."""

    bots: int
    seats: int
    rounds: int
    games_per_table: int
    concurrency: int
    move_limit_ms: int = 10_000

    @property
    def games(self) -> int:
        return self.bots * self.rounds * self.games_per_table


def entered(engine: Engine, prefix: str, t: Tournament) -> dict[str, str]:
    """Register `t.bots` bots and enter them in tournament `cup`, due tomorrow; their tokens by name."""
    from sqlmodel import Session

    from arena.storage import store
    from arena.tournaments.settings import TournamentSettings

    names = [f"{prefix}-{i}" for i in range(t.bots)]
    with Session(engine) as session:
        tokens = {name: store.register_bot(session=session, name=name).token for name in names}
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name="cup",
                table_size=t.seats,
                games_per_table=t.games_per_table,
                starts_at=datetime.now(UTC) + timedelta(days=1),
                move_limit_ms=t.move_limit_ms,
                concurrency=t.concurrency,
                rounds=t.rounds,
                seed=2026,
            ),
        )
        for name in names:
            store.enter_tournament(session=session, tournament="cup", bot=name)
    return tokens


def make_due(engine: Engine) -> None:
    """The nodes' next tick starts the tournament (its entries are all in)."""
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE tournaments SET starts_at = starts_at - interval '2 days'"))


def scalar(engine: Engine, query: str, **params: object) -> Any:
    with engine.connect() as connection:
        return connection.execute(sa.text(query), params).scalar()


def finished(engine: Engine) -> bool:
    return bool(scalar(engine, "SELECT status = 'finished' FROM tournaments WHERE name = 'cup'"))


def decisions_played(engine: Engine) -> tuple[int, int]:
    """(games, decisions) of the finished games' records: every play and every flip decision."""
    with engine.connect() as connection:
        records = connection.execute(sa.text("SELECT record FROM games WHERE status = 'finished'")).scalars().all()
    decisions = 0
    for text in records:
        record = json.loads(text)
        decisions += len(record["actions"]) + sum(len(flips) for flips in record["flips"])
    return len(records), decisions


def wait_for(what: str, check: Callable[[], bool], timeout: float, every: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def targets(nodes: list[ArenaProcess], home: int) -> str:
    """Every node's address, `home`'s first: a bot reconnects to the next one when its node goes."""
    return ",".join(nodes[(home + k) % len(nodes)].target for k in range(len(nodes)))


def stop_all(processes: list[subprocess.Popen[Any]]) -> None:
    for proc in processes:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


# ---- nodes -----------------------------------------------------------------------------------------


@dataclass
class Run:
    """What one tournament on `nodes` nodes measured, from making it due to its end."""

    nodes: int
    seconds: float
    games: int
    decisions: int
    node_cpu: float
    bot_cpu: float

    @property
    def node_cpu_us(self) -> float:
        return self.node_cpu / self.decisions * 1e6

    @property
    def bot_cpu_us(self) -> float:
        return self.bot_cpu / self.decisions * 1e6

    @property
    def per_second(self) -> float:
        return self.decisions / self.seconds

    def line(self) -> str:
        return (
            f"  {self.nodes} node{'s' if self.nodes > 1 else ' '} {self.games:5d} games {self.decisions:7d} decisions "
            f"in {self.seconds:5.1f} s: {self.decisions / self.seconds:6.0f} decisions/s  "
            f"nodes' CPU {self.node_cpu_us:4.0f} us per decision  bots' CPU {self.bot_cpu_us:4.0f} us"
        )


def tournament_on(count: int, t: Tournament, args: argparse.Namespace) -> Run:
    """Play tournament `t` on `count` real nodes with one `bots.random_bot` process per entrant,
    spread over the nodes; CPU is the nodes' and the bots' processes' (not PostgreSQL's nor NATS's)."""
    from arena.storage.database import open_database

    with postgres_schema(args.postgres) as url, tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp)
        engine = open_database(url)
        tokens = entered(engine, f"{STEM}-{count}n", t)
        nodes: list[ArenaProcess] = []
        bots: list[subprocess.Popen[bytes]] = []
        try:
            nodes.extend(node_process(url, args.nats, f"{STEM}-{count}n{k}", logs) for k in range(count))
            for i, token in enumerate(tokens.values()):
                command = [sys.executable, "-m", "bots.random_bot", "--target", targets(nodes, i % count)]
                command += ["--token", token, "--capacity", str(args.capacity)]
                bots.append(
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=(logs / f"bot{i}.log").open("w"))
                )
            wait_for(
                "every bot to connect",
                lambda: all("welcome:" in (logs / f"bot{i}.log").read_text() for i in range(len(bots))),
                timeout=120,
            )
            time.sleep(PRESENCE_S)
            node_pids, bot_pids = [n.proc.pid for n in nodes], [b.pid for b in bots]
            cpu, bot_cpu, start = cpu_seconds(node_pids), cpu_seconds(bot_pids), time.perf_counter()
            make_due(engine)
            wait_for("the tournament to finish", lambda: finished(engine), timeout=1800, every=0.2)
            seconds = time.perf_counter() - start
            cpu, bot_cpu = cpu_seconds(node_pids) - cpu, cpu_seconds(bot_pids) - bot_cpu
            games, decisions = decisions_played(engine)
        finally:
            stop_all(bots)
            for node in nodes:
                node.stop()
            engine.dispose()
    return Run(count, seconds, games, decisions, cpu, bot_cpu)


def nodes(args: argparse.Namespace) -> None:
    t = Tournament(args.bots, 4, args.rounds, args.games_per_table, args.bots * args.capacity // 4)
    print(
        f"nodes: {t.games} games of {t.seats} random bots ({t.bots} bots.random_bot processes, capacity "
        f"{args.capacity}, {t.concurrency} games at once), on 1 node and on 3 (bots spread over them)"
    )
    one = tournament_on(1, t, args)
    print(one.line(), flush=True)
    three = tournament_on(3, t, args)
    print(three.line(), flush=True)
    ratio = three.node_cpu_us / one.node_cpu_us
    verdict = "met" if ratio <= NODES_TARGET else "NOT met"
    both = (three.node_cpu_us + three.bot_cpu_us) / (one.node_cpu_us + one.bot_cpu_us)
    print(
        f"  3 nodes / 1 node: decisions/s {three.per_second / one.per_second:.2f}, nodes' CPU per decision "
        f"{ratio:.2f} (target <= {NODES_TARGET:.1f}: {verdict}), nodes' and bots' CPU per decision {both:.2f}"
    )


# ---- kill ------------------------------------------------------------------------------------------


def live_leases(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        found = connection.execute(
            sa.text(
                "SELECT lease_owner, count(*) FROM games WHERE status = 'running' "
                "AND lease_expires > timezone('UTC', statement_timestamp()) GROUP BY lease_owner"
            )
        ).all()
    return {str(owner): int(count) for owner, count in found}


def replayed(engine: Engine, games: list[int], victim: str) -> set[int]:
    """Of `games`, those playing again under another node's live lease (or already finished)."""
    with engine.connect() as connection:
        return set(
            connection.execute(
                sa.text(
                    "SELECT id FROM games WHERE id = ANY(:games) AND (status = 'finished' OR (status = 'running' "
                    "AND lease_owner <> :victim AND lease_expires > timezone('UTC', statement_timestamp())))"
                ),
                {"games": games, "victim": victim},
            ).scalars()
        )


def kill(args: argparse.Namespace) -> None:
    """Three nodes keep `--in-flight` games of thinking bots in play; the one holding most is killed."""
    from arena.storage.database import open_database

    bots = -(-args.in_flight * 4 * 2 // KILL_CAPACITY)  # twice the seats the games take: none is full
    # The tournament's cap above --in-flight, and the kill as soon as that many play: at the cap,
    # claims racing on three nodes pass it by a game each (`store.claim_game`), and so many of the
    # killed node's games would wait for a game to end.
    t = Tournament(bots, 4, args.kill_rounds, 8, args.in_flight + KILL_ROOM, move_limit_ms=30_000)
    print(
        f"kill: {args.in_flight} games in flight of {t.seats} bots thinking {args.think_ms:g} ms "
        f"(± {args.think_ms / 4:g}), {bots} bot sessions of capacity {KILL_CAPACITY} in 3 client processes "
        f"(benchmarks/_arena.py --bot-client), 3 nodes with --lease-s {args.lease_s:g} --node-games {args.in_flight}, "
        f"the tournament's concurrency {t.concurrency}"
    )
    with postgres_schema(args.postgres) as url, logs_in(args.logs) as logs:
        engine = open_database(url)
        tokens = list(entered(engine, f"{STEM}-k", t).values())
        extra = ("--lease-s", f"{args.lease_s:g}", "--node-games", str(args.in_flight))
        names = [f"{STEM}-k{k}" for k in range(3)]
        nodes: list[ArenaProcess] = []
        clients: list[subprocess.Popen[bytes]] = []
        try:
            nodes.extend(node_process(url, args.nats, name, logs, *extra) for name in names)
            mode = [str(KILL_CAPACITY), "0", str(args.think_ms), str(args.think_ms / 4)]
            clients.extend(spawn("--bot-client", targets(nodes, k), *mode, *tokens[k::3]) for k in range(3))
            time.sleep(PRESENCE_S)
            start = time.perf_counter()
            make_due(engine)
            shown = 0.0
            while (playing := sum(live_leases(engine).values())) < args.in_flight:
                now = time.perf_counter() - start
                if now > KILL_RAMP_S:
                    raise RuntimeError(f"{playing} games in flight {now:.0f} s after the start, not {args.in_flight}")
                if now - shown >= 10:
                    print(f"  {playing} games in flight {now:.0f} s after the start", flush=True)
                    shown = now
                time.sleep(0.1)
            print(f"  {args.in_flight} games in flight {time.perf_counter() - start:.1f} s after the start", flush=True)
            held = live_leases(engine)
            victim = max(held, key=lambda n: held[n])
            games = [
                int(g)
                for g in scalar_list(
                    engine,
                    "SELECT id FROM games WHERE status = 'running' AND lease_owner = :n "
                    "AND lease_expires > timezone('UTC', statement_timestamp())",
                    n=victim,
                )
            ]
            nodes[names.index(victim)].kill()
            killed = time.perf_counter()
            print(f"  SIGKILL to {victim}, holding {len(games)} of {sum(held.values())} games in flight ({held})")
            seen: dict[int, float] = {}
            deadline = killed + args.lease_s + KILL_WAIT_S
            while len(seen) < len(games) and time.perf_counter() < deadline:
                now = time.perf_counter() - killed
                for game in replayed(engine, games, victim) - seen.keys():
                    seen[game] = now
                time.sleep(0.05)
            report_replays(games, seen, args.lease_s)
            waiting = sorted(set(games) - seen.keys())
            if waiting:
                states = scalar_list(
                    engine,
                    "SELECT status || coalesce(' under ' || lease_owner, '') FROM games WHERE id = ANY(:g)",
                    g=waiting,
                )
                now_playing = live_leases(engine)
                print(
                    f"  not played again: {len(waiting)} ({', '.join(sorted(set(states)))}); in flight: {now_playing}"
                )
        finally:
            stop_all(clients)
            for node in nodes:
                if node.proc.poll() is None:
                    node.stop()
            engine.dispose()


@contextmanager
def logs_in(kept: Path | None) -> Iterator[Path]:
    """`kept` (--logs), or a temporary folder."""
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        yield kept
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def scalar_list(engine: Engine, query: str, **params: object) -> list[Any]:
    with engine.connect() as connection:
        return list(connection.execute(sa.text(query), params).scalars())


def report_replays(games: list[int], seen: dict[int, float], lease_s: float) -> None:
    """When the killed node's games were seen playing again, from the kill."""
    times = sorted(seen.values())
    if not times:
        print(f"  none of its {len(games)} games was played again within {lease_s + KILL_WAIT_S:g} s")
        return
    print(
        f"  played again elsewhere: {len(times)} of {len(games)}; the first {times[0]:.2f} s after the kill, "
        f"half by {times[len(times) // 2]:.2f} s, the last {times[-1]:.2f} s (lease {lease_s:g} s: claimed "
        f"{times[-1] - lease_s:.2f} s after the leases ran out at the latest)"
    )


# ---- main ------------------------------------------------------------------------------------------


def figures(text: str) -> list[str]:
    chosen = [f.strip() for f in text.split(",") if f.strip()]
    unknown = set(chosen) - set(FIGURES)
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"choose among {','.join(FIGURES)}, not {text!r}")
    return chosen


def counts(text: str) -> list[int]:
    return [int(n) for n in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES, help="PostgreSQL URL (a schema of its own is used)")
    parser.add_argument("--nats", default=DEFAULT_NATS, help="NATS server URL")
    parser.add_argument("--only", type=figures, default=list(FIGURES), help=f"figures to run, of {','.join(FIGURES)}")
    parser.add_argument("--decisions", type=int, default=10_000, help="hop: decisions per window")
    parser.add_argument(
        "--hop-games", type=counts, default=[1, 4], help="hop: games in flight, comma-separated (one measure each)"
    )
    parser.add_argument("--repeat", type=int, default=2, help="hop: alternate local and remote this many times")
    parser.add_argument("--bots", type=int, default=12, help="nodes: entrants, each a bots.random_bot process")
    parser.add_argument("--capacity", type=int, default=8, help="nodes: each bot's capacity")
    parser.add_argument("--rounds", type=int, default=1, help="nodes: rounds of the tournament")
    parser.add_argument("--games-per-table", type=int, default=10, help="nodes: games of each table")
    parser.add_argument("--logs", type=Path, help="keep the nodes' and bots' logs in this folder")
    parser.add_argument("--in-flight", type=int, default=1000, help="kill: games in flight when a node is killed")
    parser.add_argument("--lease-s", type=float, default=5.0, help="kill: the nodes' --lease-s")
    parser.add_argument("--think-ms", type=float, default=2000.0, help="kill: the bots' time per decision")
    parser.add_argument("--kill-rounds", type=int, default=10, help="kill: rounds of the tournament (8 games a table)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    run: dict[str, Callable[[argparse.Namespace], None]] = {"hop": hop, "nodes": nodes, "kill": kill}
    for figure in args.only:
        print(f"load average before {figure}: {load_average()}", flush=True)
        run[figure](args)
        print(f"load average after {figure}: {load_average()}", flush=True)


if __name__ == "__main__":
    main()
