"""The session hub's seats (arena.play.sessions.SessionHub): a game whose seats cannot all be taken
is refused before anything of it is dealt or built, and a wait for its bots ends when one of them
connects or frees a seat, without a timer (issue 18: many due games cost nothing while they wait)."""

from __future__ import annotations

import asyncio

import pytest

from arena.play import referee
from arena.play.referee import Referee
from arena.play.sessions import AtCapacity, NotConnected, SessionHub, Unavailable
from sdk.engine import Game
from sdk.protocol import Hello
from tests.play.clock import settle


class CountedGame(Game):
    dealt = 0

    def __init__(self, players: int, seed: int) -> None:
        CountedGame.dealt += 1
        super().__init__(players, seed)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[CountedGame]:
    CountedGame.dealt = 0
    monkeypatch.setattr(referee, "Game", CountedGame)
    return CountedGame


class Held:
    """A game holding seats, as the referee's tables do."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id

    def resync(self, bot: str) -> None: ...

    def connection_lost(self, bot: str) -> None: ...

    def submit(self, bot: str, decision: object) -> object:
        raise AssertionError("no answers here")


def hello(name: str, capacity: int = 4) -> Hello:
    return Hello(name, "1", capacity, False)


@pytest.mark.parametrize("missing", ["B", "full"])
def test_a_game_whose_seat_cannot_be_taken_is_refused_before_it_is_dealt(
    missing: str, counted: type[CountedGame]
) -> None:
    async def scenario() -> type[Unavailable]:
        hub = SessionHub()
        hub.open("A", hello("A", capacity=1), "a")
        if missing == "full":
            hub.open("B", hello("B"), "b")
            hub.seat(Held("other"), ["A"])
        with pytest.raises(Unavailable) as refused:
            await Referee(hub).play("g", ["A", "B"], 7)
        return type(refused.value)

    assert asyncio.run(scenario()) is (NotConnected if missing == "B" else AtCapacity)
    assert counted.dealt == 0, "a game was dealt for a seat that could not be taken"


def test_a_wait_for_bots_ends_when_one_of_them_connects_and_only_then() -> None:
    async def scenario() -> list[bool]:
        hub = SessionHub()
        wait = asyncio.ensure_future(hub.changed(["B", "C"]))
        await settle()
        seen = [wait.done(), hub.waiting_for("B") == hub.waiting_for("C") == 1]
        hub.open("A", hello("A"), "a")
        await settle()
        seen.append(wait.done())
        hub.open("C", hello("C"), "c")
        await settle()
        seen += [wait.done(), hub.waiting_for("B") == hub.waiting_for("C") == 0]
        return seen

    assert asyncio.run(scenario()) == [False, True, False, True, True]


def test_a_wait_for_a_bot_at_capacity_ends_when_it_frees_a_seat() -> None:
    async def scenario() -> list[bool]:
        hub = SessionHub()
        hub.open("A", hello("A", capacity=1), "a")
        held = Held("other")
        hub.seat(held, ["A"])
        wait = asyncio.ensure_future(hub.changed(["A"]))
        await settle()
        seen = [wait.done()]
        hub.release(held, ["A"])
        await settle()
        return [*seen, wait.done()]

    assert asyncio.run(scenario()) == [False, True]


def test_a_cancelled_wait_leaves_no_waiter_behind() -> None:
    async def scenario() -> int:
        hub = SessionHub()
        wait = asyncio.ensure_future(hub.changed(["B"]))
        await settle()
        wait.cancel()
        await settle()
        return hub.waiting_for("B")

    assert asyncio.run(scenario()) == 0
