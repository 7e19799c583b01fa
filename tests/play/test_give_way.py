"""Games that give way (casual games, issue #30): they take only a bot's free seats, count for
nothing against a tournament game's, and a game that needs one of their seats ends them at once,
the latest first; the person's game ends with the reason, and the bot is told its seat is gone."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from arena.play.casual import Feed
from arena.play.sessions import AtCapacity, SessionHub
from arena.web.play_room import PlayRoom
from sdk.protocol import ArenaMessage, ErrorCode, ErrorNotice, Forfeit, GameOver, Hello


def _table(game_id: str) -> Any:
    return SimpleNamespace(game_id=game_id)


def _hub(capacity: int) -> SessionHub:
    hub = SessionHub()
    hub.open("cas", Hello("cas", "1", capacity, False, (), True), "s1")
    return hub


def test_a_game_that_needs_the_seat_ends_the_latest_casual_game_at_once() -> None:
    hub = _hub(capacity=2)
    ended: list[tuple[str, str]] = []
    hub.seat(_table("casual-1"), ["cas"], lambda bot: ended.append(("casual-1", bot)))
    hub.seat(_table("casual-2"), ["cas"], lambda bot: ended.append(("casual-2", bot)))
    conn = hub.get("cas")
    assert conn is not None and conn.busy and conn.held == 0
    with pytest.raises(AtCapacity):
        hub.check("casual-3", ["cas"], gives_way=True)
    hub.check("cup-1", ["cas"])  # a tournament game counts only the games that do not give way
    hub.seat(_table("cup-1"), ["cas"])
    assert ended == [("casual-2", "cas")]
    assert set(conn.live_games) == {"casual-1", "cup-1"} and list(conn.gives_way) == ["casual-1"]
    hub.seat(_table("cup-2"), ["cas"])
    assert ended == [("casual-2", "cas"), ("casual-1", "cas")]
    assert set(conn.live_games) == {"cup-1", "cup-2"} and conn.held == 2 and not conn.gives_way
    with pytest.raises(AtCapacity):
        hub.check("cup-3", ["cas"])


def test_a_tournament_game_with_a_free_seat_ends_no_casual_game() -> None:
    hub = _hub(capacity=2)
    ended: list[str] = []
    hub.seat(_table("casual-1"), ["cas"], ended.append)
    hub.seat(_table("cup-1"), ["cas"])
    assert ended == []
    conn = hub.get("cas")
    assert conn is not None and set(conn.live_games) == {"casual-1", "cup-1"}


def test_a_casual_game_that_gives_way_ends_for_the_person_and_tells_the_bot() -> None:
    async def run() -> tuple[Any, list[ArenaMessage], bool]:
        hub = SessionHub()
        heard: list[ArenaMessage] = []
        hub.open("cas", Hello("cas", "1", 1, False, (), True), "s1", Feed("s1", heard.append))
        room = PlayRoom(hub=hub)
        casual = await room.start("cookie", "10.0.0.1", "ann", ["bot:cas", "random"], 0)
        await asyncio.sleep(0.05)
        assert casual.game is not None and not casual.done.is_set()
        hub.seat(_table("cup-1"), ["cas"])
        await asyncio.wait_for(casual.done.wait(), 10)
        task_cancelled = casual.task is not None and casual.task.cancelled()
        await room.close()
        return casual, heard, task_cancelled

    casual, heard, task_cancelled = asyncio.run(run())
    assert casual.stopped == "a tournament game needed cas's seat, and tournament games come first"
    assert casual.result is None and casual.replay is None and not task_cancelled
    notice = next(m for m in heard if isinstance(m, ErrorNotice) and m.game_id == casual.game_id)
    assert notice.code is ErrorCode.SEAT_FORFEITED and "tournament games come first" in notice.message
    over = next(m for m in heard if isinstance(m, GameOver) and m.game_id == casual.game_id)
    assert over.forfeits == (Forfeit(1, None, f"casual game ended: {casual.stopped}"),)


def test_every_connected_bot_of_a_casual_game_that_gives_way_hears_it_is_over() -> None:
    async def run() -> tuple[Any, dict[str, list[ArenaMessage]]]:
        hub = SessionHub()
        heard: dict[str, list[ArenaMessage]] = {"cas": [], "dan": []}
        for name in heard:
            hub.open(name, Hello(name, "1", 1, False, (), True), name, Feed(name, heard[name].append))
        room = PlayRoom(hub=hub)
        casual = await room.start("cookie", "10.0.0.1", "ann", ["bot:cas", "bot:dan"], 0)
        await asyncio.sleep(0.05)
        hub.seat(_table("cup-1"), ["dan"])
        await asyncio.wait_for(casual.done.wait(), 10)
        dan, cas = hub.get("dan"), hub.get("cas")
        assert dan is not None and list(dan.live_games) == ["cup-1"]
        assert cas is not None and not cas.live_games and not cas.gives_way
        await room.close()
        return casual, heard

    casual, heard = asyncio.run(run())
    assert casual.stopped == "a tournament game needed dan's seat, and tournament games come first"
    for name, messages in heard.items():
        over = [m for m in messages if isinstance(m, GameOver) and m.game_id == casual.game_id]
        assert len(over) == 1 and over[0].forfeits == (Forfeit(2, None, f"casual game ended: {casual.stopped}"),), name
        forfeited = [m for m in messages if isinstance(m, ErrorNotice) and m.game_id == casual.game_id]
        assert len(forfeited) == (1 if name == "dan" else 0), (name, forfeited)
