"""Benchmark: a whole tournament of random bots, end to end, in games per second.

Everything runs as it does for users: an arena server process (`scout-arena serve --db URL`,
logging at INFO as operators run it), and each random bot a process of its own connected over
gRPC on loopback. The database is prepared first (bots registered and entered); the clock runs from
the StartTournament call to the tournament reported finished, so it covers scheduling, playing
every game through the referee, and committing each game with its ratings in one transaction.

    .venv/bin/python benchmarks/tournament_speed.py [--bots 6] [--table-size 4] [--games-per-table 40]
                                                    [--concurrency 8] [--postgres URL]

PostgreSQL is measured when --postgres or SCOUT_TEST_POSTGRES_URL gives a URL, in a throwaway
schema dropped afterwards. On a 2-core machine the bots, the arena and the database share the
cores, so the figure is a whole-system one: compare runs on the same machine only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import Session
from storage_commit import postgres_schema

from arena import records
from arena.cli.demo import arena_process
from arena.cli.remote import RemoteArena
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings

CONNECT_TIMEOUT_S = 60.0
FINISH_TIMEOUT_S = 1800.0


def prepare(url: str, bots: int, table_size: int, games_per_table: int, concurrency: int) -> dict[str, str]:
    """Register and enter the bots in a tournament 'bench' (not yet started); returns their tokens."""
    engine = open_database(url)
    try:
        with Session(engine) as session:
            store.create_tournament(
                session=session,
                settings=TournamentSettings(
                    "bench",
                    table_size,
                    games_per_table,
                    datetime.now(UTC) + timedelta(days=1),
                    2000,
                    concurrency,
                    seed=1,
                ),
            )
            tokens = {f"random-{i}": store.register_bot(session=session, name=f"random-{i}").token for i in range(bots)}
            for name in tokens:
                store.enter_tournament(session=session, tournament="bench", bot=name)
    finally:
        engine.dispose()
    return tokens


def run(label: str, url: str, args: argparse.Namespace, logs: Path) -> None:
    tokens = prepare(url, args.bots, args.table_size, args.games_per_table, args.concurrency)
    with arena_process(url, 0, logs) as (target, admin_token, _web):
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bots.random_bot",
                    "--target",
                    target,
                    "--token",
                    token,
                    "--capacity",
                    str(args.concurrency),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for token in tokens.values()
        ]
        client = RemoteArena(target, admin_token)
        try:
            measure(label, client, logs / "arena.log", len(tokens))
        finally:
            client.close()
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=30)


def measure(label: str, client: RemoteArena, log: Path, bots: int) -> None:
    """Start the tournament once every bot is connected; print its games/s when it finishes."""
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while log.read_text().count("connected (") < bots:
        if time.monotonic() > deadline:
            raise SystemExit(f"{label}: the bots did not connect; see {log}")
        time.sleep(0.05)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    total = client.start_tournament("bench").games.total
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    while client.tournament("bench").status is not records.TournamentStatus.FINISHED:
        if time.monotonic() > deadline:
            raise SystemExit(f"{label}: not finished in {FINISH_TIMEOUT_S:g} s; see {log}")
        time.sleep(0.02)
    seconds = time.perf_counter() - start
    print(f"| {label} | {total} | {seconds:.2f} | {total / seconds:.1f} | {load:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=6, help="random bots entered (default 6)")
    parser.add_argument("--table-size", type=int, default=4, help="seats per table (default 4)")
    parser.add_argument("--games-per-table", type=int, default=40, help="games per scheduled table (default 40)")
    parser.add_argument("--concurrency", type=int, default=8, help="games at once, and each bot's capacity (default 8)")
    parser.add_argument("--postgres", default=os.environ.get("SCOUT_TEST_POSTGRES_URL"), help="PostgreSQL URL")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(
        f"{os.cpu_count()} CPUs; {args.bots} random bots at {args.table_size}-seat tables, "
        f"{args.games_per_table} games per table, {args.concurrency} at once"
    )
    print("\n| database | games | seconds | games/s | load average at start |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "sqlite").mkdir()
        run("SQLite (WAL)", f"sqlite:///{Path(tmp) / 'arena.db'}", args, Path(tmp) / "sqlite")
        if not args.postgres:
            print("PostgreSQL: skipped (give --postgres URL or set SCOUT_TEST_POSTGRES_URL)")
            return
        (Path(tmp) / "postgres").mkdir()
        with postgres_schema(args.postgres) as url:
            run("PostgreSQL (psycopg 3)", url, args, Path(tmp) / "postgres")


if __name__ == "__main__":
    main()
