"""Casual games (issue #15): a person's seat is a referee seat like a bot's; house bots play the
rest (the search bots too, in their worker processes); a person who goes away is forfeited after
the grace period and the bots' game ends properly, stored and replayable; the play room's limits
refuse games beyond them. A connected bot that accepts casual games (its Hello says so) is
listed, seated through its own gRPC stream, and shown busy at its capacity."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.play.casual import CasualGame
from arena.play.casual_limits import CasualLimits
from arena.play.referee import Limits
from arena.play.results import ForfeitCause
from arena.play.sessions import AtCapacity, BotConnection, Stream
from arena.startup.arena import ArenaServer, start_arena
from arena.startup.settings import ArenaSettings
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.store.casual import show_casual_game
from arena.web.play_room import PlayLimit, PlayRoom, Queued
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot
from sdk.bot import Bot
from sdk.engine.record import replay
from sdk.protocol import ArenaMessage, Decision, DecisionRequest, GameOver, GameStarted
from sdk.runner import run_async

SHORT_GRACE = Limits(move_ms=60_000, time_bank_ms=0, grace_ms=20, max_invalid=5)


async def _play_first_decision_then_leave(room: PlayRoom) -> CasualGame:
    casual = await room.start("cookie", "10.0.0.1", "ann", ["montecarlo", "strong"], 0)
    asked: asyncio.Future[DecisionRequest] = asyncio.get_running_loop().create_future()

    def deliver(msg: ArenaMessage) -> None:
        if isinstance(msg, DecisionRequest) and not asked.done():
            asked.set_result(msg)

    conn, stream = casual.attach(deliver)
    req = await asked
    reply = casual.submit(Decision(req.game_id, req.request_id, req.observation.legal_actions[0]))
    assert type(reply).__name__ == "ActionAccepted"
    casual.detach(conn, stream)
    await asyncio.wait_for(casual.done.wait(), 60)
    await room.close()
    return casual


def test_a_person_who_leaves_is_forfeited_after_the_grace_and_the_game_ends_stored(tmp_path: Path) -> None:
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    db = AsyncStore(engine)
    room = PlayRoom(db, limits=SHORT_GRACE)
    casual = asyncio.run(_play_first_decision_then_leave(room))
    assert casual.result is not None, casual.error
    person, *bots = casual.result.seats
    assert person.cause is ForfeitCause.DISCONNECT and person.rank == 3
    assert all(s.forfeit is None for s in bots)
    assert casual.result.record.totals == tuple(replay(casual.result.record).totals)
    assert room.running == 0
    # Stored like any game: the same record and results, replayed at the link the page shows.
    assert casual.replay == "/games/casual-1"
    stored = db.run(show_casual_game, casual_id=1)
    assert stored.record == casual.result.record and stored.info.results == casual.result.seats
    assert list(replay(stored.record).totals) == [s.points for s in stored.info.results]
    engine.dispose()


def test_another_session_cannot_reach_a_game() -> None:
    async def run() -> tuple[CasualGame | None, CasualGame | None]:
        room = PlayRoom()
        casual = await room.start("mine", "10.0.0.1", "ann", ["random"], 0)
        found = room.find(casual.game_id, "mine"), room.find(casual.game_id, "theirs")
        await room.close()
        return found

    mine, theirs = asyncio.run(run())
    assert mine is not None and theirs is None


def test_the_room_caps_games_at_once_per_session_and_per_address() -> None:
    clock = [0.0]

    async def run() -> None:
        limits = CasualLimits(max_games=2, games_per_visitor=1, starts_per_address=2, window_s=60)
        room = PlayRoom(casual=limits, now=lambda: clock[0])
        await room.start("a", "10.0.0.1", "ann", ["random"], 0)
        with pytest.raises(ValueError, match="no house bot named 'nobody'"):
            await room.start("b", "10.0.0.1", "ann", ["nobody"], 0)
        with pytest.raises(PlayLimit, match="you play 1 games already, the most at once"):
            await room.start("a", "10.0.0.1", "ann", ["random"], 0)
        await room.start("b", "10.0.0.2", "bob", ["random"], 0)
        with pytest.raises(Queued, match=r"Every place of the Play room \(2\) is taken: you are number 1 in the queue"):
            await room.start("c", "10.0.0.3", "cy", ["random"], 0)
        await room.close()
        room = PlayRoom(casual=limits, now=lambda: clock[0])
        await room.start("a", "10.0.0.1", "ann", ["random"], 0)
        await room.start("b", "10.0.0.1", "ann", ["random"], 0)
        await room.close()
        with pytest.raises(PlayLimit, match="2 games started from your address lately; try again in 60 s"):
            await room.start("c", "10.0.0.1", "ann", ["random"], 0)
        clock[0] = 61.0
        await room.start("c", "10.0.0.1", "ann", ["random"], 0)
        await room.close()

    asyncio.run(run())


def _answer_every_request(casual: CasualGame, seen: list[ArenaMessage] | None = None) -> tuple[BotConnection, Stream]:
    """Attach the person's seat and answer each request with its first legal action; every
    message the seat gets is added to `seen`."""
    loop = asyncio.get_running_loop()

    def deliver(msg: ArenaMessage) -> None:
        if seen is not None:
            seen.append(msg)
        if isinstance(msg, DecisionRequest):
            loop.call_soon(casual.submit, Decision(msg.game_id, msg.request_id, msg.observation.legal_actions[0]))

    return casual.attach(deliver)


async def _connect(arena: ArenaServer, name: str, bot: Bot, accept_casual: bool) -> asyncio.Task[int]:
    """An SDK bot playing for `name` over a real gRPC socket, once the arena has it connected."""
    token = await arena.directory.register(name)
    target = f"127.0.0.1:{arena.port}"
    task = asyncio.create_task(run_async(bot, target=target, token=token, capacity=1, accept_casual=accept_casual))

    async def connected() -> None:
        while (conn := arena.hub.get(name)) is None or not conn.connected:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(connected(), 30)
    return task


def test_a_connected_bot_that_accepts_casual_games_is_seated_through_its_own_stream() -> None:
    async def run() -> tuple[CasualGame, list[str]]:
        arena = await start_arena(ArenaSettings(port=0))
        bots = []
        try:
            bots.append(await _connect(arena, "alice", GreedyBot(), accept_casual=True))
            bots.append(await _connect(arena, "shy", RandomBot(), accept_casual=False))
            room = PlayRoom(hub=arena.hub)
            assert [(c.name, c.busy) for c in room.casual_bots()] == [("alice", False)]
            with pytest.raises(ValueError, match="bot 'shy' is not connected for casual games"):
                await room.start("a", "10.0.0.1", "ann", ["bot:shy"], 0)
            casual = await room.start("a", "10.0.0.1", "ann", ["bot:alice", "random"], 0)
            _answer_every_request(casual)
            assert [(c.name, c.busy) for c in room.casual_bots()] == [("alice", True)]
            with pytest.raises(AtCapacity, match="bot 'alice' is busy: it plays 1 games, its capacity"):
                await room.start("b", "10.0.0.2", "bob", ["bot:alice"], 0)
            await asyncio.wait_for(casual.done.wait(), 120)
            after = [c.name for c in room.casual_bots() if not c.busy]
            await room.close()
            return casual, after
        finally:
            for task in bots:
                task.cancel()
            await asyncio.gather(*bots, return_exceptions=True)
            await arena.stop(0)

    casual, free_after = asyncio.run(run())
    assert casual.result is not None, casual.error
    assert casual.seat_names == ("ann", "alice", "random") and casual.seat_kinds == ("person", "bot", "house")
    assert all(s.forfeit is None for s in casual.result.seats)
    assert list(replay(casual.result.record).totals) == [s.points for s in casual.result.seats]
    assert free_after == ["alice"]


def test_a_person_back_within_the_grace_plays_on_in_the_same_seat() -> None:
    """The browser's stream drops after the first answer and a new one comes (the page reopened
    with its `#game=ID`): the referee re-sends the seat, and the person finishes the game in it."""
    long_grace = Limits(move_ms=60_000, time_bank_ms=0, grace_ms=60_000, max_invalid=5)

    async def run() -> tuple[CasualGame, list[ArenaMessage]]:
        room = PlayRoom(limits=long_grace)
        casual = await room.start("cookie", "10.0.0.1", "ann", ["greedy", "random"], 0)
        first: asyncio.Future[DecisionRequest] = asyncio.get_running_loop().create_future()

        def deliver(msg: ArenaMessage) -> None:
            if isinstance(msg, DecisionRequest) and not first.done():
                first.set_result(msg)

        conn, stream = casual.attach(deliver)
        req = await first
        casual.submit(Decision(req.game_id, req.request_id, req.observation.legal_actions[0]))
        casual.detach(conn, stream)
        again: list[ArenaMessage] = []
        _answer_every_request(casual, again)
        await asyncio.wait_for(casual.done.wait(), 120)
        await room.close()
        return casual, again

    casual, again = asyncio.run(run())
    assert casual.result is not None, casual.error
    assert all(s.forfeit is None for s in casual.result.seats), casual.result.seats
    started = [m for m in again if isinstance(m, GameStarted)]
    assert [(m.seat, m.players) for m in started] == [(0, casual.seat_names)]
    assert any(isinstance(m, DecisionRequest) for m in again) and isinstance(again[-1], GameOver)
