"""The spectator hub (arena.play.spectators): the referee's public events, released after the delay,
with spectators capped. The clock is the test's own, so nothing here waits on time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from arena.play.referee import Limits, Referee
from arena.play.sessions import SessionHub
from arena.play.spectators import KEEP_S, Crowded, SpectatorHub, Watch
from sdk.engine import RoundStarted, replay
from sdk.protocol import Hello
from tests.play.test_referee_clock import pump


def run_apart(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """`asyncio.run(scenario())` in a thread of its own: the browser tests' Playwright keeps an
    event loop running in the main thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(scenario())).result()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


EVENT = RoundStarted(0, 0, 11)
T = TypeVar("T")


def test_an_event_is_released_exactly_the_delay_after_it_was_played() -> None:
    clock = Clock()
    feed = SpectatorHub(clock).open(Watch(7, delay_s=5), "7-a", ("a", "b"))
    for _ in range(3):
        feed.publish(EVENT)
        clock.now += 1
    # Played at 1000, 1001 and 1002: each is out 5 s later, not a moment before.
    assert [feed.released(t) for t in (1000, 1004.999, 1005, 1005.5, 1006, 1007, 2000)] == [0, 0, 1, 1, 2, 3, 3]
    assert feed.next_release(0) == 1005 and feed.next_release(3) is None
    feed.end(finished=True)
    assert feed.end_released_at == clock.now + 5


def test_no_delay_releases_at_once() -> None:
    clock = Clock()
    feed = SpectatorHub(clock).open(Watch(7, delay_s=0), "7-a", ("a", "b"))
    feed.publish(EVENT)
    assert feed.released() == 1


def test_a_new_attempt_replaces_the_voided_one_and_ended_feeds_go_after_a_while() -> None:
    clock = Clock()
    hub = SpectatorHub(clock)
    first = hub.open(Watch(7, 10), "7-a", ("a", "b"))
    clock.now += 10
    second = hub.open(Watch(7, 10), "7-b", ("a", "b"))
    assert first.ended_at is not None and not first.finished
    clock.now += 10
    assert hub.feed(7) is second and hub.live() == [second]
    second.end(finished=True)
    clock.now += 10 + KEEP_S
    assert hub.feed(7) is second, "kept while a late spectator may still watch the end"
    clock.now += 1
    assert hub.feed(7) is None


def test_each_ended_game_is_forgotten_at_its_own_time_whatever_the_order_of_their_ends() -> None:
    """Games of tournaments with different delays end in one order and are forgotten in another;
    a game whose voided attempt ended first is kept for its replay's end."""
    clock = Clock()
    hub = SpectatorHub(clock)
    slow = hub.open(Watch(1, 100), "1-a", ("a", "b"))
    quick = hub.open(Watch(2, 0), "2-a", ("a", "b"))
    voided = hub.open(Watch(3, 0), "3-a", ("a", "b"))
    slow.end(finished=True)  # forgettable after 1000 + 100 + KEEP_S
    clock.now += 50
    voided_replay = hub.open(Watch(3, 0), "3-b", ("a", "b"))  # ends 3-a at 1050
    assert voided.ended_at == 1050 and not voided.finished
    quick.end(finished=True)  # forgettable after 1050 + KEEP_S
    clock.now += 10
    voided_replay.end(finished=True)  # forgettable after 1060 + KEEP_S
    clock.now = 1050 + KEEP_S + 0.5
    assert (hub.feed(1), hub.feed(2), hub.feed(3)) == (slow, None, voided_replay)
    clock.now = 1060 + KEEP_S + 0.5
    assert (hub.feed(1), hub.feed(3)) == (slow, None)
    clock.now = 1100 + KEEP_S + 0.5
    assert hub.feed(1) is None


def test_an_attempt_is_told_only_the_delay_after_it_began() -> None:
    """A game's start, and a voided game's replay, reach spectators no sooner than its events
    (docs/web.md, "Live games")."""
    clock = Clock()
    hub = SpectatorHub(clock)
    first = hub.open(Watch(7, 10), "7-a", ("a", "b"))
    assert hub.feed(7) is None, "a game begun less than the delay ago is not shown yet"
    clock.now += 10
    assert hub.feed(7) is first
    clock.now += 5
    second = hub.open(Watch(7, 10), "7-b", ("a", "b"))
    clock.now += 4
    third = hub.open(Watch(7, 10), "7-c", ("a", "b"))
    clock.now += 5.9
    assert hub.feed(7) is first, "the voided attempts are told only once their starts are released"
    clock.now += 0.1
    assert hub.feed(7) is second
    clock.now += 4
    assert hub.feed(7) is third


def test_spectators_are_capped_per_address_and_in_total() -> None:
    hub = SpectatorHub(Clock(), max_total=3, max_per_address=2)
    first, second = hub.admit("10.0.0.1"), hub.admit("10.0.0.1")
    with pytest.raises(Crowded, match="per address"):
        hub.admit("10.0.0.1")
    other = hub.admit("10.0.0.2")
    with pytest.raises(Crowded, match="3 spectators already"):
        hub.admit("10.0.0.3")
    assert hub.spectators == 3
    first.release()
    first.release()  # once only
    assert hub.spectators == 2
    hub.admit("10.0.0.3").release()
    hub.admit("10.0.0.1").release()
    for ticket in (second, other):
        ticket.release()
    assert hub.spectators == 0


def test_the_referee_publishes_every_public_event_of_a_watched_game() -> None:
    async def scenario() -> tuple[list[object], object, bool]:
        hub = SessionHub()
        clock = Clock()
        spectators = SpectatorHub(clock)
        names = [f"bot{i}" for i in range(3)]
        pumps = []
        for name in names:
            _, stream = hub.open(name, Hello(name, "1", 4, False), name)
            pumps.append(asyncio.ensure_future(pump(hub, name, stream, lambda _: True)))
        try:
            result = await asyncio.wait_for(
                Referee(hub, spectators=spectators).play("42-x", names, 5, Limits(move_ms=1000), watch=Watch(42, 30)),
                20,
            )
        finally:
            for task in pumps:
                task.cancel()
        clock.now += 30
        feed = spectators.feed(42)
        assert feed is not None and feed.attempt == "42-x" and feed.seats == tuple(names)
        return [p.event for p in feed.events], result, feed.finished

    events, result, finished = run_apart(scenario)
    assert events == replay(result.record).events  # type: ignore[attr-defined]
    assert finished
