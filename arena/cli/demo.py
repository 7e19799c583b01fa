"""`scout-arena demo`: a whole tournament on this machine, in about a minute on two cores.

It starts an arena (`scout-arena serve`) on a free loopback port with a fresh SQLite file,
registers the example bots, launches each as a separate process that connects over gRPC like any
bot (`python -m sdk.cli run KIND --tournament demo ...`, i.e. `scout-bot run`), creates a
round-robin tournament among them and starts it once all have entered, follows it with a live
progress bar, and prints the final TrueSkill table. The database stays behind, so
`scout-arena ratings --db FILE` and `scout-arena games show ID --db FILE` read it afterwards.
`--db` may name a PostgreSQL database instead (`postgresql+psycopg://...`): one without tables,
since the demo replaces only its own SQLite file. Another program's database is never touched.

Ctrl-C stops the bots and the arena (which voids the games in play), then marks the tournament
failed ("interrupted ..."): its bots are gone, so unlike a tournament whose arena stopped it is
not resumed by the next `serve` on the database; its finished games and their ratings are kept.

The arena serves its web pages (`arena.web`) on `--http-port` (a free port unless told;
`--no-http`: none), and the demo prints their address; after the last game they stay up
for `--linger` seconds (default LINGER_S when run from a terminal, none otherwise) or until Ctrl-C.

Defaults: five entrants (two random bots with different seeds, two greedy, one Monte-Carlo
searcher thinking `SEARCH_MOVE_S` per move) at 4-seat tables, so the five tables of the
round robin put every pair together three times; `DEFAULT_GAMES_PER_TABLE` games each.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.errors import ArenaError, UnknownTournament
from arena.records import TournamentStatus
from arena.tournaments.settings import TournamentSettings
from sdk import env
from sdk.loading import own_examples, searches

if TYPE_CHECKING:
    from arena.cli.remote import RemoteArena
    from arena.ratings.table import RatingRow
    from arena.records import Tournament

# The storage and gRPC modules are imported by the functions that use them: `scout-arena` imports
# this module for its defaults (`--help`), which need neither.

DEFAULT_BOTS = "random,random,greedy,greedy,montecarlo"
DEFAULT_TABLE_SIZE = 4
DEFAULT_GAMES_PER_TABLE = 8
DEFAULT_DB = "scout-arena-demo.db"
SEARCH_MOVE_S = 0.05
"""A search bot's thinking time per move (`sdk.loading.searches`: montecarlo, strong): small, so
its games keep pace with the others."""
TOURNAMENT = "demo"
BOT_TOKEN_VARIABLE = env.BOT_TOKEN
"""Where `scout-bot run` reads its --token from: the demo's bots get their tokens there."""
MOVE_LIMIT_MS = 2000
CAPACITY = 4
START_TIMEOUT_S = 60.0
ENTRY_TIMEOUT_S = 60.0
STALL_TIMEOUT_S = 120.0
"""Bounds: on the arena starting, on every bot entering, and on going without a finished game."""
POLL_S = 0.25
LINGER_S = 60.0
"""How long the web pages stay up after the last game, by default, when the demo runs in a terminal."""
DEMO_SPECTATOR_DELAY_S = 2
"""The demo's live games are its own bots': a short delay lets its page follow a game as it goes."""


class DemoFailed(ArenaError):
    """The demo could not run; the message says why."""


class DemoInterrupted(ArenaError):
    """Ctrl-C stopped the demo; the message says how far it got and what became of its tournament."""


@dataclass(frozen=True)
class Entrant:
    """One example bot of the demo: its registered name, its kind and the seed of its randomness."""

    name: str
    kind: str
    seed: int


def entrants(kinds: Sequence[str], table_size: int) -> list[Entrant]:
    """Names for the requested kinds: a kind asked for once keeps its name, repeats are numbered.
    DemoFailed if a kind is unknown or there are too few to fill a table."""
    examples = own_examples()
    unknown = sorted(set(kinds) - examples.keys())
    if unknown or not kinds:
        raise DemoFailed(
            f"unknown example bot {', '.join(map(repr, unknown)) or 'list'} for --bots "
            f"(choose from {', '.join(examples)}, comma-separated)"
        )
    if len(kinds) < table_size:
        raise DemoFailed(f"{len(kinds)} bots cannot fill a {table_size}-seat table: add bots or lower --table-size")
    counts = Counter(kinds)
    seen: Counter[str] = Counter()
    out = []
    for seed, kind in enumerate(kinds, start=1):
        seen[kind] += 1
        out.append(Entrant(kind if counts[kind] == 1 else f"{kind}-{seen[kind]}", kind, seed))
    return out


