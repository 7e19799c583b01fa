"""The web pages' speed on a big database, and what a flood of page loads costs the arena.

    .venv/bin/python benchmarks/web_latency.py [--games 10000] [--db FILE] [--requests 300]
        [--commit-rate 10] [--interval-ms 20] [--rate 100] [--seconds 5] [--repeat 3]
        [--skip-flood | --skip-latency]

1. Latency. The database: SQLite, one tournament of `--games` finished games and 2,000 to go (8
   bots at 4-seat tables, random engine games through the store; kept in `--db` and reused when
   it already holds them). First, in this process, the ladder and the tournament page rendered
   by a new app (nothing kept) and again after one more game is committed (median of 5). Then
   `scout-arena web` serves it in its own process; this process loads the ladder, the
   tournament page and their JSON twins `--requests` times each, one at a time (from ten loopback
   addresses in turn, as ten visitors: one address may not load 50 pages a second), and prints
   p50/p99/max per page (target: p99 <= 50 ms for the ladder and the tournament page). Then the
   same on a copy while another process commits `--commit-rate` of the tournament's games a
   second (so every page is rendered again each second), a load every `--interval-ms`.
2. Flood. The arena (`arena.startup.arena.start_arena`, web pages on, on a copy of that database)
   keeps games of random bots running as `benchmarks/arena_throughput.py` does; decisions per
   second are measured without and with a flood of `--rate` page loads per second (ladder and
   tournament page in turn, from another process, open loop), alternating `--repeat` times in
   the same run. The closing line gives the median ratio with/without (target: >= 0.90).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import httpx2 as httpx
from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).parent))
import arena_throughput as throughput
from _arena import random_games

from arena.play.results import GameResult, SeatResult, final_ranks
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.schedule import round_robin
from arena.tournaments.settings import TournamentSettings
from sdk.engine import Game, record_of

TOURNAMENT = "bench"
SPARE = 2000
"""Games of TOURNAMENT left to play, for the committing latency phase (on a copy)."""
BOTS = 8
TABLE_SIZE = 4
SEED = 2026
SCOUT_ARENA = str(Path(sys.executable).with_name("scout-arena"))
FLOOD_PATHS = ["", f"tournaments/{TOURNAMENT}"]
"""What the flood loads in turn: the ladder and the tournament page."""
ADDRESSES = [f"127.0.0.{n}" for n in range(1, 11)]
"""The loopback addresses the loads come from in turn, standing for ten visitors: one address is
held to 20 loads a second (`--web-rate`), below this benchmark's 50 and 100."""


def random_result(game: store.GameToPlay) -> GameResult:
    """One engine game with every seat choosing uniformly at random."""
    engine_game = Game(len(game.seats), game.seed)
    rng = random.Random(game.seed)
    while not engine_game.is_over:
        actions = engine_game.legal_actions()
        engine_game.apply(engine_game.to_move, actions[rng.randrange(len(actions))])
    record = record_of(engine_game)
    ranks = final_ranks(record.totals, [False] * len(game.seats))
    return GameResult(record, tuple(SeatResult(s, b, record.totals[s], ranks[s]) for s, b in enumerate(game.seats)))


def build(path: Path, games: int) -> int:
    """The database at `path` with TOURNAMENT running: `games` games finished and SPARE still to
    play (for the committing latency phase); built unless it is there already. Returns its
    number of finished games."""
    if path.exists():
        engine = open_database(f"sqlite:///{path}", create=False)
        with Session(engine) as session:
            t = store.show_tournament(session=session, tournament=TOURNAMENT)
        engine.dispose()
        if t.games.finished == games and t.games.scheduled >= SPARE:
            return t.games.finished
        path.unlink()
    engine = open_database(f"sqlite:///{path}")
    started = time.perf_counter()
    tables = len(round_robin([f"bot{i}" for i in range(BOTS)], TABLE_SIZE, SEED).tables)
    with Session(engine) as session:
        for i in range(BOTS):
            store.register_bot(session=session, name=f"bot{i}")
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name=TOURNAMENT,
                table_size=TABLE_SIZE,
                games_per_table=-(-(games + SPARE) // tables),
                starts_at=datetime.now(UTC),
                move_limit_ms=1000,
                seed=SEED,
            ),
        )
        for i in range(BOTS):
            store.enter_tournament(session=session, tournament=TOURNAMENT, bot=f"bot{i}")
        store.start_tournament(session=session, tournament=TOURNAMENT)
        done = 0
        while done < games:
            for game in store.next_games(session=session, tournament=TOURNAMENT, limit=min(200, games - done)):
                commit_random_game(session, game)
                done += 1
            print(f"  built {done} games in {time.perf_counter() - started:.0f} s", end="\r", flush=True)
    engine.dispose()
    print()
    return done


