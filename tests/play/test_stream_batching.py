"""How the arena groups a bot's messages into writes (arena.play.sessions.Stream), without gRPC.

Requests, rejections and errors make a write due at once; events and acceptances wait for one,
up to NEWS_WAIT_S; a due write waits BATCH_WAIT_S for more only while the bot's other games may
send some. Order is never changed (docs/protocol.md: messages arrive in the order they were sent).
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
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameOver,
    Hello,
    PublicEvent,
)

T = TypeVar("T")
LONG = 30.0
"""A wait no test sits through: seeing a result within SOON means the wait was skipped."""
SOON = 2.0


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


def news(seq: int = 0) -> PublicEvent:
    return PublicEvent("g", seq, RoundStarted(0, 0, 11))


def request(rid: int = 1) -> DecisionRequest:
    return DecisionRequest("g", rid, DecisionKind.ACTION, observe(Game(3, 1), 0), 1000, 0)


@pytest.fixture(autouse=True)
def long_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions, "NEWS_WAIT_S", LONG)
    monkeypatch.setattr(sessions, "BATCH_WAIT_S", LONG)


def quiet_stream() -> Stream:
    return Stream("s", False, more_coming=lambda: False)


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
def test_news_waits_for_a_message_the_bot_must_act_on_and_goes_with_it_in_order(urgent: object) -> None:
    async def scenario() -> list[object]:
        stream = quiet_stream()
        stream.send(news(0))
        stream.send(ActionAccepted("g", 1))
        writer = asyncio.ensure_future(stream.next_batch())
        await asyncio.sleep(0.05)
        assert not writer.done(), "news alone was written before NEWS_WAIT_S"
        stream.send(news(1))
        stream.send(urgent)  # type: ignore[arg-type]
        return await asyncio.wait_for(writer, SOON)

    assert run(scenario()) == [news(0), ActionAccepted("g", 1), news(1), urgent]


def test_news_alone_is_written_after_news_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions, "NEWS_WAIT_S", 0.05)

    async def scenario() -> list[object]:
        stream = quiet_stream()
        stream.send(news(0))
        return await asyncio.wait_for(stream.next_batch(), SOON)

    assert run(scenario()) == [news(0)]


def test_a_due_write_waits_for_more_only_while_other_games_may_send_some() -> None:
    async def scenario(more_coming: bool) -> bool:
        stream = Stream("s", False, more_coming=lambda: more_coming)
        stream.send(request())
        writer = asyncio.ensure_future(stream.next_batch())
        await asyncio.sleep(0.1)
        waited = not writer.done()
        writer.cancel()
        return waited

    assert run(scenario(more_coming=True))
    assert not run(scenario(more_coming=False))


def test_closing_writes_what_waits_then_ends() -> None:
    async def scenario() -> tuple[list[object], list[object]]:
        stream = quiet_stream()
        stream.send(news(0))
        stream.close()
        return await asyncio.wait_for(stream.next_batch(), SOON), await asyncio.wait_for(stream.next_batch(), SOON)

    assert run(scenario()) == ([news(0)], [])


def test_a_stream_goes_back_to_waiting_after_each_write() -> None:
    async def scenario() -> bool:
        stream = quiet_stream()
        stream.send(request(1))
        await asyncio.wait_for(stream.next_batch(), SOON)
        stream.send(news(0))
        writer = asyncio.ensure_future(stream.next_batch())
        await asyncio.sleep(0.05)
        waiting = not writer.done()
        writer.cancel()
        return waiting

    assert run(scenario())


def test_a_bot_is_busy_elsewhere_while_one_of_its_games_waits_for_another_bot() -> None:
    """What `more_coming` asks the referee. RULES.md §3: each seat decides its hand flip before the
    first turn, so the game first waits for both bots; once A has decided it waits for B alone."""

    async def scenario() -> list[tuple[bool, bool, bool, bool]]:
        hub = SessionHub()
        a, _ = hub.open("A", Hello("A", "1", 4, False), "a")
        b, _ = hub.open("B", Hello("B", "1", 4, False), "b")
        game = asyncio.ensure_future(Referee(hub).play("g", ["A", "B"], 7, Limits(move_ms=60_000)))
        while "g" not in a.live_games or not a.live_games["g"].waits_for("B"):
            await asyncio.sleep(0)
        table = a.live_games["g"]
        seen = [(table.waits_for("A"), table.waits_for("B"), a.busy_elsewhere(), b.busy_elsewhere())]
        hub.receive(a, Decision("g", 1, Flip(False)))  # seat 0's flip request is the game's first
        seen.append((table.waits_for("A"), table.waits_for("B"), a.busy_elsewhere(), b.busy_elsewhere()))
        game.cancel()
        return seen

    assert run(scenario()) == [(True, True, False, False), (False, True, True, False)]
