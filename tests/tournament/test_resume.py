"""THE resume test: SIGKILL the arena in the middle of a tournament, start it again on the same
database, and the tournament ends exactly as the same tournament played without interruption:
the same results game by game, the same rating tables to the last bit, nothing counted twice.

The bots are deterministic whatever the timing: greedy, and a "random" bot seeded by what it sees
(hashed_bot.py), which also answers after a short delay so games last long enough to be cut.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlmodel import Session

from arena import store
from arena.db import open_database
from arena.ratings import RatingRow
from arena.results import SeatResult
from arena.tournament_settings import TournamentSettings

from .arena_process import ArenaProcess
from .conftest import GREEDY, HASHED, BotProcesses, wait_until

SETTINGS = TournamentSettings(
    "resume", table_size=3, games_per_table=4, starts_at=datetime.now(timezone.utc) + timedelta(days=1),
    move_limit_ms=10_000, concurrency=3, seed=2024,
)
BOTS = {
    "greedy-a": (GREEDY, []),
    "greedy-b": (GREEDY, []),
    "hashed-a": (HASHED, ["--seed", "1", "--delay", "0.003"]),
    "hashed-b": (HASHED, ["--seed", "2", "--delay", "0.003"]),
}
GAMES = 16  # 4 tables (4 entrants, 3 seats) x 4 games
KILL_AFTER = 5
"""Finished games before the kill: well into the tournament, well before its end."""


@dataclass
class Outcome:
    """What a finished tournament left in its database."""

    games: dict[tuple[int, int], tuple[str | None, tuple[SeatResult, ...]]]
    """(table, game) -> (record JSON, results)"""
    commit_order: list[tuple[int, int]]
    table: list[RatingRow]
    ladder: list[RatingRow]
    attempts: dict[tuple[int, int], int]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def counts(url: str) -> store.GameCounts:
    engine = open_database(url)
    try:
        with Session(engine) as session:
            return store.show_tournament(session=session, tournament=SETTINGS.name).games
    finally:
        engine.dispose()


def play(tmp: Path, bots: BotProcesses, kill: bool) -> tuple[Outcome, int]:
    """Play the tournament on a fresh database; with `kill`, SIGKILL the arena after KILL_AFTER
    games and start it again. Returns the outcome and how many games the kill interrupted."""
    url = f"sqlite:///{tmp / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        SETTINGS.create(session=session)
        tokens = {name: store.register_bot(session=session, name=name).token for name in BOTS}
        for name in BOTS:
            store.enter_tournament(session=session, tournament=SETTINGS.name, bot=name)
    port = free_port()
    arena = ArenaProcess(url, tmp / "server.log", port=port)
    interrupted = 0
    try:
        for name, (program, args) in BOTS.items():
            bots.start(program, arena.target, tokens[name], f"{tmp.name}-{name}", *args)
        wait_until(lambda: all(f"bot '{name}' connected" in arena.log.read_text() for name in BOTS),
                   "the bots to connect")
        with Session(engine) as session:
            store.start_tournament(session=session, tournament=SETTINGS.name)
        if kill:
            wait_until(lambda: counts(url).finished >= KILL_AFTER, f"{KILL_AFTER} finished games")
            arena.kill()
            interrupted = counts(url).running
            arena = ArenaProcess(url, tmp / "server.log", port=port)
        wait_until(lambda: counts(url).finished == GAMES, "the tournament to finish")
    finally:
        bots.stop()  # first, so the arena has no sessions left to wait for as it stops
        stopped = arena.stop()
    assert stopped == 0
    with Session(engine) as session:
        games = store.list_games(session=session, tournament=SETTINGS.name)
        outcome = Outcome(
            games={(g.table_index, g.game_index): (_record(session, g.id), g.results) for g in games},
            commit_order=[(g.table_index, g.game_index) for g in sorted(games, key=_finished)],
            table=store.rating_table(session=session, tournament=SETTINGS.name),
            ladder=store.rating_table(session=session),
            attempts={(g.table_index, g.game_index): g.attempts for g in games},
        )
        assert outcome.table == store.recompute_ratings(session=session, tournament=SETTINGS.name)
        assert outcome.ladder == store.recompute_ratings(session=session)
    engine.dispose()
    return outcome, interrupted


def _finished(game: store.GameInfo) -> float:
    return game.finished_at.timestamp() if game.finished_at else 0.0


def _record(session: Session, game_id: int) -> str | None:
    record = store.show_game(session=session, game_id=game_id).record
    return None if record is None else record.to_json()


def test_a_tournament_killed_midway_ends_as_if_never_interrupted(tmp_path: Path, bot_processes: BotProcesses) -> None:
    (tmp_path / "calm").mkdir()
    (tmp_path / "killed").mkdir()
    calm, _ = play(tmp_path / "calm", bot_processes, kill=False)
    killed, interrupted = play(tmp_path / "killed", bot_processes, kill=True)

    assert interrupted > 0, "the kill should have cut games in play"
    assert sorted(killed.attempts.values()).count(2) == interrupted  # each cut game was replayed once
    assert set(calm.attempts.values()) == {1}
    assert len(killed.games) == GAMES and all(record is not None for record, _ in killed.games.values())
    assert killed.games == calm.games
    assert killed.commit_order == calm.commit_order  # the order ratings were applied in
    assert killed.table == calm.table
    assert killed.ladder == calm.ladder
    assert sum(row.games for row in killed.table) == GAMES * SETTINGS.table_size  # nothing counted twice
    assert not any(s.forfeit for _, results in killed.games.values() for s in results)
