"""Benchmark: committing finished games (record + seat results + both rating updates + history).

Prints, for SQLite (WAL, synchronous=NORMAL) and PostgreSQL:
* commit_game: time per call (median, mean, p90), each on the writer's connections as the arena
  commits, games played beforehand with random policies;
* the TrueSkill share of it (two `rate_game` calls per game: tournament scope and global ladder);
* a whole tournament of random engine games through the store (start, next_games,
  mark_game_running, play, commit_game) in games/s, and the engine's share of that time;
* a baseline in the same run: the same rows written per game with the raw driver (sqlite3 or
  psycopg), no ORM and no TrueSkill.

    .venv/bin/python benchmarks/storage_commit.py [--games 300] [--postgres URL]

PostgreSQL is measured when --postgres or SCOUT_TEST_POSTGRES_URL gives a URL; a throwaway schema
is created for the run and dropped afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from arena import records
from arena.play.results import GameResult, SeatResult, final_ranks
from arena.ratings.table import Rating, arena_env, rate_game
from arena.storage import store
from arena.storage.database import open_database
from arena.storage.writer import Writer
from arena.tournaments.settings import TournamentSettings
from sdk.engine import Game, record_of

BOTS = 8
TABLE_SIZE = 4


def random_result(game: records.GameToPlay) -> GameResult:
    """Play one game with every seat choosing uniformly at random."""
    engine_game = Game(len(game.seats), game.seed)
    rng = random.Random(game.seed)
    while not engine_game.is_over:
        actions = engine_game.legal_actions()
        engine_game.apply(engine_game.to_move, actions[rng.randrange(len(actions))])
    record = record_of(engine_game)
    ranks = final_ranks(record.totals, [False] * len(game.seats))
    seats = tuple(SeatResult(s, b, record.totals[s], ranks[s]) for s, b in enumerate(game.seats))
    return GameResult(record, seats)


def new_tournament(session: Session, name: str, games_per_table: int) -> None:
    bots = [f"bench{i}" for i in range(BOTS)]
    known = {b.name for b in store.list_bots(session=session)}
    for bot in bots:
        if bot not in known:
            store.register_bot(session=session, name=bot)
    store.create_tournament(
        session=session,
        settings=TournamentSettings(
            name=name,
            table_size=TABLE_SIZE,
            games_per_table=games_per_table,
            starts_at=datetime.now(UTC),
            move_limit_ms=1000,
            seed=1,
        ),
    )
    for bot in bots:
        store.enter_tournament(session=session, tournament=name, bot=bot)


def time_commits(session: Session, writer: Writer, games: int) -> tuple[list[float], list[float], list[GameResult]]:
    """Wall and CPU seconds per commit_game call, each as the arena's writer runs it
    (`arena.storage.writer`: a session of its own on a writer connection, the log's checkpoints on
    their own thread), and the results committed."""
    new_tournament(session, "commit-bench", -(-games // BOTS))
    store.start_tournament(session=session, tournament="commit-bench")
    times: list[float] = []
    cpu: list[float] = []
    results: list[GameResult] = []
    for game in store.next_games(session=session, tournament="commit-bench")[:games]:
        store.mark_game_running(session=session, game_id=game.id)
        result = random_result(game)
        start, start_cpu = time.perf_counter(), time.process_time()
        writer.execute(store.commit_game, {"game_id": game.id, "result": result})
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        results.append(result)
    return times, cpu, results


def time_rating(results: list[GameResult]) -> float:
    """Seconds per game spent in TrueSkill (two scopes), from fresh ratings."""
    env = arena_env()
    ratings = {s.bot: Rating() for r in results for s in r.seats}
    start = time.perf_counter()
    for result in results:
        for _scope in range(2):
            current = {s.bot: ratings[s.bot] for s in result.seats}
            ratings.update(rate_game(env, current, {s.bot: s.rank for s in result.seats}))
    return (time.perf_counter() - start) / len(results)


def time_serialization(results: list[GameResult]) -> float:
    """Seconds per game spent turning the record into JSON (`GameRecord.to_json`), best of 3."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for result in results:
            result.record.to_json()
        best = min(best, time.perf_counter() - start)
    return best / len(results)


