"""THE resume test: SIGKILL the arena in the middle of a tournament, start it again on the same
database, and the tournament ends exactly as the same tournament played without interruption:
the same results game by game, the same rating tables to the last bit, nothing counted twice.
The default run kills it 3 times; a slow test kills it 20 times in a row at seeded random points.

The bots are deterministic whatever the timing: greedy, and a "random" bot seeded by what it sees
(hashed_bot.py), which also answers after a short delay so games last long enough to be cut.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from arena import records
from arena.play.results import SeatResult
from arena.ratings.table import RatingRow
from arena.storage import store
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from tests.tournaments.arena_process import ArenaProcess
from tests.tournaments.conftest import GREEDY, HASHED, BotProcesses, wait_until

SETTINGS = TournamentSettings(
    "resume",
    table_size=3,
    games_per_table=4,
    starts_at=datetime.now(UTC) + timedelta(days=1),
    move_limit_ms=10_000,
    concurrency=3,
    seed=2024,
)
BOTS = {
    "greedy-a": (GREEDY, []),
    "greedy-b": (GREEDY, []),
    "hashed-a": (HASHED, ["--seed", "1", "--delay", "0.003"]),
    "hashed-b": (HASHED, ["--seed", "2", "--delay", "0.003"]),
}
TABLES = 4  # 4 entrants, 3 seats


@dataclass(frozen=True)
class Kill:
    """When to SIGKILL the arena after it (re)started: once `games` more games have finished (at
    most all but the last), or else after `delay_s` seconds."""

    games: int = 0
    delay_s: float = 0.0


def kill_plan(kills: int, seed: int) -> list[Kill]:
    """`kills` seeded random kill points: half after progress (1-2 games), half after 0.1-1 s."""
    rng = random.Random(seed)
    return [
        Kill(games=rng.randint(1, 2)) if rng.random() < 0.5 else Kill(delay_s=round(rng.uniform(0.1, 1.0), 2))
        for _ in range(kills)
    ]


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


def counts(url: str) -> records.GameCounts:
    engine = open_database(url)
    try:
        with Session(engine) as session:
            return store.show_tournament(session=session, tournament=SETTINGS.name).games
    finally:
        engine.dispose()


def play(
    tmp: Path, bots: BotProcesses, kills: Sequence[Kill] = (), games_per_table: int = SETTINGS.games_per_table
) -> tuple[Outcome, list[int]]:
    """Play the tournament on a fresh database, SIGKILLing the arena at each of `kills` in turn and
    starting it again on the same database. Returns the outcome and, per kill, how many games it
    interrupted."""
    settings = replace(SETTINGS, games_per_table=games_per_table)
    total = TABLES * games_per_table
    url = f"sqlite:///{tmp / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        store.create_tournament(session=session, settings=settings)
        tokens = {name: store.register_bot(session=session, name=name).token for name in BOTS}
        for name in BOTS:
            store.enter_tournament(session=session, tournament=settings.name, bot=name)
    port = free_port()
    arena = ArenaProcess(url, tmp / "server.log", port=port)
    interrupted: list[int] = []
    try:
        for name, (program, args) in BOTS.items():
            bots.start(program, arena.target, tokens[name], f"{tmp.name}-{name}", *args)
        wait_until(
            lambda: all(f"bot '{name}' connected" in arena.log.read_text() for name in BOTS), "the bots to connect"
        )
        with Session(engine) as session:
            store.start_tournament(session=session, tournament=settings.name)
        for n, kill in enumerate(kills, 1):
            if kill.games:
                target = min(counts(url).finished + kill.games, total - 1)
                wait_until(lambda target=target: counts(url).finished >= target, f"kill {n}: {target} finished games")
            else:
                time.sleep(kill.delay_s)
            arena.kill()
            cut = counts(url)
            interrupted.append(cut.running + cut.played)  # in play, or played and waiting for its commit
            arena = ArenaProcess(url, tmp / "server.log", port=port)
        wait_until(lambda: counts(url).finished == total, "the tournament to finish")
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


def _finished(game: records.GameInfo) -> float:
    return game.finished_at.timestamp() if game.finished_at else 0.0


def _record(session: Session, game_id: int) -> str | None:
    record = store.show_game(session=session, game_id=game_id).record
    return None if record is None else record.to_json()


def assert_converged(calm: Outcome, killed: Outcome, interrupted: Sequence[int], games: int) -> None:
    """The killed run ended exactly as the calm one, every cut game replayed once per cut."""
    assert sum(interrupted) > 0, "the kills should have cut games in play"
    assert sum(a - 1 for a in killed.attempts.values()) == sum(interrupted)  # each cut game replayed
    assert set(calm.attempts.values()) == {1}
    assert len(killed.games) == games and all(record is not None for record, _ in killed.games.values())
    assert killed.games == calm.games
    assert killed.commit_order == calm.commit_order  # the order ratings were applied in
    assert killed.table == calm.table
    assert killed.ladder == calm.ladder
    assert sum(row.games for row in killed.table) == games * SETTINGS.table_size  # nothing counted twice
    assert not any(s.forfeit for _, results in killed.games.values() for s in results)


def test_a_tournament_killed_three_times_ends_as_if_never_interrupted(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    """Killed well into the tournament (5 games finished), then twice more at seeded random points."""
    (tmp_path / "calm").mkdir()
    (tmp_path / "killed").mkdir()
    calm, _ = play(tmp_path / "calm", bot_processes)
    killed, interrupted = play(tmp_path / "killed", bot_processes, [Kill(games=5), *kill_plan(2, seed=7)])
    assert len(interrupted) == 3
    assert_converged(calm, killed, interrupted, TABLES * SETTINGS.games_per_table)


@pytest.mark.slow
def test_a_tournament_killed_twenty_times_in_a_row_ends_as_if_never_interrupted(
    tmp_path: Path, bot_processes: BotProcesses
) -> None:
    """20 kills at seeded random points (after 1-2 more games, or 0.1-1 s after each restart)."""
    (tmp_path / "calm").mkdir()
    (tmp_path / "killed").mkdir()
    calm, _ = play(tmp_path / "calm", bot_processes, games_per_table=8)
    killed, interrupted = play(tmp_path / "killed", bot_processes, kill_plan(20, seed=2026), games_per_table=8)
    assert len(interrupted) == 20
    assert_converged(calm, killed, interrupted, TABLES * 8)