def commit_random_game(session: Session, game: store.GameToPlay) -> None:
    """Play `game` with random seats and commit it, as the tournament runner would."""
    running = store.mark_game_running(session=session, game_id=game.id)
    store.commit_game(session=session, game_id=running.id, result=random_result(running))


def latency(
    db: Path, requests: int, interval_s: float = 0.0, server_cpu: dict[str, float] | None = None
) -> dict[str, list[float]]:
    """Each page loaded `requests` times from `scout-arena web` in its own process (after a warm-up
    load), one at a time, a load every `interval_s` at most: seconds per load. `server_cpu` gets
    the server process's CPU seconds per load of each page (what the machine's load cannot inflate)."""
    server_cpu = {} if server_cpu is None else server_cpu
    proc = subprocess.Popen([SCOUT_ARENA, "web", "--db", str(db), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[4]
        pages = {
            "ladder /": "",
            f"tournament /tournaments/{TOURNAMENT}": f"tournaments/{TOURNAMENT}",
            "JSON /api/ladder": "api/ladder",
            f"JSON /api/tournaments/{TOURNAMENT}/standings": f"api/tournaments/{TOURNAMENT}/standings",
        }
        times: dict[str, list[float]] = {}
        clients = [
            httpx.Client(base_url=url, timeout=30, transport=httpx.HTTPTransport(local_address=address))
            for address in ADDRESSES
        ]
        try:
            for name, path in pages.items():
                assert clients[0].get(path).status_code == 200, path
                spent = []
                cpu = throughput.cpu_seconds([proc.pid])
                for i in range(requests):
                    start = time.perf_counter()
                    response = clients[i % len(clients)].get(path)
                    spent.append(time.perf_counter() - start)
                    assert response.status_code == 200, response.status_code
                    time.sleep(max(0.0, start + interval_s - time.perf_counter()))
                times[name] = spent
                server_cpu[name] = (throughput.cpu_seconds([proc.pid]) - cpu) / requests
        finally:
            for client in clients:
                client.close()
        return times
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def render_costs(db: Path, repeat: int = 5) -> dict[str, list[float]]:
    """In this process, on a copy of `db`: each page rendered by a new app (nothing kept yet), and
    rendered again after one more game of the tournament is committed (what the app keeps over
    commits is kept): seconds per render."""
    from fastapi.testclient import TestClient

    from arena.web.app import create_app

    pages = {"ladder /": "/", f"tournament /tournaments/{TOURNAMENT}": f"/tournaments/{TOURNAMENT}"}
    times: dict[str, list[float]] = {f"{what}, {name}": [] for what in ("first", "after a commit") for name in pages}
    with tempfile.TemporaryDirectory(prefix="scout-web-bench-") as tmp:
        copy = Path(tmp) / "render.db"
        shutil.copy(db, copy)
        engine = open_database(f"sqlite:///{copy}", create=False)
        for _ in range(repeat):
            with TestClient(create_app(engine, page_ttl_s=0)) as client:
                for name, path in pages.items():
                    start = time.perf_counter()
                    assert client.get(path).status_code == 200
                    times[f"first, {name}"].append(time.perf_counter() - start)
                with Session(engine) as session:
                    commit_random_game(session, store.next_games(session=session, tournament=TOURNAMENT, limit=1)[0])
                for name, path in pages.items():
                    start = time.perf_counter()
                    assert client.get(path).status_code == 200
                    times[f"after a commit, {name}"].append(time.perf_counter() - start)
        engine.dispose()
    return times


def committer(db: Path, rate: float) -> None:
    """Commit TOURNAMENT's next games in `db`, `rate` a second, until killed, as the runner does
    while it plays: each commit changes what its pages and the ladder show, so each is rendered
    again (at most once a second, `arena.web.page_cache`)."""
    engine = open_database(f"sqlite:///{db}", create=False)
    with Session(engine) as session:
        print("ready", flush=True)
        begin, done = time.perf_counter(), 0
        while waiting := store.next_games(session=session, tournament=TOURNAMENT, limit=50):
            for game in waiting:
                time.sleep(max(0.0, begin + done / rate - time.perf_counter()))
                commit_random_game(session, game)
                done += 1


def latency_while_committing(
    db: Path, requests: int, rate: float, interval_s: float, server_cpu: dict[str, float]
) -> dict[str, list[float]]:
    """`latency` on a copy of `db` while `committer` commits `rate` games a second to it."""
    with tempfile.TemporaryDirectory(prefix="scout-web-bench-") as tmp:
        copy = Path(tmp) / "committing.db"
        shutil.copy(db, copy)
        writer = subprocess.Popen(
            [sys.executable, __file__, "--committer", str(copy), str(rate)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
            return latency(copy, requests, interval_s, server_cpu)
        finally:
            writer.kill()
            writer.wait(timeout=30)


async def flood_client(url: str, rate: float, seconds: float) -> None:
    """Load the ladder and the tournament page in turn, `rate` a second for `seconds` (open loop:
    a slow answer does not slow the next request); print what happened as JSON.

    Plain HTTP/1.1 on kept-alive connections (at most 64 at once, as many as a browser farm would
    hold, opened from the ADDRESSES in turn), each request's bytes made once: this client shares
    the arena's cores, and an HTTP library's own CPU per request (httpx: about a millisecond)
    would be charged to the arena."""
    host, port = urlsplit(url).hostname or "127.0.0.1", urlsplit(url).port or 80
    requests = [f"GET /{path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode() for path in FLOOD_PATHS]
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    connections = asyncio.Semaphore(64)
    spent: list[float] = []
    failed = 0

    async def ask(request: bytes, reused: bool) -> tuple[bytes, asyncio.StreamReader, asyncio.StreamWriter]:
        address = ADDRESSES[len(spent) % len(ADDRESSES)]
        reader, writer = idle.pop() if reused else await asyncio.open_connection(host, port, local_addr=(address, 0))
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        assert length is not None
        await reader.readexactly(int(length[1]))
        return head, reader, writer

    async def one(request: bytes) -> None:
        nonlocal failed
        async with connections:
            start = time.perf_counter()
            try:
                try:
                    head, reader, writer = await ask(request, bool(idle))
                except (OSError, asyncio.IncompleteReadError):
                    # A kept-alive connection the server closed (idle past its keep-alive): a new one.
                    head, reader, writer = await ask(request, False)
            except (OSError, asyncio.IncompleteReadError, AssertionError):
                failed += 1
                return
            if head.startswith(b"HTTP/1.1 200 "):
                spent.append(time.perf_counter() - start)
            else:
                failed += 1
            idle.append((reader, writer))

    print("ready", flush=True)
    tasks = []
    begin = time.perf_counter()
    for i in range(int(rate * seconds)):
        await asyncio.sleep(max(0.0, begin + i / rate - time.perf_counter()))
        tasks.append(asyncio.create_task(one(requests[i % len(requests)])))
    await asyncio.gather(*tasks)
    took = time.perf_counter() - begin
    q = statistics.quantiles(spent, n=100) if len(spent) > 100 else [float("nan")] * 99
    print(
        json.dumps(
            {
                "sent": len(tasks),
                "ok": len(spent),
                "failed": failed,
                "rate": len(tasks) / took,
                "p50_ms": q[49] * 1000,
                "p99_ms": q[98] * 1000,
            }
        ),
        flush=True,
    )


async def arena_phase(
    db: Path,
    flood_rate: float | None,
    seconds: float,
    games: int = 64,
    players: int = 4,
    bots: int = 16,
    processes: int = 2,
) -> tuple[throughput.Figures, dict[str, float] | None]:
    """arena_throughput's arena phase on a database, its web pages on; with `flood_rate`, a
    flood client loads them meanwhile. Returns the figures and the flood's report."""
    from arena.startup.arena import start_arena
    from arena.startup.settings import ArenaSettings

    window = throughput.Window()
    server = await start_arena(
        ArenaSettings(port=0, database_url=f"sqlite:///{db}", http_port=0), on_answer=window.record
    )
    assert server.web is not None
    try:
        async with random_games(server, games, players, bots, processes) as clients:
            window.clients += clients
            await _until_playing(window)
            flood = None
            if flood_rate is not None:
                flood = subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "--flood-client",
                        server.web.url,
                        str(flood_rate),
                        str(seconds + throughput.WARMUP_S + 1),
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                window.clients.append(flood.pid)
                assert flood.stdout is not None
                assert (await asyncio.to_thread(flood.stdout.readline)).strip() == "ready"
            figures = await window.measure(seconds)
            report = None
            if flood is not None:
                out, _ = await asyncio.to_thread(flood.communicate, timeout=120)
                report = json.loads(out)
            return figures, report
    finally:
        await server.stop(0)


async def _until_playing(window: throughput.Window, decisions: int = 500, timeout: float = 180.0) -> None:
    """Wait until every bot process is connected and the games run (`decisions` answered): on a
    busy machine the bot processes take seconds to start, which the measuring window must not see."""
    window.open = True
    deadline = time.monotonic() + timeout
    while len(window.round_trips) < decisions and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    window.open = False
    window.round_trips.clear()


def print_latency(what: str, times: dict[str, list[float]], server_cpu: dict[str, float]) -> None:
    print(f"latency, {what}:", flush=True)
    for name, spent in times.items():
        print(
            f"  {name:<44} p50 {percentile_ms(spent, 50):6.1f} ms  p99 {percentile_ms(spent, 99):6.1f} ms  "
            f"max {max(spent) * 1000:6.1f} ms  server CPU {server_cpu[name] * 1e6:6.0f} us each  ({len(spent)} loads)",
            flush=True,
        )


def percentile_ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def main() -> None:
    if sys.argv[1:2] == ["--flood-client"]:
        asyncio.run(flood_client(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
        return
    if sys.argv[1:2] == ["--committer"]:
        committer(Path(sys.argv[2]), float(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument(
        "--db",
        type=Path,
        default=Path(tempfile.gettempdir()) / "scout-web-bench.db",
        help="the database to build, or reuse if it holds the games already",
    )
    parser.add_argument("--requests", type=int, default=300, help="loads of each page in the latency part")
    parser.add_argument(
        "--commit-rate",
        type=float,
        default=10.0,
        help="games committed per second meanwhile in the second latency part (0: no second part)",
    )
    parser.add_argument(
        "--interval-ms", type=float, default=20.0, help="at most one load this often in the second latency part"
    )
    parser.add_argument("--rate", type=float, default=100.0, help="page loads per second of the flood")
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window of each arena phase")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-flood", action="store_true", help="measure the latency only")
    parser.add_argument("--skip-latency", action="store_true", help="measure the flood's cost only")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    print("command: python", " ".join(sys.argv), flush=True)
    games = build(args.db, args.games)
    print(f"database {args.db}: tournament {TOURNAMENT!r}, {games} finished games, {BOTS} bots, {os.cpu_count()} cores")
    if not args.skip_latency:
        for name, spent in render_costs(args.db).items():
            print(f"render in process, {name:<48} median {statistics.median(spent) * 1000:7.1f} ms  ({len(spent)})")
        cpu: dict[str, float] = {}
        print_latency("no game committed meanwhile", latency(args.db, args.requests, 0.0, cpu), cpu)
        if args.commit_rate:
            cpu = {}
            times = latency_while_committing(args.db, args.requests, args.commit_rate, args.interval_ms / 1000, cpu)
            what = f"{args.commit_rate:g} games/s committed meanwhile, a load every {args.interval_ms:g} ms at most"
            print_latency(what, times, cpu)
    if args.skip_flood:
        return
    from arena.startup.arena import tune_gc

    tune_gc()
    ratios = []
    with tempfile.TemporaryDirectory(prefix="scout-web-bench-") as tmp:
        for _ in range(args.repeat):
            copy = Path(tmp) / f"quiet-{len(ratios)}.db"
            shutil.copy(args.db, copy)
            quiet, _ = asyncio.run(arena_phase(copy, None, args.seconds))
            print(quiet.line("arena, web pages idle"), flush=True)
            copy = Path(tmp) / f"flooded-{len(ratios)}.db"
            shutil.copy(args.db, copy)
            flooded, report = asyncio.run(arena_phase(copy, args.rate, args.seconds))
            print(flooded.line(f"arena, {args.rate:g} page loads/s"), flush=True)
            assert report is not None
            print(
                f"  flood: {report['ok']}/{report['sent']} pages at {report['rate']:.0f}/s, "
                f"{report['failed']} failed, "
                f"p50 {report['p50_ms']:.0f} ms p99 {report['p99_ms']:.0f} ms",
                flush=True,
            )
            ratios.append(flooded.per_second / quiet.per_second)
    print(
        f"decisions/s with the flood / without (median of {args.repeat}): {statistics.median(ratios):.2f} "
        f"(target >= 0.90; each: {', '.join(f'{r:.2f}' for r in ratios)})"
    )


if __name__ == "__main__":
    main()
