"""The zoo inside tournaments: a database-backed arena process plays a small tournament with one
broken bot and two healthy ones, under the default failure policy per cause (issue #6). The stored
result rows must carry the broken seat's exact forfeit reason, cause and policy decision (and no
other forfeit); a crash mid-game (a disconnect, which the default policy voids) must leave a
voided attempt and a replay of the same game; and nothing in the database may change except the
rows of that tournament."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.results import ForfeitCause, PolicyDecision
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.settings import TournamentSettings
from tests.reliability.conftest import HERE, WAIT_S
from tests.reliability.zoo_bot import EXIT_CODE
from tests.tournaments.arena_process import ArenaProcess
from tests.tournaments.conftest import BotProcesses, wait_until

BOT_PROCESS = str(HERE.parent / "api" / "bot_process.py")
POLICY = FailurePolicy(absent_wait_ms=500, grace_ms=300, time_bank_ms=0)
MOVE_MS = 1000
"""Generous for the healthy bots: a busy machine once made one miss 250 ms."""

Snapshot = dict[str, set[tuple[object, ...]]]


class DbArena:
    """One arena process on a SQLite file, with two healthy bots registered and connected."""

    def __init__(self, tmp: Path, bots: BotProcesses) -> None:
        self.path = tmp / "arena.db"
        self.url = f"sqlite:///{self.path}"
        self.engine: Engine = open_database(self.url)
        self.bots = bots
        self.process = ArenaProcess(self.url, tmp / "server.log")
        self.healthy = ["healthy-a", "healthy-b"]
        for name in self.healthy:
            self.start(BOT_PROCESS, self.register(name), name)
        for name in self.healthy:
            self.wait_connected(name)

    def register(self, name: str) -> str:
        with Session(self.engine) as session:
            return store.register_bot(session=session, name=name).token

    def start(self, program: str, token: str, name: str, *args: str) -> None:
        self.bots.start([program], self.process.target, token, name, *args)

    def wait_connected(self, name: str) -> None:
        wait_until(lambda: f"bot {name!r} connected" in self.process.log.read_text(), f"{name} to connect", WAIT_S)

    def snapshot(self) -> Snapshot:
        """Every row of every table, read with the sqlite3 module (independent of the store)."""
        with sqlite3.connect(self.path) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {t: set(db.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables}

    def rows(self, query: str, args: tuple[object, ...]) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.path) as db:
            return db.execute(query, args).fetchall()

    def columns(self, table: str) -> list[str]:
        with sqlite3.connect(self.path) as db:
            return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]


@pytest.fixture(scope="module")
def db_arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DbArena]:
    tmp = tmp_path_factory.mktemp("zoo-db")
    bots = BotProcesses(tmp)
    arena = DbArena(tmp, bots)
    yield arena
    bots.stop()
    assert arena.process.stop() == 0
    arena.engine.dispose()


ABSENT = (
    ForfeitCause.ABSENT,
    re.escape(f"absent: not connected within {POLICY.absent_wait_ms / 1000:g} s of the game being due"),
)
DISCONNECT = (
    ForfeitCause.DISCONNECT,
    re.escape(f"disconnected: not back within the {POLICY.grace_ms} ms grace period"),
)
TIMEOUT = (ForfeitCause.TIMEOUT, rf"timeout: no legal answer to request \d+ within {MOVE_MS} ms")
CASES = [
    # behaviour, its arguments, the forfeit (cause, reason) of its every counted game, of its voided attempts
    ("crash-mid-game", ("--after", "4"), ABSENT, [DISCONNECT]),
    ("crash-at-start", (), ABSENT, [DISCONNECT]),
    ("raises", (), TIMEOUT, []),
    ("crash-at-connect", (), ABSENT, []),
]
"""A bot that crashes during a game (even as it starts: it was connected when the game began)
disconnects: the default policy voids that attempt, and the replay finds the bot gone, so it
forfeits as absent there and in its later games. A timeout and an absence forfeit at once."""


@pytest.mark.parametrize("behaviour, args, counted, voided", CASES, ids=[c[0] for c in CASES])
def test_the_stored_result_holds_the_forfeit_and_nothing_else_changes(
    db_arena: DbArena,
    behaviour: str,
    args: tuple[str, ...],
    counted: tuple[ForfeitCause, str],
    voided: list[tuple[ForfeitCause, str]],
) -> None:
    name = f"zoo-{behaviour}"
    token = db_arena.register(name)
    tournament = f"t-{behaviour}"
    settings = TournamentSettings(
        tournament,
        table_size=3,
        games_per_table=1,
        starts_at=datetime.now(UTC) + timedelta(days=1),
        move_limit_ms=MOVE_MS,
        seed=7,
        policy=POLICY,
    )
    with Session(db_arena.engine) as session:
        tid = store.create_tournament(session=session, settings=settings).id
        for bot in (*db_arena.healthy, name):
            store.enter_tournament(session=session, tournament=tournament, bot=bot)
    db_arena.start(str(HERE / "zoo_bot.py"), token, name, "--behaviour", behaviour, *args)
    if behaviour == "crash-at-connect":
        wait_until(lambda: db_arena.bots.procs[-1].poll() == EXIT_CODE, "the zoo bot to crash", WAIT_S)
        wait_until(lambda: f"bot {name!r} disconnected" in db_arena.process.log.read_text(), "the disconnect", WAIT_S)
    else:
        db_arena.wait_connected(name)
    with Session(db_arena.engine) as session:
        store.start_tournament(session=session, tournament=tournament)
    before = db_arena.snapshot()

    def finished() -> bool:
        with Session(db_arena.engine) as session:
            return store.show_tournament(session=session, tournament=tournament).finished_at is not None

    wait_until(finished, f"tournament {tournament} to finish")
    after = db_arena.snapshot()

    with Session(db_arena.engine) as session:
        games = [
            store.show_game(session=session, game_id=g.id)
            for g in store.list_games(session=session, tournament=tournament)
        ]
    assert games, "the tournament played no game"
    for game in games:
        for seat in game.info.results:
            if seat.bot == name:
                assert seat.forfeit is not None and re.fullmatch(counted[1], seat.forfeit), seat
                assert (seat.cause, seat.policy, seat.rank) == (
                    counted[0],
                    PolicyDecision.FORFEIT,
                    len(game.info.results),
                )
            else:
                assert seat.forfeit is None, seat
    attempts = [(game, v) for game in games for v in game.voided]
    assert len(attempts) == len(voided), attempts
    for (game, attempt), (cause, reason) in zip(attempts, voided, strict=True):
        assert (
            attempt.result.record.seed == attempt.seed != game.info.seed and game.info.attempts == attempt.attempt + 1
        )
        (failed,) = [s for s in attempt.result.seats if s.forfeit is not None]
        assert failed.bot == name and re.fullmatch(reason, failed.forfeit), failed  # type: ignore[arg-type]
        assert (failed.cause, failed.policy) == (cause, PolicyDecision.VOID)
    stored = db_arena.rows(
        "SELECT DISTINCT forfeit_cause, policy FROM seat_results JOIN games ON games.id = game_id "
        "WHERE tournament_id = ? AND forfeit IS NOT NULL",
        (tid,),
    )
    assert stored == [(counted[0].value, "forfeit")]

    bot_ids = {
        row[0] for row in db_arena.rows("SELECT id FROM bots WHERE name IN (?, ?, ?)", (*db_arena.healthy, name))
    }
    game_ids = {row[0] for row in db_arena.rows("SELECT id FROM games WHERE tournament_id = ?", (tid,))}
    assert len(bot_ids) == 3 and game_ids

    def ours(table: str, row: dict[str, object]) -> bool:
        """Whether a changed row is this tournament's: its own rows, its games' seats, and the
        all-tournament ladder rows of its entrants updated by its games."""
        if table == "tournaments":
            return row["id"] == tid
        if "game_id" in row:
            return row["game_id"] in game_ids and row.get("tournament_id") in (tid, None)
        if "tournament_id" in row:
            return row["tournament_id"] == tid or (row["tournament_id"] is None and row.get("bot_id") in bot_ids)
        return False

    for table in sorted(set(before) | set(after)):
        columns = db_arena.columns(table)
        changed = [dict(zip(columns, r, strict=True)) for r in before.get(table, set()) ^ after.get(table, set())]
        strangers = [row for row in changed if not ours(table, row)]
        assert strangers == [], f"{table!r}: rows changed that are not tournament {tournament!r}'s"
