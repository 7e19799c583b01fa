"""The runner's waits: they give way to a cancellation that arrives just as they are woken (the
arena's shutdown cancels the runner, and a StartTournament call may wake it at that very moment),
and a game waiting for an absent bot is woken by its connection, not by a timer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from arena.play import referee
from arena.play.referee import Limits, Referee
from arena.play.sessions import SessionHub
from arena.records import GameToPlay
from arena.storage import store
from arena.tournaments.runner import POLL_S, TournamentRunner, wait_at_most
from sdk.engine import Game, Kept
from sdk.protocol import Hello
from tests.play.clock import settle


async def _stopped_when_cancelled_as_woken() -> bool:
    """Whether the waiter ended cancelled; `asyncio.run` would cancel it again on the way out."""
    event = asyncio.Event()

    async def waiter() -> None:
        while True:  # as the runner does: wait, handle the wake, wait again
            await wait_at_most(event, 30)
            event.clear()

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)  # the task now waits on the event
    event.set()
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    stopped = task.cancelled()
    task.cancel()
    return stopped


def test_a_cancellation_that_arrives_with_a_wake_stops_the_waiter() -> None:
    assert asyncio.run(_stopped_when_cancelled_as_woken()), "the cancellation was swallowed: the waiter ran on"


def test_a_wait_ends_when_its_time_is_up_without_a_wake() -> None:
    async def timed() -> float:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await wait_at_most(asyncio.Event(), 0.05)
        return loop.time() - started

    assert asyncio.run(timed()) >= 0.05


class CountedGame(Game):
    dealt = 0

    def __init__(self, players: int, seed: int, *, kept: Kept | None = None) -> None:
        CountedGame.dealt += 1
        super().__init__(players, seed, kept=kept)


def test_a_due_game_waits_for_its_absent_bot_without_looking_again_and_starts_once_it_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 18: a game due while a bot is absent deals nothing and looks for the bot once; the hub
    wakes it when the bot connects, and it is seated then. The absent wait is an hour, so nothing
    here times out."""
    CountedGame.dealt = 0
    monkeypatch.setattr(referee, "Game", CountedGame)
    game = GameToPlay(1, "t", 0, 0, 7, ("A", "B"), 60_000)

    class Store:
        """A stand-in store: only mark_game_running is asked, as play."""

        def for_play(self) -> Store:
            return self

        async def __call__(self, work: object, **_: object) -> GameToPlay:
            assert work is store.mark_game_running
            return game

    db = Store()

    async def scenario() -> tuple[int, int, int, int, int, bool]:
        hub = SessionHub()
        hub.open("A", Hello("A", "1", 4, False), "a")
        runner = TournamentRunner(db, Referee(hub), hub)  # type: ignore[arg-type]
        looks = 0
        absent = runner._absent

        def counted_absent(bots: Sequence[str], wait_s: float) -> tuple[list[str], float | None]:
            nonlocal looks
            looks += 1
            return absent(bots, wait_s)

        monkeypatch.setattr(runner, "_absent", counted_absent)
        attempt = asyncio.create_task(runner._attempt(game, Limits(move_ms=60_000), 3600.0))
        await settle()
        await asyncio.sleep(2 * POLL_S)  # a runner that polled would have looked again by now
        await settle()
        waiting = (CountedGame.dealt, looks, hub.waiting_for("B"))
        b, _ = hub.open("B", Hello("B", "1", 4, False), "b")
        await settle()
        seated = len(b.live_games)
        attempt.cancel()
        await asyncio.gather(attempt, return_exceptions=True)
        return (*waiting, CountedGame.dealt, seated, not b.live_games)

    dealt, looks, waiters, dealt_after, seated, released = asyncio.run(scenario())
    assert (dealt, looks, waiters) == (0, 1, 1), "the game dealt, or looked again, while its bot was absent"
    assert (dealt_after, seated) == (1, 1), "the game did not start when its bot connected"
    assert released
