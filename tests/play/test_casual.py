"""Casual games (issue #15): a person's seat is a referee seat like a bot's; house bots play the
rest (the search bots too, in their worker processes); a person who goes away is forfeited after
the grace period and the bots' game ends properly, stored and replayable; the play room's limits
refuse games beyond them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.play.casual import CasualGame
from arena.play.referee import Limits
from arena.play.results import ForfeitCause
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.store.casual import show_casual_game
from arena.web.play_room import PlayLimit, PlayRoom
from sdk.engine.record import replay
from sdk.protocol import ArenaMessage, Decision, DecisionRequest

SHORT_GRACE = Limits(move_ms=60_000, time_bank_ms=0, grace_ms=20, max_invalid=5)


async def _play_first_decision_then_leave(room: PlayRoom) -> CasualGame:
    casual = room.start("cookie", "10.0.0.1", "ann", ["montecarlo", "strong"], 0)
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
        casual = room.start("mine", "10.0.0.1", "ann", ["random"], 0)
        found = room.find(casual.game_id, "mine"), room.find(casual.game_id, "theirs")
        await room.close()
        return found

    mine, theirs = asyncio.run(run())
    assert mine is not None and theirs is None


def test_the_room_caps_games_at_once_and_per_address() -> None:
    clock = [0.0]

    async def run() -> None:
        room = PlayRoom(max_games=2, per_address=2, window_s=60, now=lambda: clock[0])
        room.start("a", "10.0.0.1", "ann", ["random"], 0)
        with pytest.raises(ValueError, match="no house bot named 'nobody'"):
            room.start("a", "10.0.0.1", "ann", ["nobody"], 0)
        room.start("b", "10.0.0.2", "bob", ["random"], 0)
        with pytest.raises(PlayLimit, match="2 games are being played"):
            room.start("c", "10.0.0.3", "cy", ["random"], 0)
        await room.close()
        room.max_games = 10
        room.start("a", "10.0.0.1", "ann", ["random"], 0)
        with pytest.raises(PlayLimit, match="2 games started from your address"):
            room.start("a", "10.0.0.1", "ann", ["random"], 0)
        clock[0] = 61.0
        room.start("a", "10.0.0.1", "ann", ["random"], 0)
        await room.close()

    asyncio.run(run())
