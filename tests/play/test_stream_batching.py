"""How the arena groups a bot's messages into writes (arena.play.sessions.Stream), without gRPC.

Requests, rejections, errors and game ends make a write due at once; events wait for one however
long, or until MAX_BATCH messages wait; an acceptance waits at most NEWS_WAIT_S unless its bot has
another request open; a due write waits BATCH_WAIT_S for more only while another of the bot's games
moves (an answer came in and its next request is not sent yet). Order is never changed
(docs/protocol.md: messages arrive in the order they were sent). The streams run on a clock the
tests move (tests/play/clock.py).
"""

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from arena.play import sessions
from arena.play.referee import Limits, Referee
from arena.play.sessions import SessionHub, Stream
from sdk.engine import Flip, Game, observe
from sdk.engine.events import RoundStarted
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameOver,
    Hello,
    PublicEvent,
)
from tests.play.clock import ManualClock, settle

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


def news(seq: int = 0) -> PublicEvent:
    return PublicEvent("g", seq, RoundStarted(0, 0, 11))


def request(rid: int = 1) -> DecisionRequest:
    return DecisionRequest("g", rid, DecisionKind.ACTION, observe(Game(3, 1), 0), 1000, 0)


def stream_on(clock: ManualClock, more_coming: bool = False, deciding: bool = False) -> Stream:
    return Stream("s", False, more_coming=lambda: more_coming, clock=clock, deciding=lambda: deciding)


@pytest.mark.parametrize(
    "urgent",
    [
        request(),
        ActionRejected("g", 1, "not your turn", 4),
        ErrorNotice(ErrorCode.STALE_REQUEST, "stale", "g", 1),
        GameOver("g", (1, 2, 3), (3, 2, 1), (), ()),
    ],
    ids=lambda m: type(m).__name__,
)
def test_news_waits_for_a_message_the_bot_must_act_on_and_goes_with_it_in_order(urgent: ArenaMessage) -> None:
    async def scenario() -> list[ArenaMessage]:
        clock = ManualClock()
        stream = stream_on(clock)
        stream.send(news(0))
        stream.send(ActionAccepted("g", 1))
        writer = asyncio.ensure_future(stream.next_batch())
        clock.advance(sessions.NEWS_WAIT_S * 0.9)
        await settle()
        assert not writer.done(), "news alone was written before NEWS_WAIT_S"
        stream.send(news(1))
        stream.send(urgent)
        await settle()
        assert writer.done(), "a message to act on did not make the write due"
        return writer.result()

    assert run(scenario()) == [news(0), ActionAccepted("g", 1), news(1), urgent]


def test_news_alone_is_written_once_a_full_batch_of_it_waits() -> None:
    """No timer: a bot thinking for long gets no write of news alone for every move of the others
    (docs/benchmarks.md, "Scale"); MAX_BATCH bounds what waits."""

    async def scenario() -> tuple[bool, list[ArenaMessage], bool]:
        clock = ManualClock()
        stream = stream_on(clock)
        writer = asyncio.ensure_future(stream.next_batch())
        for seq in range(sessions.MAX_BATCH - 1):
            stream.send(news(seq))
        clock.advance(3600)
        await settle()
        early = writer.done()
        stream.send(news(sessions.MAX_BATCH - 1))
        stream.send(news(sessions.MAX_BATCH))
        await settle()
        batch = writer.result()
        again = asyncio.ensure_future(stream.next_batch())
        await settle()
        waits = not again.done()
        again.cancel()
        return early, batch, waits

    early, batch, waits = run(scenario())
    assert not early, "news alone was written before a full batch of it waited"
    assert batch == [news(seq) for seq in range(sessions.MAX_BATCH)]
    assert waits, "the news left over after a full batch was written alone"


def test_an_acceptance_alone_is_written_after_news_wait() -> None:
    async def scenario() -> tuple[bool, list[ArenaMessage]]:
        clock = ManualClock()
        stream = stream_on(clock)
        stream.send(news(0))
        stream.send(ActionAccepted("g", 1))
        writer = asyncio.ensure_future(stream.next_batch())
        clock.advance(sessions.NEWS_WAIT_S * 0.9)
        await settle()
        early = writer.done()
        clock.advance(sessions.NEWS_WAIT_S * 0.1)
        await settle()
        return early, writer.result()

    assert run(scenario()) == (False, [news(0), ActionAccepted("g", 1)])


