"""Live games across a cluster (`arena.cluster.fanout`), over a real NATS server: a feed one node's
referee writes reaches every other node's spectators event for event, with its delay, its end and
its replays, and a node's own feeds are not mirrored back to it."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from arena.cluster.bus import Bus, Subjects
from arena.cluster.fanout import Fanout
from arena.play.spectators import GameFeed, SpectatorHub, Watch
from sdk.engine import Event, Game
from tests.cluster.nodes import new_prefix, until

SEATS = ("ann", "bea", "cid", "dot")


def played_events(seed: int) -> list[Event]:
    """The public events of a whole 4-seat game of random legal moves."""
    game, rng = Game(len(SEATS), seed), random.Random(seed)
    while not game.is_over:
        seat = game.awaiting[0]
        game.apply(seat, rng.choice(list(game.legal_actions(seat))))
    return game.events


@asynccontextmanager
async def two_nodes(nats_url: str) -> AsyncIterator[tuple[Fanout, Fanout]]:
    """The live fan-out of two nodes of a cluster of their own, each with its own spectators."""
    prefix = new_prefix()
    async with AsyncExitStack() as stack:
        fanouts = []
        for node in ("a", "b"):
            bus = Bus(node, Subjects(prefix))
            await bus.connect(nats_url)
            stack.push_async_callback(bus.close)
            fanout = Fanout(bus, SpectatorHub())
            await fanout.start()
            stack.callback(fanout.stop)
            fanouts.append(fanout)
        yield fanouts[0], fanouts[1]


def test_a_feed_reaches_the_other_node_event_for_event_and_ends_there(nats_url: str) -> None:
    async def scenario() -> None:
        async with two_nodes(nats_url) as (a, b):
            events = played_events(7)
            feed = a.spectators.open(Watch(41, 0.5), "attempt-1", SEATS)
            await until("the other node mirrors the attempt", lambda: (41, "attempt-1") in b.mirrors)
            for event in events:
                feed.publish(event)
            copy = b.mirrors[41, "attempt-1"]
            await until("every event is mirrored", lambda: len(copy.events) == len(events))
            assert [p.event for p in copy.events] == events
            assert (copy.seats, copy.delay_s) == (SEATS, 0.5)
            assert copy.released(copy.started_at) == 0, "the copy holds its events back by the delay too"
            feed.end(True)
            await until("the end is mirrored", lambda: copy.ended_at is not None)
            assert copy.finished
            assert (41, "attempt-1") not in b.mirrors
            assert a.mirrors == {}, "a node's own feed is not mirrored back to it"

    asyncio.run(scenario())


def test_a_replayed_attempt_replaces_the_voided_one_on_the_other_node(nats_url: str) -> None:
    async def scenario() -> None:
        async with two_nodes(nats_url) as (a, b):
            first = a.spectators.open(Watch(42, 0.0), "attempt-1", SEATS)
            first.publish(played_events(8)[0])
            await until("the first attempt is mirrored", lambda: (42, "attempt-1") in b.mirrors)
            voided = b.mirrors[42, "attempt-1"]
            first.end(False)
            replay = a.spectators.open(Watch(42, 0.0), "attempt-2", SEATS)
            replay.publish(played_events(9)[0])

            def replayed() -> GameFeed | None:
                copy = b.mirrors.get((42, "attempt-2"))
                return copy if copy is not None and copy.events else None

            await until("the replay is mirrored", lambda: replayed() is not None)
            assert voided.ended_at is not None and not voided.finished
            assert b.spectators.feed(42) is b.mirrors[42, "attempt-2"]
            assert [p.event for p in b.mirrors[42, "attempt-2"].events] == [played_events(9)[0]]

    asyncio.run(scenario())
