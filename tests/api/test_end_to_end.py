"""Real processes over loopback: an arena server and bot programs using sdk.runner play whole
games; every result must be the engine's replay of the game's record."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import HEALTHY_MOVE_MS, Arena, check_against_replay


@pytest.fixture(scope="module")
def five_bots(arena: Arena) -> Iterator[list[str]]:
    """Five random-bot processes, capacity 4 each; odd ones compute legal actions themselves."""
    names, procs = [], []
    for i in range(5):
        name, token = arena.register("random")
        extra = ("--no-legal-actions",) if i % 2 else ()
        procs.append(arena.start_bot(token, *extra, log_name=name)[0])
        names.append(name)
    yield names
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    assert [proc.wait(timeout=10) for proc in procs] == [0] * 5, "bots did not stop cleanly on SIGTERM"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_complete_game(arena: Arena, five_bots: list[str], players: int) -> None:
    response = arena.play(five_bots[:players], seed=100 + players)
    record = check_against_replay(response)
    assert record.players == players and record.seed == 100 + players
    assert len(record.results) == players
    assert [s.bot for s in response.seats] == five_bots[:players]


def test_concurrent_games_share_each_bot_session(arena: Arena, five_bots: list[str]) -> None:
    """Four games at once: every bot sits in up to four of them over its single stream."""
    tables = [five_bots[i:] + five_bots[:i] for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        responses = list(pool.map(lambda t: arena.play(t[1][: 2 + t[0]], seed=t[0]), enumerate(tables)))
    for response in responses:
        check_against_replay(response)
    assert len({r.game_id for r in responses}) == 4


def test_bot_stops_after_max_games(arena: Arena) -> None:
    name, token = arena.register("once")
    other, other_token = arena.register("once")
    procs = [arena.start_bot(token, "--max-games", "1")[0], arena.start_bot(other_token, "--max-games", "1")[0]]
    check_against_replay(arena.play([name, other], seed=3))
    assert [p.wait(timeout=15) for p in procs] == [0, 0]


def test_process_killed_mid_game_forfeits_after_grace(arena: Arena) -> None:
    slow, slow_token = arena.register("slow")
    (a, a_token), (b, b_token) = arena.register(), arena.register()
    victim, log = arena.start_bot(slow_token, "--behaviour", "slow")
    arena.start_bot(a_token)
    arena.start_bot(b_token)
    with ThreadPoolExecutor(1) as pool:
        game = pool.submit(arena.play, [a, slow, b], 11, grace_ms=300)
        wait_for_line(log, "game ", game)
        victim.kill()
        response = game.result(timeout=60)
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == "disconnected: not back within the 300 ms grace period"


def test_reconnecting_in_time_resumes_the_seat(arena: Arena) -> None:
    slow, slow_token = arena.register("slow")
    (a, a_token), (b, b_token) = arena.register(), arena.register()
    victim, log = arena.start_bot(slow_token, "--behaviour", "slow")
    arena.start_bot(a_token)
    arena.start_bot(b_token)
    with ThreadPoolExecutor(1) as pool:
        game = pool.submit(arena.play, [a, slow, b], 12, grace_ms=10_000)
        wait_for_line(log, "game ", game)
        victim.kill()
        victim.wait(timeout=10)
        successor, successor_log = arena.start_bot(slow_token, "--max-games", "1")
        response = game.result(timeout=60)
    check_against_replay(response)
    assert successor.wait(timeout=15) == 0
    assert f"game {response.game_id} over" in successor_log.read_text()


def test_silent_bot_forfeits_at_the_deadline_and_the_game_completes(arena: Arena) -> None:
    silent, silent_token = arena.register("silent")
    (a, a_token), (b, b_token) = arena.register(), arena.register()
    for token, behaviour in ((a_token, "random"), (silent_token, "silent"), (b_token, "random")):
        arena.start_bot(token, "--behaviour", behaviour)
    response = arena.play([a, silent, b], seed=13, move_limit_ms=HEALTHY_MOVE_MS)
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == f"timeout: no legal answer to request 2 within {HEALTHY_MOVE_MS} ms"


def wait_for_line(log: Path, text: str, game: Future[object]) -> None:
    """Block until `text` appears in the log file, while the game still runs (bounded: 20 s)."""
    deadline = time.monotonic() + 20
    while text not in log.read_text():
        assert not game.done(), f"the game ended ({game.exception()!r}) before {text!r} appeared in {log}"
        assert time.monotonic() < deadline, f"{text!r} never appeared in {log}"
        time.sleep(0.02)
