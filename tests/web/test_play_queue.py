"""The Play room's places are shared between addresses (issue #30): one address holds at most
its share, a person who finds no place gets a queue place instead of a refusal, the next free
place goes to the address that holds fewest, a full queue makes room for a newcomer at the cost
of the address that waits most, and a place not asked for again is given up."""

from __future__ import annotations

import asyncio

import pytest

from arena.play.casual import CasualGame
from arena.play.casual_limits import CasualLimits
from arena.web.play_room import PlayLimit, PlayRoom, Queued


async def _start(room: PlayRoom, owner: str, address: str) -> CasualGame:
    return await room.start(owner, address, owner, ["random"], 0)


async def _place(room: PlayRoom, owner: str, address: str) -> int:
    """Ask for a game that must be queued; its place."""
    with pytest.raises(Queued) as queued:
        await _start(room, owner, address)
    return queued.value.place


async def _end(room: PlayRoom, casual: CasualGame) -> None:
    assert casual.task is not None
    casual.task.cancel()
    await asyncio.gather(casual.task, return_exceptions=True)
    assert casual.done.is_set()


def test_the_next_free_place_goes_to_the_address_that_holds_fewest() -> None:
    async def run() -> None:
        room = PlayRoom(casual=CasualLimits(max_games=4, places_per_address=3))
        a = [await _start(room, f"a{i}", "10.0.0.1") for i in range(3)]
        await _start(room, "b0", "10.0.0.2")
        assert await _place(room, "a3", "10.0.0.1") == 1  # a's share is full too
        assert await _place(room, "b1", "10.0.0.2") == 1
        assert await _place(room, "a3", "10.0.0.1") == 2  # b holds fewer places than a
        assert await _place(room, "d0", "10.0.0.4") == 1  # a newcomer's address holds none: next
        assert await _place(room, "b1", "10.0.0.2") == 2
        await _end(room, a[0])
        assert await _place(room, "b1", "10.0.0.2") == 1  # the free place is d0's, kept for it
        assert (await _start(room, "d0", "10.0.0.4")).owner == "d0"
        await _end(room, a[1])  # a and b hold one place each now: a3 came first
        assert await _place(room, "b1", "10.0.0.2") == 1
        assert (await _start(room, "a3", "10.0.0.1")).owner == "a3"
        assert room.waiting == 1 and room.running == 4
        await room.close()

    asyncio.run(run())


def test_a_place_not_asked_for_again_is_given_up() -> None:
    clock = [0.0]

    async def run() -> None:
        room = PlayRoom(casual=CasualLimits(max_games=1, queue_ttl_s=30), now=lambda: clock[0])
        first = await _start(room, "a0", "10.0.0.1")
        assert await _place(room, "b0", "10.0.0.2") == 1
        assert await _place(room, "c0", "10.0.0.3") == 2
        clock[0] = 20.0
        assert await _place(room, "c0", "10.0.0.3") == 2
        clock[0] = 40.0  # b0 has not asked for 40 s: its place is gone
        assert await _place(room, "c0", "10.0.0.3") == 1
        room.leave("c0")
        assert room.waiting == 0
        await _end(room, first)
        assert (await _start(room, "e0", "10.0.0.5")).owner == "e0"
        await room.close()

    asyncio.run(run())


def test_a_full_queue_makes_room_for_a_newcomer_from_the_address_that_waits_most() -> None:
    async def run() -> None:
        room = PlayRoom(casual=CasualLimits(max_games=1, queue=3))
        await _start(room, "x", "10.0.0.9")
        for i in range(3):
            assert await _place(room, f"a{i}", "10.0.0.1") == i + 1
        with pytest.raises(PlayLimit, match="the Play room is full: 1 games are being played and 3 people wait"):
            await _start(room, "a3", "10.0.0.1")
        # a2, the latest of a, gives its place; places go by turns: a0, then d0 (a holds one by then).
        assert await _place(room, "d0", "10.0.0.4") == 2
        assert room.waiting == 3
        assert await _place(room, "a0", "10.0.0.1") == 1
        assert await _place(room, "a1", "10.0.0.1") == 3
        with pytest.raises(PlayLimit, match="2 of them from your address"):
            await _start(room, "a2", "10.0.0.1")
        await room.close()

    asyncio.run(run())


def test_a_session_plays_its_share_and_an_address_waits_for_its_own_places() -> None:
    async def run() -> None:
        room = PlayRoom(casual=CasualLimits(max_games=10, places_per_address=2, games_per_visitor=1))
        await _start(room, "a0", "10.0.0.1")
        with pytest.raises(PlayLimit, match="you play 1 games already"):
            await _start(room, "a0", "10.0.0.1")
        await _start(room, "a1", "10.0.0.1")
        with pytest.raises(
            Queued, match="Your address plays 2 games, the most one address may at once: you are number 1 in the queue"
        ):
            await _start(room, "a2", "10.0.0.1")
        assert (await _start(room, "b0", "10.0.0.2")).owner == "b0"
        await room.close()

    asyncio.run(run())