def time_tournament(session: Session, games: int) -> tuple[int, float, float]:
    """(games, seconds in all, seconds of engine play) for a whole tournament through the store."""
    new_tournament(session, "tournament-bench", -(-games // BOTS))
    playing = 0.0
    played = 0
    start = time.perf_counter()
    store.start_tournament(session=session, tournament="tournament-bench")
    while batch := store.next_games(session=session, tournament="tournament-bench", limit=16):
        for game in batch:
            store.mark_game_running(session=session, game_id=game.id)
            t = time.perf_counter()
            result = random_result(game)
            playing += time.perf_counter() - t
            store.commit_game(session=session, game_id=game.id, result=result)
            played += 1
    return played, time.perf_counter() - start, playing


RAW_SCHEMA = [
    "CREATE TABLE raw_games (id INTEGER PRIMARY KEY, status TEXT, record TEXT, finished_at TEXT, seq INTEGER)",
    "CREATE TABLE raw_seat_results (game_id INTEGER, seat INTEGER, bot_id INTEGER, points INTEGER, "
    "rank INTEGER, forfeit TEXT, PRIMARY KEY (game_id, seat))",
    "CREATE TABLE raw_ratings (id INTEGER PRIMARY KEY, bot_id INTEGER, mu REAL, sigma REAL, games INTEGER, "
    "wins REAL, total_points INTEGER, total_placing INTEGER)",
    "CREATE TABLE raw_rating_history (id SERIAL PRIMARY KEY, game_id INTEGER, bot_id INTEGER, scope INTEGER, "
    "mu_before REAL, sigma_before REAL, mu_after REAL, sigma_after REAL)",
]


def raw_commits(connect: Callable[[], object], placeholder: str, results: list[GameResult]) -> list[float]:
    """The same rows per game written with the raw DB-API driver, one transaction per game."""
    conn = connect()
    cur = conn.cursor()  # type: ignore[attr-defined]
    for ddl in RAW_SCHEMA:
        cur.execute(ddl.replace("SERIAL", "INTEGER") if placeholder == "?" else ddl)
    q = placeholder
    cur.executemany(
        f"INSERT INTO raw_ratings VALUES ({q},{q},25.0,8.3,0,0.0,0,0)", [(i, i % BOTS) for i in range(2 * BOTS)]
    )
    cur.executemany(f"INSERT INTO raw_games (id, status) VALUES ({q},'running')", [(i,) for i in range(len(results))])
    conn.commit()  # type: ignore[attr-defined]
    bot_ids = {f"bench{i}": i for i in range(BOTS)}
    times = []
    for game_id, result in enumerate(results):
        start = time.perf_counter()
        seats = [bot_ids[s.bot] for s in result.seats]
        cur.execute(
            f"UPDATE raw_games SET status='finished', record={q}, finished_at={q}, seq={q} "
            f"WHERE id={q} AND status='running'",
            (result.record.to_json(), datetime.now(UTC).isoformat(), game_id, game_id),
        )
        ids = seats + [b + BOTS for b in seats]
        cur.execute(f"SELECT id, mu, sigma FROM raw_ratings WHERE id IN ({','.join([q] * len(ids))})", ids)
        cur.fetchall()
        cur.executemany(
            f"UPDATE raw_ratings SET mu={q}, sigma={q}, games=games+1, wins=wins+{q}, total_points=total_points+{q}, "
            f"total_placing=total_placing+{q} WHERE id={q}",
            [(26.0, 8.0, 0.5, s.points, s.rank, i) for s, i in zip(result.seats * 2, ids, strict=True)],
        )
        cur.executemany(
            f"INSERT INTO raw_seat_results VALUES ({q},{q},{q},{q},{q},{q})",
            [(game_id, s.seat, bot_ids[s.bot], s.points, s.rank, s.forfeit) for s in result.seats],
        )
        cur.executemany(
            f"INSERT INTO raw_rating_history (game_id, bot_id, scope, mu_before, sigma_before, mu_after, sigma_after) "
            f"VALUES ({q},{q},{q},25.0,8.3,26.0,8.0)",
            [(game_id, i % BOTS, i // BOTS) for i in ids],
        )
        conn.commit()  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
    conn.close()  # type: ignore[attr-defined]
    return times


@contextmanager
def postgres_schema(base: str) -> Iterator[str]:
    """A URL whose search_path is a new schema, dropped on exit."""
    schema = f"scout_bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(base)
    with admin.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield (
            sa.make_url(base)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def report(label: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(
        f"  {label:<38} median {statistics.median(ms):6.3f} ms   mean {statistics.mean(ms):6.3f} ms   "
        f"p90 {p90:6.3f} ms   ({len(ms)} games)"
    )


def bench(kind: str, url: str, raw: Callable[[list[GameResult]], list[float]], games: int) -> None:
    print(f"{kind}:")
    engine = open_database(url)
    writer = Writer(engine)
    with Session(engine) as session:
        times, cpu, results = time_commits(session, writer, games)
        report("commit_game", times)
        report("commit_game, CPU time of this process", cpu)
        print(f"  {'  of which TrueSkill (2 scopes)':<38} mean {time_rating(results) * 1000:6.3f} ms")
        print(f"  {'  of which GameRecord.to_json':<38} mean {time_serialization(results) * 1000:6.3f} ms")
        report("baseline: same rows, raw driver", raw(results))
        played, seconds, playing = time_tournament(session, games)
        print(
            f"  {'whole tournament through the store':<38} {played / seconds:7.1f} games/s   "
            f"({played} games of {TABLE_SIZE} random bots in {seconds:.2f} s; engine play {playing / seconds:.0%})"
        )
    writer.close()
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per measurement (default 300)")
    parser.add_argument("--postgres", default=os.environ.get("SCOUT_TEST_POSTGRES_URL"), help="PostgreSQL URL")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(f"python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, SQLAlchemy {sa.__version__}")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start (other work skews figures)")
    with tempfile.TemporaryDirectory() as tmp:
        raw_path = Path(tmp) / "raw.db"

        def raw_sqlite(results: list[GameResult]) -> list[float]:
            def connect() -> sqlite3.Connection:
                conn = sqlite3.connect(raw_path)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                return conn

            return raw_commits(connect, "?", results)

        bench("SQLite (WAL, synchronous=NORMAL)", f"sqlite:///{Path(tmp) / 'arena.db'}", raw_sqlite, args.games)
    if not args.postgres:
        print("PostgreSQL: skipped (give --postgres URL or set SCOUT_TEST_POSTGRES_URL)")
        return
    import psycopg

    with postgres_schema(args.postgres) as url:
        conninfo = sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)

        def raw_postgres(results: list[GameResult]) -> list[float]:
            return raw_commits(lambda: psycopg.connect(conninfo), "%s", results)

        bench("PostgreSQL (psycopg 3)", url, raw_postgres, args.games)


if __name__ == "__main__":
    main()
