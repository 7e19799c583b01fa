"""The referee's clocks in process, without gRPC: one timer per table serves every request's deadline.

A timer set for an early request must still catch a later one that is never answered, in the
flip phase (several requests at once) as in play (one at a time). RULES.md §3 (hand flip), §4.
"""

import asyncio
from collections.abc import Callable

import pytest

from arena.play.referee import Limits, Referee
from arena.play.results import ForfeitCause, GameResult
from arena.play.sessions import SessionHub, Stream
from sdk.engine import Flip, replay
from sdk.protocol import Decision, DecisionKind, DecisionRequest, Hello
from sdk.runner import local_legal_actions

Answers = Callable[[DecisionRequest], bool]
"""Whether a bot answers this request (the first legal action, THINK_S later) or lets it run out."""
MOVE_MS = 50
THINK_S = 0.01
"""Long enough that a later request starts well after the table's timer was set for an earlier one."""


async def pump(hub: SessionHub, name: str, stream: Stream, answers: Answers) -> None:
    conn = hub.get(name)
    while batch := await stream.next_batch():
        for msg in batch:
            if type(msg) is DecisionRequest and answers(msg):
                await asyncio.sleep(THINK_S)
                obs = msg.observation
                action = Flip(False) if msg.kind is DecisionKind.FLIP else local_legal_actions(obs)[0]
                hub.receive(conn, Decision(msg.game_id, msg.request_id, action))  # type: ignore[arg-type]


def play(players: int, quitter_answers: Answers) -> GameResult:
    """A game where every bot but "quitter" (seat 1) answers everything."""

    async def scenario() -> GameResult:
        hub = SessionHub()
        names = [f"bot{i}" if i != 1 else "quitter" for i in range(players)]
        pumps = []
        for name in names:
            _, stream = hub.open(name, Hello(name, "1", 4, False), name)
            answers = quitter_answers if name == "quitter" else (lambda _: True)
            pumps.append(asyncio.ensure_future(pump(hub, name, stream, answers)))
        try:
            return await asyncio.wait_for(Referee(hub).play("g", names, 3, Limits(move_ms=MOVE_MS)), 20)
        finally:
            for task in pumps:
                task.cancel()

    return asyncio.run(scenario())


@pytest.mark.parametrize("players", [2, 4])
def test_a_request_never_answered_after_answered_ones_times_out(players: int) -> None:
    answered = 0

    def quitter(req: DecisionRequest) -> bool:
        nonlocal answered
        answered += 1
        return answered <= 1  # the flip, then silence: its first move starts after the flips' deadline was set

    result = play(players, quitter)
    seat = result.seats[1]
    assert (seat.bot, seat.cause) == ("quitter", ForfeitCause.TIMEOUT)
    assert seat.rank == players
    assert all(s.forfeit is None for s in result.seats if s.seat != 1)
    assert replay(result.record).is_over  # the fallback played the quitter's seat to the end


def test_a_flip_never_decided_times_out_while_the_others_decide_at_once() -> None:
    result = play(4, lambda req: req.kind is not DecisionKind.FLIP)
    assert result.seats[1].cause is ForfeitCause.TIMEOUT
    assert "request" in (result.seats[1].forfeit or "")
    assert [s.forfeit is None for s in result.seats] == [True, False, True, True]