def test_an_acceptance_waits_for_the_next_request_while_the_bot_has_another_request_open() -> None:
    """A bot thinking in several games gets its acceptances with its next request, not a write of
    each (docs/benchmarks.md, "Scale")."""

    async def scenario() -> tuple[bool, list[ArenaMessage]]:
        clock = ManualClock()
        stream = stream_on(clock, deciding=True)
        stream.send(ActionAccepted("g", 1))
        writer = asyncio.ensure_future(stream.next_batch())
        clock.advance(3600)
        await settle()
        early = writer.done()
        stream.send(request(2))
        await settle()
        return early, writer.result()

    assert run(scenario()) == (False, [ActionAccepted("g", 1), request(2)])


@pytest.mark.parametrize("more_coming", [True, False])
def test_a_due_write_waits_for_more_only_while_another_game_moves(more_coming: bool) -> None:
    async def scenario() -> tuple[bool, list[ArenaMessage]]:
        clock = ManualClock()
        stream = stream_on(clock, more_coming)
        stream.send(request(1))
        writer = asyncio.ensure_future(stream.next_batch())
        await settle()
        waited = not writer.done()
        stream.send(request(2))
        clock.advance(sessions.BATCH_WAIT_S)
        await settle()
        return waited, writer.result()

    waited, batch = run(scenario())
    assert waited is more_coming
    assert batch == ([request(1), request(2)] if more_coming else [request(1)])


def test_closing_writes_what_waits_then_ends() -> None:
    async def scenario() -> tuple[list[ArenaMessage], list[ArenaMessage]]:
        clock = ManualClock()
        stream = stream_on(clock)
        stream.send(news(0))
        stream.close()
        return await clock.run(stream.next_batch()), await clock.run(stream.next_batch())

    assert run(scenario()) == ([news(0)], [])


def test_a_stream_goes_back_to_waiting_after_each_write() -> None:
    async def scenario() -> bool:
        clock = ManualClock()
        stream = stream_on(clock)
        stream.send(request(1))
        await clock.run(stream.next_batch())
        stream.send(news(0))
        writer = asyncio.ensure_future(stream.next_batch())
        clock.advance(3600)
        await settle()
        waiting = not writer.done()
        writer.cancel()
        return waiting

    assert run(scenario())


def test_more_comes_to_a_bot_only_while_one_of_its_games_moves() -> None:
    """What `more_coming` asks: whether one of the bot's games waits for no bot, between an answer
    and the next request. A game waiting for another bot sends nothing until that bot answers, which
    may be seconds away: a due write that waited for it would only cost a timer. docs/rules.md §3: each
    seat decides its hand flip before the first turn, so the game first waits for both bots; once A
    has decided it waits for B alone; once B has too, it moves until it asks for the first turn."""

    async def scenario() -> list[tuple[set[str], set[str], bool, bool]]:
        hub = SessionHub()
        a, _ = hub.open("A", Hello("A", "1", 4, False), "a")
        b, _ = hub.open("B", Hello("B", "1", 4, False), "b")
        game = asyncio.ensure_future(Referee(hub).play("g", ["A", "B"], 7, Limits(move_ms=60_000)))
        while not b.waiting:
            await asyncio.sleep(0)
        seen = [(set(a.waiting), set(b.waiting), a.more_coming(), b.more_coming())]
        hub.receive(a, Decision("g", 1, Flip(False)))  # seat 0's flip request is the game's first
        seen.append((set(a.waiting), set(b.waiting), a.more_coming(), b.more_coming()))
        hub.receive(b, Decision("g", 2, Flip(False)))
        seen.append((set(a.waiting), set(b.waiting), a.more_coming(), b.more_coming()))
        while not (a.waiting or b.waiting):
            await asyncio.sleep(0)
        seen.append((a.waiting | b.waiting, a.moving | b.moving, a.more_coming(), b.more_coming()))  # the first turn
        game.cancel()
        await asyncio.gather(game, return_exceptions=True)
        seen.append((a.waiting | b.waiting, a.moving | b.moving, "g" in a.live_games, "g" in b.live_games))
        return seen

    assert run(scenario()) == [
        ({"g"}, {"g"}, False, False),
        (set(), {"g"}, False, False),
        (set(), set(), True, True),
        ({"g"}, set(), False, False),
        (set(), set(), False, False),
    ]