def demo_database(text: str) -> tuple[str, Path | None]:
    """The database URL for `--db` (a SQLite file's path or a URL) and, for SQLite, its file.
    DemoFailed (or another ArenaError) for a directory, another program's database, or a
    PostgreSQL database that already holds tables; an existing SQLite file is the caller's to
    confirm and `remove_database`."""
    from arena.cli.clients import database_url
    from arena.storage.database import SchemaKind, database_state, parse_url, refuse_unusable, shown_database

    url = database_url(text)
    parsed = parse_url(url)
    path = Path(parsed.database) if parsed.get_backend_name() == "sqlite" and parsed.database else None
    if path is not None and path.is_dir():
        raise DemoFailed(f"{path} is a directory, not a database file: give a file's path, e.g. {path / DEFAULT_DB}")
    if path is not None and not path.exists():
        return url, path
    state = database_state(url)
    if state.kind is SchemaKind.FOREIGN:
        refuse_unusable(state, parsed, create=True)
    if path is None and state.kind is not SchemaKind.EMPTY:
        raise DemoFailed(
            f"{shown_database(parsed)} already holds an arena's tables: the demo needs an empty "
            "database (drop them, or give another)"
        )
    return url, path


def remove_database(path: Path) -> None:
    """Delete a SQLite file with its WAL companions."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def arena_process(
    url: str, port: int, logs: Path, options: Sequence[str] = ()
) -> Iterator[tuple[str, str, str | None]]:
    """A server on the database `url` at 127.0.0.1:`port` (0: a free one), with further `options` of
    `scout-arena serve`, logging to `logs`/arena.log; yields (address, admin token, its web pages'
    address or None) and stops it (SIGTERM, bounded wait) at the end."""
    log = (logs / "arena.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--json",
            "--db",
            url,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        line = proc.stdout.readline() if ready else ""
        if not line:
            raise DemoFailed(f"the arena did not start: {_last_line(logs / 'arena.log')}")
        first = json.loads(line)
        yield f"127.0.0.1:{first['port']}", first["admin_token"], first["web"]
    finally:
        _stop(proc)
        log.close()


@contextmanager
def bot_processes(
    target: str, tokens: dict[str, str], cast: Sequence[Entrant], logs: Path
) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Each entrant as its own `scout-bot run ... --tournament demo` process; stopped at the end.
    Its token goes in its environment, not on its command line, which `ps` shows to every user."""
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for e in cast:
            argv = [
                sys.executable,
                "-m",
                "sdk.cli",
                "run",
                e.kind,
                "--name",
                e.name,
                "--seed",
                str(e.seed),
                "--tournament",
                TOURNAMENT,
                "--target",
                target,
                "--capacity",
                str(CAPACITY),
            ]
            if searches(own_examples()[e.kind]):
                argv += ["--move-time", str(SEARCH_MOVE_S)]
            procs[e.name] = subprocess.Popen(
                argv,
                stdout=subprocess.DEVNULL,
                stderr=(logs / f"{e.name}.log").open("wb"),
                env={**os.environ, BOT_TOKEN_VARIABLE: tokens[e.name]},
            )
        yield procs
    finally:
        for proc in procs.values():
            _stop(proc)


def run_demo(
    console: Console,
    *,
    cast: Sequence[Entrant],
    table_size: int,
    games_per_table: int,
    db: str,
    port: int,
    seed: int | None,
    show: Callable[[list[RatingRow]], None],
    http_port: int | None = None,
    linger: float = 0,
) -> None:
    """Play the demo tournament among `cast` on the empty database `db` (a URL) and `show` its
    rating table; DemoFailed (or another ArenaError) says what went wrong, DemoInterrupted what
    Ctrl-C left. With `http_port` the arena serves its web pages there (0: a free port; None:
    none), and they stay up `linger` seconds after the last game (Ctrl-C ends the wait early)."""
    try:
        _play(
            console,
            cast=cast,
            table_size=table_size,
            games_per_table=games_per_table,
            db=db,
            port=port,
            seed=seed,
            show=show,
            http_port=http_port,
            linger=linger,
        )
    except KeyboardInterrupt:
        raise DemoInterrupted(interrupted(db)) from None


def interrupted(db: str) -> str:
    """Mark the demo's tournament on `db` failed after Ctrl-C (its arena has stopped) and say so."""
    from sqlmodel import Session

    from arena.storage import store
    from arena.storage.database import open_database, parse_url, shown_database

    try:
        engine = open_database(db, create=False)
    except ArenaError:
        return "the demo stopped before its arena made a database"
    try:
        with Session(engine) as session:
            t = store.show_tournament(session=session, tournament=TOURNAMENT)
            done = f"{t.games.finished} of {t.games.total} games"
            store.fail_tournament(
                session=session,
                tournament=TOURNAMENT,
                reason=f"interrupted: the demo was stopped (Ctrl-C) after {done}",
            )
    except UnknownTournament:
        return "the demo stopped before its tournament was made"
    finally:
        engine.dispose()
    return (
        f"the demo stopped after {done}; tournament {TOURNAMENT!r} is marked failed, "
        f"its finished games and ratings are kept in {shown_database(parse_url(db))}"
    )


