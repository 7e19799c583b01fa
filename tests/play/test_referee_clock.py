"""The referee's clocks in process, without gRPC, on a clock the test moves (tests/play/clock.py).

One timer per table serves every request's deadline: a timer set for an early request must still
catch a later one that is never answered, in the flip phase (several requests at once) as in play
(one at a time). A move that runs over the move limit is paid from the time bank; a request's
clock stops while its bot is away, and the grace period runs instead. docs/rules.md §3 (hand flip), §4.
"""

import asyncio
from collections.abc import Callable

import pytest

from arena.play.referee import Limits, Referee
from arena.play.results import ForfeitCause, GameResult
from arena.play.sessions import SessionHub, Stream
from sdk.engine import Action, Flip, replay
from sdk.protocol import (
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    GameStarted,
    Hello,
    Welcome,
)
from sdk.runner import local_legal_actions
from tests.play.clock import ManualClock

Think = Callable[[DecisionRequest], float | None]
"""How many seconds a bot thinks before answering this request (the first legal action), or None
to let it run out."""
MOVE_MS = 50
THINK_S = 0.01
"""Long enough that a later request starts well after the table's timer was set for an earlier one."""
SHORT = Limits(move_ms=MOVE_MS)


def first_legal(req: DecisionRequest) -> Action:
    return Flip(False) if req.kind is DecisionKind.FLIP else local_legal_actions(req.observation)[0]


async def pump(
    hub: SessionHub, name: str, stream: Stream, think: Think, heard: list[ArenaMessage] | None = None
) -> None:
    conn = hub.get(name)
    assert conn is not None
    while batch := await stream.next_batch():
        for msg in batch:
            if heard is not None:
                heard.append(msg)
            if type(msg) is DecisionRequest and (seconds := think(msg)) is not None:
                await hub.clock.sleep(seconds)
                hub.receive(conn, Decision(msg.game_id, msg.request_id, first_legal(msg)))


def answers_all(_: DecisionRequest) -> float:
    return THINK_S


def play(players: int, quitter: Think, limits: Limits = SHORT) -> tuple[GameResult, list[ArenaMessage]]:
    """A game where every bot but "quitter" (seat 1) answers everything; what the quitter heard."""

    async def scenario() -> tuple[GameResult, list[ArenaMessage]]:
        clock = ManualClock()
        hub = SessionHub(clock)
        names = [f"bot{i}" if i != 1 else "quitter" for i in range(players)]
        heard: list[ArenaMessage] = []
        pumps = []
        for name in names:
            _, stream = hub.open(name, Hello(name, "1", 4, False), name)
            think, log = (quitter, heard) if name == "quitter" else (answers_all, None)
            pumps.append(asyncio.ensure_future(pump(hub, name, stream, think, log)))
        try:
            return await clock.run(Referee(hub).play("g", names, 3, limits)), heard
        finally:
            for task in pumps:
                task.cancel()

    return asyncio.run(scenario())


@pytest.mark.parametrize("players", [2, 4])
def test_a_request_never_answered_after_answered_ones_times_out(players: int) -> None:
    answered = 0

    def quitter(req: DecisionRequest) -> float | None:
        nonlocal answered
        answered += 1
        # the flip, then silence: its first move starts after the flips' deadline was set
        return THINK_S if answered <= 1 else None

    result, _ = play(players, quitter)
    seat = result.seats[1]
    assert (seat.bot, seat.cause) == ("quitter", ForfeitCause.TIMEOUT)
    assert seat.rank == players
    assert all(s.forfeit is None for s in result.seats if s.seat != 1)
    assert replay(result.record).is_over  # the fallback played the quitter's seat to the end


def test_a_flip_never_decided_times_out_while_the_others_decide_at_once() -> None:
    result, _ = play(4, lambda req: None if req.kind is DecisionKind.FLIP else THINK_S)
    assert result.seats[1].cause is ForfeitCause.TIMEOUT
    assert result.seats[1].forfeit == f"timeout: no legal answer to request 2 within {MOVE_MS} ms"
    assert [s.forfeit is None for s in result.seats] == [True, False, True, True]


