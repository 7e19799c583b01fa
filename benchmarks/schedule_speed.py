"""Schedule speed and balance: seconds per schedule for fields of 12 to 1,000 entrants, every table size.

Run:  .venv/bin/python benchmarks/schedule_speed.py [--sizes 12,100,160,1000] [--rounds 3] [--seed 1] [--start]

For each table size and field it makes the full round robin (when its games fit the arena's
limit, `arena.tournaments.entries.MAX_GAMES`, at one game a table) and the bounded format of `--rounds`
rounds, and prints the seconds `arena.tournaments.schedule.round_robin` took, the tables, each entrant's
seat counts (exact balance shows one tuple), and the spread of pair counts: min and max tables a
pair shares (within one is the target) and how many pairs never meet. The baseline is the
schedule's own floor: a full round robin of 12 (the small-field search) in the same run.

With `--start` it also times `store.start_tournament` of the largest tournament the limits allow
(1,000 entrants at 5 seats, a full round robin: 50,000 games) on a fresh SQLite file: the
schedule and every table and game row, stored in chunks of `SCHEDULE_CHUNK_GAMES` as an arena's start
stores them, and the CPU this process spent on it: the rows, since a schedule this large is drawn in a
child process.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from arena.storage import store
from arena.storage.database import open_database
from arena.storage.tables import BotRow, EntryRow
from arena.tournaments.entries import MAX_ENTRANTS, MAX_GAMES
from arena.tournaments.schedule import Schedule, round_robin, table_count
from arena.tournaments.settings import TournamentSettings


def spread(schedule: Schedule) -> tuple[int, int, int]:
    """(least, most tables a pair shares, pairs that never meet)."""
    counts: Counter[tuple[str, str]] = Counter()
    for table in schedule.tables:
        counts.update(combinations(sorted(table.seats), 2))
    n = len(schedule.entrants)
    unmet = n * (n - 1) // 2 - len(counts)
    return (0 if unmet else min(counts.values())), max(counts.values()), unmet


def time_start(seed: int) -> tuple[int, float, float]:
    """(games stored, seconds, CPU seconds of this process) of starting the largest tournament the
    limits allow on SQLite. The schedule is drawn in a child process (`DRAWN_APART_TABLES`), so
    this process's CPU is what storing its rows costs the arena's interpreter."""
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_database(f"sqlite:///{Path(tmp) / 'arena.db'}")
        with Session(engine) as session:
            made = store.create_tournament(
                session=session, settings=TournamentSettings("largest", 5, 1, now, 1000, seed=seed)
            )
            names = [f"bot{i:04d}" for i in range(MAX_ENTRANTS)]
            session.exec(sa.insert(BotRow), params=[{"name": n, "token_hash": n, "created_at": now} for n in names])  # type: ignore[call-overload]
            ids = session.exec(sa.select(BotRow.id)).scalars().all()  # type: ignore[call-overload]
            session.exec(
                sa.insert(EntryRow),  # type: ignore[call-overload]
                params=[{"tournament_id": made.id, "bot_id": i, "entered_at": now} for i in ids],
            )
            session.commit()
            started, cpu = time.perf_counter(), time.process_time()
            tournament = store.start_tournament(session=session, tournament="largest")
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        engine.dispose()
    return tournament.games.total, seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="12,100,160,1000", help="field sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the bounded format")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", action="store_true", help="also time the start of the largest tournament")
    args = parser.parse_args()
    print("command:", " ".join([sys.executable, *sys.argv]))
    print(f"python {platform.python_version()} on {platform.machine()}, one process; game limit {MAX_GAMES}")
    print(
        f"{'seats':>5} {'entrants':>8} {'format':>12} {'tables':>7} {'seconds':>8} {'seat counts':>16} "
        f"{'pair min':>8} {'pair max':>8} {'unmet':>6}"
    )
    for k in range(2, 6):
        for n in (int(s) for s in args.sizes.split(",")):
            for rounds in (None, args.rounds):
                label = "round robin" if rounds is None else f"{rounds} rounds"
                if table_count(n, k, rounds) > MAX_GAMES:
                    print(f"{k:>5} {n:>8} {label:>12} {table_count(n, k, rounds):>7} {'over the game limit':>28}")
                    continue
                names = [f"bot{i:04d}" for i in range(n)]
                started = time.perf_counter()
                schedule = round_robin(names, k, args.seed, rounds)
                seconds = time.perf_counter() - started
                seats = set(schedule.seat_counts().values())
                low, high, unmet = spread(schedule)
                shown = str(next(iter(seats))) if len(seats) == 1 else f"{len(seats)} different"
                print(
                    f"{k:>5} {n:>8} {label:>12} {len(schedule.tables):>7} {seconds:>8.2f} {shown:>16} "
                    f"{low:>8} {high:>8} {unmet:>6}",
                    flush=True,
                )
    if args.start:
        games, seconds, cpu = time_start(args.seed)
        print(
            f"start of {MAX_ENTRANTS} entrants at 5 seats, full round robin, SQLite: {games} games in {seconds:.2f} s"
            f" ({cpu:.2f} s of this process's CPU: storing the rows; the schedule is drawn in a child process)"
        )


if __name__ == "__main__":
    main()