def _play(
    console: Console,
    *,
    cast: Sequence[Entrant],
    table_size: int,
    games_per_table: int,
    db: str,
    port: int,
    seed: int | None,
    show: Callable[[list[RatingRow]], None],
    http_port: int | None,
    linger: float,
) -> None:
    from arena.cli.remote import RemoteArena
    from arena.storage.database import parse_url, shown_database

    web_option = ("--no-http",) if http_port is None else ("--http-port", str(http_port))
    with tempfile.TemporaryDirectory(prefix="scout-arena-demo-") as tmp:
        logs = Path(tmp)
        with arena_process(db, port, logs, web_option) as (target, admin_token, web):
            console.print(f"Arena on {target}, database {shown_database(parse_url(db))}", highlight=False, markup=False)
            if web is not None:
                console.print(f"Watch it in a browser: {web}", highlight=False, markup=False)
            client = RemoteArena(target, admin_token)
            try:
                tokens = {e.name: client.register_bot(e.name) for e in cast}
                client.create_tournament(
                    TournamentSettings(
                        TOURNAMENT,
                        table_size,
                        games_per_table,
                        datetime.now(UTC) + timedelta(days=1),
                        MOVE_LIMIT_MS,
                        concurrency=CAPACITY,
                        seed=seed,
                        spectator_delay_s=DEMO_SPECTATOR_DELAY_S,
                    )
                )
                with bot_processes(target, tokens, cast, logs) as procs:
                    console.print(f"Bots, each its own process: {', '.join(e.name for e in cast)}", highlight=False)
                    _await_entries(client, procs, logs)
                    started = client.start_tournament(TOURNAMENT)
                    console.print(
                        f"Tournament {TOURNAMENT!r}: {started.games.total} games at {table_size}-seat "
                        f"tables, {games_per_table} per table",
                        highlight=False,
                    )
                    _follow(console, client, started, procs, logs)
                show(client.ratings(TOURNAMENT))
            finally:
                client.close()
            if web is not None and linger > 0:
                _linger(console, web, linger)


def _linger(console: Console, web: str, seconds: float) -> None:
    """Keep the arena (and so its web pages) up `seconds` more, or until Ctrl-C."""
    console.print(
        f"The web pages stay up at {web} for {seconds:g} s (Ctrl-C stops them sooner).", highlight=False, markup=False
    )
    try:
        time.sleep(seconds)
    except KeyboardInterrupt:
        console.print("Stopping the arena.", highlight=False, markup=False)


def _await_entries(client: RemoteArena, procs: dict[str, subprocess.Popen[bytes]], logs: Path) -> None:
    deadline = time.monotonic() + ENTRY_TIMEOUT_S
    while set(client.tournament(TOURNAMENT).entrants) != set(procs):
        _check_alive(procs, logs)
        if time.monotonic() > deadline:
            raise DemoFailed(f"the bots did not all enter within {ENTRY_TIMEOUT_S:g} s")
        time.sleep(POLL_S)


def _follow(
    console: Console, client: RemoteArena, t: Tournament, procs: dict[str, subprocess.Popen[bytes]], logs: Path
) -> None:
    """A live progress bar until the tournament finishes; DemoFailed if it stalls."""
    with Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("games", total=t.games.total)
        done, last_change = 0, time.monotonic()
        while t.status is not TournamentStatus.FINISHED:
            time.sleep(POLL_S)
            t = client.tournament(TOURNAMENT)
            bar.update(task, completed=t.games.finished)
            if t.games.finished != done:
                done, last_change = t.games.finished, time.monotonic()
            elif time.monotonic() - last_change > STALL_TIMEOUT_S:
                raise DemoFailed(f"no game finished in {STALL_TIMEOUT_S:g} s; stopping the demo")
            if t.status is not TournamentStatus.FINISHED:
                _check_alive(procs, logs)


def _check_alive(procs: dict[str, subprocess.Popen[bytes]], logs: Path) -> None:
    for name, proc in procs.items():
        if proc.poll() is not None:
            raise DemoFailed(f"bot {name} stopped early: {_last_line(logs / f'{name}.log')}")


def _last_line(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    return lines[-1] if lines else "no output"


def _stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """SIGTERM, up to 20 s for a clean exit, then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def interactive() -> bool:
    """Whether the demo may ask a question: a terminal on stdin, and not in CI."""
    return sys.stdin.isatty() and os.environ.get("CI", "").lower() not in ("true", "1")