def test_an_answer_just_inside_the_move_limit_counts() -> None:
    result, _ = play(2, lambda req: MOVE_MS / 1000 * 0.99)
    assert all(s.forfeit is None for s in result.seats)


def test_a_slow_answer_draws_on_the_time_bank_and_the_bank_running_out_forfeits() -> None:
    """The first answer comes 300 ms into a 100 ms move limit: 200 ms come out of the 1500 ms bank,
    so the next request allows 100 + 1300 ms, and silence forfeits the seat then."""
    thought = iter([0.3])
    result, heard = play(2, lambda req: next(thought, None), Limits(move_ms=100, time_bank_ms=1500))
    requests = [m for m in heard if type(m) is DecisionRequest]
    assert [(r.time_left_ms, r.time_bank_ms) for r in requests[:2]] == [(1600, 1500), (1400, 1300)]
    assert result.seats[1].cause is ForfeitCause.TIMEOUT
    assert result.seats[1].forfeit == f"timeout: no legal answer to request {requests[1].request_id} within 1400 ms"


def disconnect_game(back_after_s: float | None) -> tuple[GameResult, list[ArenaMessage]]:
    """Two bots; "away" drops its stream 30 ms into its first request (a 100 ms limit) and, unless
    `back_after_s` is None, opens a new one that long after; its new stream answers everything."""

    async def scenario() -> tuple[GameResult, list[ArenaMessage]]:
        clock = ManualClock()
        hub = SessionHub(clock)
        _, steady = hub.open("steady", Hello("steady", "1", 1, False), "s")
        away, first = hub.open("away", Hello("away", "1", 1, False), "a1")
        heard: list[ArenaMessage] = []
        pumps = [asyncio.ensure_future(pump(hub, "steady", steady, answers_all))]

        async def leave_and_return() -> None:
            while not any(type(m) is DecisionRequest for m in await first.next_batch()):
                pass
            await clock.sleep(0.03)
            hub.close(away, first)
            if back_after_s is not None:
                await clock.sleep(back_after_s)
                _, again = hub.open("away", Hello("away", "1", 1, False), "a2")
                await pump(hub, "away", again, answers_all, heard)

        pumps.append(asyncio.ensure_future(leave_and_return()))
        try:
            limits = Limits(move_ms=100, grace_ms=500)
            return await clock.run(Referee(hub).play("g", ["steady", "away"], 5, limits)), heard
        finally:
            for task in pumps:
                task.cancel()

    return asyncio.run(scenario())


def test_a_bot_away_longer_than_the_grace_period_forfeits() -> None:
    result, _ = disconnect_game(back_after_s=None)
    assert result.seats[1].cause is ForfeitCause.DISCONNECT
    assert result.seats[1].forfeit == "disconnected: not back within the 500 ms grace period"


def test_time_away_is_not_thinking_time_and_the_request_comes_back_with_what_was_left() -> None:
    result, heard = disconnect_game(back_after_s=0.4)
    resent = next(m for m in heard if type(m) is DecisionRequest)
    assert resent.request_id == 2 and resent.time_left_ms == 70
    assert all(s.forfeit is None for s in result.seats)


def test_a_bot_back_after_its_seat_was_forfeited_hears_so_after_its_game_started() -> None:
    """Back 600 ms after leaving, past a 500 ms grace: the game is re-sent (docs/protocol.md, "Forfeits"), and right
    after the seat's GameStarted comes the forfeit it was not there to hear; no request follows."""
    result, heard = disconnect_game(back_after_s=0.6)
    assert result.seats[1].cause is ForfeitCause.DISCONNECT
    kinds = [type(m) for m in heard]
    assert kinds[:3] == [Welcome, GameStarted, ErrorNotice], heard[:3]
    notice = heard[2]
    assert isinstance(notice, ErrorNotice) and notice.code is ErrorCode.SEAT_FORFEITED
    assert notice.message == "seat 1 of game 'g' was forfeited: disconnected: not back within the 500 ms grace period"
    assert DecisionRequest not in kinds
